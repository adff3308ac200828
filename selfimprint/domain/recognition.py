"""Recognition: when a query brings a faded memory back (issue 32, cue-dependent recall).

A faded memory (decayed under the removal threshold, kept: domain.fading) is out of the default
context pool. A query recognises it when the match is both strong enough and *specific*: its
similarity to the memory stands out from its similarity to the user's memories in general.

An embedding's similarity has a baseline that depends on the query: a vague question ("any
tips for my garden?") is somewhat similar to much of what a user said, a pointed one ("am I
allergic to any animals?") to one memory far more than to the rest. An absolute bar cannot tell
the two apart: low enough to let the pointed questions of a long conversation find their old
memories, it lets a vague question of a small graph pull in whatever is nearest. So the rule
reads how far the memory's similarity lies above the query's typical similarity to the user's
memories, in units of their typical spread (`distinctiveness`): a robust z-score, the median and
the scaled median absolute deviation, so that a second strong match (the octopus documentary
beside the cat allergy, for "animals") does not hide the first, as it would by inflating a
standard deviation in a small graph. The spread is read over similarities calibrated but not
clipped at 0 (an affine map of the cosine: the same z-score as raw cosines, in units that
compare across embedders), from the user's memories with the smallest ids (ids are content
hashes: a sample without order), at most `ScoringConfig.recognition_sample` of them, so its cost
is bounded on large graphs; both read paths (Neo4j's statement, the snapshot read) use the same
sample.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from selfimprint.domain.models import NodeType, Valence
from selfimprint.domain.scoring import DEFAULT_SCORING, ScoringConfig

# The median absolute deviation times this estimates a standard deviation (normal data).
MAD_TO_DEVIATION = 1.4826


class SimilaritySpread(BaseModel):
    """The query's similarity (calibrated, unclipped) over a sample of the user's memories: its
    median and its scaled median absolute deviation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    centre: float
    deviation: float
    size: int

    @classmethod
    def of(cls, similarities: Iterable[float]) -> SimilaritySpread | None:
        values = list(similarities)
        if not values:
            return None
        centre = statistics.median(values)
        mad = statistics.median(abs(v - centre) for v in values)
        return cls(centre=centre, deviation=MAD_TO_DEVIATION * mad, size=len(values))


def unclipped_similarity(cosine: float, floor: float) -> float:
    """`scoring.calibrated_similarity` without the clip at 0 and 1: the spread's unit."""
    return (cosine - floor) / (1.0 - floor)


def distinctiveness(
    similarity: float, spread: SimilaritySpread, config: ScoringConfig = DEFAULT_SCORING
) -> float:
    """How far `similarity` stands above the query's typical similarity to the user's
    memories, in deviations; the deviation is floored (`recognition_min_deviation`) so that a
    query equally (un)like every memory does not turn a hair's difference into a large score."""
    deviation = max(spread.deviation, config.recognition_min_deviation)
    return (similarity - spread.centre) / deviation


def recognised(
    similarity: float,
    node_type: NodeType,
    config: ScoringConfig = DEFAULT_SCORING,
    valence: Valence | None = None,
    spread: SimilaritySpread | None = None,
    lexical: float | None = None,
) -> bool:
    """Whether a query brings a faded memory back into the pool: `similarity` is the calibrated
    embedding similarity (lexical relevance aside: a shared word is not recognition), at least
    `recognition_min_similarity`, and with `recognition_min_distinctiveness` set, standing out
    from the query's `spread` by that many deviations (without a spread the memory is not
    recognised: the store read none, so nothing says the match is specific). Only memories of
    `recognised_types` come back, and no emotional note of `unrecognised_valences` (noise)."""
    if valence is not None and valence in config.unrecognised_valences:
        return False
    if node_type not in config.recognised_types:
        return False
    if (
        config.recognition_min_lexical is not None
        and lexical is not None
        and lexical >= config.recognition_min_lexical
        and spread is not None
        and distinctiveness(similarity, spread, config)
        >= config.recognition_lexical_distinctiveness
    ):
        return True
    if similarity < config.recognition_min_similarity:
        return False
    bar = config.recognition_min_distinctiveness
    if bar is None:
        return True
    return spread is not None and distinctiveness(similarity, spread, config) >= bar
