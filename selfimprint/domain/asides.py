"""Asides (issue 32): what a user asks the other side about it, saying nothing of themselves.

"Wow, sounds amazing! What was the event like?" or "А как прошёл концерт?" keeps a conversation
going; it tells nothing about the user. Stored on its type's curve, such a line stays in the
default context as long as a fact about the user does and crowds it out. The rule, applied to
every extractor's output at ingestion: a memory whose words ask something (a sentence ending in
a question mark) and hold no first-person word (EN/RU: "I", "my", "we", "я", "мой", "мы", ...)
decays on the aside curve (`DecayConfig.aside`), the fastest of its type's and that one. Like
any faded memory it is kept, not deleted: a question that singles it out still recognises it
(domain.recognition), and re-mentioning it reinforces it.

What the rule reads is the memory's own words: a message that asks and also says something of
the speaker ("I loved it! Have you been?") is not an aside, nor a statement without a question
("The weather has been grey"). Measured on LoCoMo dev with the clock running (BENCHMARKS.md,
"Asides fade"): 5 % of such memories hold an evidence turn, against 32 % of the others.
"""

from __future__ import annotations

import re

# First-person words, EN and RU (the languages the product reads with cues); "we" counts: a
# plan or an outing shared with the other side is the user's too.
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours"
    r"|я|меня|мне|мной|мой|моя|моё|мое|мои|моего|моей|моему|мою|моих|моим|моими"
    r"|мы|нас|нам|нами|наш|наша|наше|наши|нашего|нашей|нашу|наших|себя|себе|собой)\b",
    re.IGNORECASE,
)


def is_aside(text: str) -> bool:
    """The words ask something and say nothing of the speaker (see the module docstring)."""
    clean = text.replace("\u2019", "'")
    return "?" in clean and _FIRST_PERSON.search(clean) is None


def aside_coefficient(coefficient: float, text: str, aside: float) -> float:
    """The daily decay coefficient a memory of these words is stored with: its type's curve,
    or the aside curve when that is faster and the words are an aside."""
    return min(coefficient, aside) if is_aside(text) else coefficient
