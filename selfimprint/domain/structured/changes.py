"""Which standing state a message says changed, read from its embedding (issue 34).

The contradiction rules (`slots`) read a change where their words are: "handed in my notice",
"got the keys", "перенесли". New writers say it in words no rule holds ("handed the keys back
for the Govan flat", "Quillbyte laid off 30% of eng and i was in the 30%", "first night back in
my childhood bedroom"). A softmax head on the message's passage vector, trained by
`scripts/train_change_head.py` on the train writers' labelled contradictions, reads which slot
changed (job, home, relationship, plan, habit) or none. The extractor acts on it only where
the rules found nothing, the head is sure (`StructuredConfig.change_likely`), and an older
memory holding that slot is close to the message (`StructuredConfig.change_match`): the head
says what kind of thing changed, the embeddings say which memory it was.

Weights in `data/change_head.json`, standardisation folded in, tied to the embedding model
they were trained on: with another embedder no change is read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from selfimprint.domain.structured.head import Softmax
from selfimprint.domain.structured.slots_model import Slot

CHANGE_FILE = "data/change_head.json"
NO_CHANGE = "none"


@dataclass(frozen=True)
class SlotChange:
    slot: Slot
    probability: float


@dataclass(frozen=True)
class ChangeHead:
    embedding_model: str
    slots: Softmax  # none and each Slot value

    def change(self, vector: Sequence[float]) -> SlotChange | None:
        """The slot the message most likely says changed, with its probability; None where
        "no change" is likelier than any slot."""
        read = self.slots.probabilities(vector)
        label = max(read, key=lambda k: read[k])
        return None if label == NO_CHANGE else SlotChange(Slot(label), read[label])

    def change_odds(self, vector: Sequence[float]) -> float:
        """The probability that the message says some slot changed (any slot)."""
        return 1.0 - self.slots.probabilities(vector)[NO_CHANGE]

    def to_json(self) -> dict[str, object]:
        return {"embedding_model": self.embedding_model, "slots": self.slots.to_json()}

    @classmethod
    def from_json(cls, raw: dict[str, object]) -> ChangeHead:
        slots = raw["slots"]
        assert isinstance(slots, dict)
        return cls(str(raw["embedding_model"]), Softmax.from_json(slots))


@cache
def shipped_change_head() -> ChangeHead | None:
    """The head shipped in the package, or None when none was trained yet."""
    path = resources.files("selfimprint.domain.structured").joinpath(CHANGE_FILE)
    if not path.is_file():
        return None
    return ChangeHead.from_json(json.loads(path.read_text()))


def change_head_for(embedding_model: str) -> ChangeHead | None:
    head = shipped_change_head()
    return head if head is not None and head.embedding_model == embedding_model else None
