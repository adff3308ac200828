"""The words of a message and where each stands, as the readers of people see them."""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD = re.compile(r"\w+(?:-\w+)*|'s\b")
# Latin letters with accents too: José, Zoë, Tomás.
_UPPER, _LOWER = "A-ZÀ-ÖØ-ÞА-ЯЁ", "a-zß-öø-ÿа-яё"
CAPITALISED = re.compile(rf"^[{_UPPER}][{_LOWER}]+(?:-[{_UPPER}][{_LOWER}]+)?$")


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    return [Token(m.group(0), m.start(), m.end()) for m in WORD.finditer(text)]
