"""Topic shifts: where one message turns to another subject (issue 32).

People pack two things into one message: a reply to the other side, then their own news ("Thanks
for the tip, Caroline, I'll do that. BTW, I hurt my ankle running last week."). Stored as one
memory, the news takes the reply's words into its vector and its type: a question about the
ankle finds a diluted match, and a remark's type may put it on a fast curve. A sentence that
opens with a topic-shift cue (`LanguageCues.topic_shift`: "by the way", "BTW", "on another note",
"кстати", "между прочим") starts a new run; each run is read as a message of its own would be
(its pieces, type, dates, people), and every memory still cites the one message it came from.
On LoCoMo dev, 44 of 2,760 turns hold such a cue after a sentence end, and 29 of them are the
evidence of a question (against a quarter of all turns).
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
