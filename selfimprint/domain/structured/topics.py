"""Topic shifts: where one message turns to another subject (issue 32).

People pack two things into one message: a reply to the other side, then their own news ("Wow,
that sounds amazing, how did the show go? By the way, I'm allergic to peanuts."). Read whole, the
reply's words can make the message small talk, and the news is never stored. A sentence that
opens with a topic-shift cue (`LanguageCues.topic_shift`: "by the way", "BTW", "on another note",
"кстати", "между прочим") starts a new run; when the message reads as small talk, the first
later run that does not, read alone, gives the message its type, and the memory keeps all its
words (the extractor, `structured_extraction`).

Splitting such messages into a memory per run was measured and not kept: on LoCoMo dev through
the API it cost 0.016 of text-credited recall at 400 tokens and 0.045 on temporal questions (a
run alone does not show its turn), for +0.002 source-credited (docs/decisions.md).
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# What may stand before the cue's words: quotes, brackets, dashes, emoji and other symbols.
_LEAD = re.compile(r"^[^\w]+", re.UNICODE)


def topic_runs(text: str, shift: re.Pattern[str]) -> list[str]:
    """`text` as runs of whole sentences, a new run at each sentence that opens with `shift`
    (matched at the sentence's start, after any punctuation); one run when there is none."""
    sentences = [s for s in _SENTENCE_END.split(" ".join(text.split())) if s]
    runs: list[list[str]] = []
    for sentence in sentences:
        opens = shift.match(_LEAD.sub("", sentence).replace("’", "'")) is not None
        if runs and not opens:
            runs[-1].append(sentence)
        else:
            runs.append([sentence])
    return [" ".join(run) for run in runs]
