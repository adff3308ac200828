"""What a "forget this topic" request reaches (issue 37): which memories are about the topic.

A memory is about the topic when its content contains the topic's text (case-insensitive), or
when its search terms (`terms.search_terms`: stems) hold every search term of the topic. Stems
reach the word forms a substring misses ("Ненавижу свою работу." for "работа", "jobs" for
"job"); requiring all of them keeps a longer topic ("my job at Google") from taking every memory
that mentions one of its words. The Neo4j store applies the same rule in Cypher over the stored
terms (adapters/neo4j/forgetting `_TOPIC`), and a memory that stays but replied to a message
about the topic loses that reply context (`_DROP_REPLY_CONTEXT`). Across scripts, a topic of
proper nouns reaches the memories that write them in the other alphabet
(`names_it_in_another_script`): the forget workflow and its dry run match in Python
(`activities.forget.topic_matches`); the Cypher rule serves direct store calls only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from selfimprint.domain.structured.name_keys import same_proper_noun
from selfimprint.domain.terms import FUNCTION_WORDS, search_terms


def replied_about_topic(context_terms: Iterable[str], topic: str) -> bool:
    """A memory replied to a message about the topic: its reply context's terms
    (`Node.context_terms`) hold every search term of the topic. It keeps its own words and
    loses that reply context (the Neo4j store: `_DROP_REPLY_CONTEXT`)."""
    wanted = set(search_terms(topic))
    return bool(wanted) and wanted <= set(context_terms)


def about_topic(content: str, topic: str) -> bool:
    if topic.lower() in content.lower():
        return True
    wanted = set(search_terms(topic))
    if wanted and wanted <= set(search_terms(content)):
        return True
    return names_it_in_another_script(content, topic)


_WORD = re.compile(r"[^\W\d_]+(?:['’]s)?")
_SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+|\n)\s*[«\"'(]*$")


def _script(word: str) -> str:
    return "cyrillic" if re.search(r"[а-яё]", word, re.IGNORECASE) else "latin"


def names_it_in_another_script(content: str, topic: str) -> bool:
    """Every word of the topic is a proper noun the memory writes in the other script (issue
    37: "Казань" and "Kazan", "Tesla" and "Теслу", "Pelevin" and "Пелевин"; keys as
    `structured.name_keys.same_proper_noun`). The memory's word must be capitalised, and not only
    because it opens a sentence unless the topic capitalises it too: "сон" is no "Son"."""
    words = [w for w in _WORD.findall(topic) if w.casefold() not in FUNCTION_WORDS]
    if not words:
        return False
    written = [
        (m.group(0), bool(_SENTENCE_START.search(content[: m.start()])))
        for m in _WORD.finditer(content)
        if m.group(0)[:1].isupper()
    ]
    for word in words:
        capitalised = word[:1].isupper()
        if not any(
            _script(other) != _script(word)
            and (capitalised or not opens)
            and same_proper_noun(word, other)
            for other, opens in written
        ):
            return False
    return True
