"""Portrait blocks and the tensions log, in the epistemic-memory article's format."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import httpx
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.client import SelfImprintClient
from selfimprint.domain.models import Belief, NodeType, Permanence, Tension, TensionStatus
from selfimprint.domain.portrait import (
    PortraitConfig,
    PortraitEntry,
    PortraitFormatError,
    entry_title,
    parse_entry,
    parse_portrait,
    portrait_language,
    render_entry,
    render_portrait,
    render_tensions,
)

pytestmark = pytest.mark.unit

# Verbatim from the article ("What a belief looks like").
ARTICLE_BLOCK = (
    "## Builder Philosophy\n"
    "conf:0.75 | first:2026-03-10 | confirmed:2026-03-25 | challenged:\u2014 | perm:durable\n"
    "\n"
    "Builds for herself first, monetizes if it generalizes."
)
ARTICLE_ENTRY = PortraitEntry(
    title="Builder Philosophy",
    confidence=0.75,
    first=date(2026, 3, 10),
    confirmed=date(2026, 3, 25),
    challenged=None,
    permanence=Permanence.DURABLE,
    text="Builds for herself first, monetizes if it generalizes.",
)


def test_renders_the_articles_example_exactly() -> None:
    assert render_entry(ARTICLE_ENTRY) == ARTICLE_BLOCK


def test_parses_the_articles_example() -> None:
    assert parse_entry(ARTICLE_BLOCK) == ARTICLE_ENTRY


def test_missing_dates_are_em_dashes_and_confidence_has_two_decimals() -> None:
    entry = ARTICLE_ENTRY.model_copy(update={"confirmed": None, "confidence": 0.5})
    meta = render_entry(entry).split("\n")[1]
    assert (
        meta == "conf:0.50 | first:2026-03-10 | confirmed:\u2014 | challenged:\u2014 | perm:durable"
    )


def test_from_belief_takes_dates_in_the_users_zone_and_the_effective_confidence() -> None:
    # 23:30 UTC on the 24th is already the 25th in Tallinn (UTC+2 in March).
    tallinn = timezone(timedelta(hours=2))
    held = Belief(
        confidence=0.9,
        permanence=Permanence.STABLE,
        first_seen=datetime(2026, 3, 10, 8, 0, tzinfo=UTC),
        confirmed_at=datetime(2026, 3, 24, 23, 30, tzinfo=UTC),
    )
    entry = PortraitEntry.from_belief(
        "Roots", "Grew up in Narva.", held, confidence=0.7, tz=tallinn
    )
    assert entry.confirmed == date(2026, 3, 25)
    assert entry.challenged is None
    assert entry.confidence == 0.7
    assert PortraitEntry.from_belief("Roots", "Grew up in Narva.", held).confidence == 0.9


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (ARTICLE_BLOCK.replace("## ", "# "), "line 1"),
        (ARTICLE_BLOCK.replace(" | ", "|"), "metadata"),
        (ARTICLE_BLOCK.replace("\u2014", "-"), "metadata"),
        (ARTICLE_BLOCK.replace("durable", "eternal"), "metadata"),
        (ARTICLE_BLOCK.replace("0.75", "0.750"), "metadata"),
        (ARTICLE_BLOCK.replace("0.75", "1.50"), "confidence"),
        (ARTICLE_BLOCK.replace("2026-03-25", "2026-02-30"), "confirmed"),
        (ARTICLE_BLOCK.replace("durable\n\n", "durable\n"), "line 3"),
        ("## Only a title", "line 2"),
        (ARTICLE_BLOCK.split("\n\n")[0], "line 3"),
        (ARTICLE_BLOCK.split("\n\n")[0] + "\n\n", "line 3"),
        (ARTICLE_BLOCK.split("\n\n")[0] + "\n\n  ", "needs text"),
    ],
)
def test_malformed_blocks_are_rejected_with_a_reason(block: str, reason: str) -> None:
    with pytest.raises(PortraitFormatError, match=reason):
        parse_entry(block)


def test_text_may_not_open_a_new_block() -> None:
    with pytest.raises(ValidationError, match="new block"):
        ARTICLE_ENTRY.model_validate(ARTICLE_ENTRY.model_dump() | {"text": "ok\n## sneaky"})


def test_titles_are_one_line() -> None:
    with pytest.raises(ValidationError, match="one non-blank line"):
        ARTICLE_ENTRY.model_validate(ARTICLE_ENTRY.model_dump() | {"title": "two\nlines"})


def test_more_decimals_can_be_configured() -> None:
    precise = PortraitConfig(confidence_decimals=3)
    entry = ARTICLE_ENTRY.model_copy(update={"confidence": 0.125})
    rendered = render_entry(entry, precise)
    assert "conf:0.125 |" in rendered
    assert parse_entry(rendered, precise) == entry


def test_a_portrait_is_blocks_separated_by_blank_lines() -> None:
    second = ARTICLE_ENTRY.model_copy(
        update={"title": "Night owl", "text": "Line one.\n\nLine two."}
    )
    portrait = render_portrait([ARTICLE_ENTRY, second])
    assert portrait == ARTICLE_BLOCK + "\n\n" + render_entry(second)
    assert parse_portrait(portrait) == (ARTICLE_ENTRY, second)
    with pytest.raises(PortraitFormatError, match="before the first heading"):
        parse_portrait("stray\n" + portrait)


# Round trip -------------------------------------------------------------------------------------

titles = st.text(
    st.characters(codec="utf-8", exclude_characters="\n\r"),
    min_size=1,
    max_size=40,
).filter(lambda t: t.strip())
texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=200)
optional_dates = st.none() | st.dates()


@st.composite
def entries(draw: st.DrawFn) -> PortraitEntry:
    text = draw(texts)
    normalised = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    assume(normalised and not any(line.startswith("## ") for line in normalised.split("\n")))
    return PortraitEntry(
        title=draw(titles),
        confidence=draw(st.floats(0.0, 1.0)),
        first=draw(st.dates()),
        confirmed=draw(optional_dates),
        challenged=draw(optional_dates),
        permanence=draw(st.sampled_from(Permanence)),
        text=text,
        until=draw(optional_dates),  # issue 33: ended by a later statement (history)
    )


@given(entries())
def test_render_then_parse_round_trips(entry: PortraitEntry) -> None:
    rendered = render_entry(entry)
    parsed = parse_entry(rendered)
    # Confidence is shown with two decimals; everything else comes back exactly.
    assert parsed == entry.model_copy(update={"confidence": float(f"{entry.confidence:.2f}")})
    assert render_entry(parsed) == rendered


@given(st.lists(entries(), max_size=5))
def test_a_whole_portrait_round_trips(items: list[PortraitEntry]) -> None:
    rounded = [e.model_copy(update={"confidence": round(e.confidence, 2)}) for e in items]
    rendered = render_portrait(rounded)
    assert render_portrait(parse_portrait(rendered)) == rendered
    assert len(parse_portrait(rendered)) == len(items)


def test_a_text_line_like_a_heading_reads_back_as_written() -> None:
    # A memory's words may start a line with "# " (the tensions log's heading would end the
    # blocks there) or with a backslash: written escaped, read back unchanged.
    text = "# of kids: two\n#2 not a block\n\\ a backslash\nplain"
    entry = ARTICLE_ENTRY.model_copy(update={"text": text})
    rendered = render_portrait([entry, ARTICLE_ENTRY])
    assert "\n\\# of kids: two\n\\#2 not a block\n\\\\ a backslash\nplain" in rendered
    assert parse_portrait(rendered) == (entry, ARTICLE_ENTRY)


# Tensions ---------------------------------------------------------------------------------------

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def test_tensions_render_both_sides_unresolved_by_default_and_oldest_first() -> None:
    newer = Tension(id="t2", node_a="n3", node_b="n4", detected_at=T0 + timedelta(days=2))
    older = Tension(
        id="t1",
        node_a="n1",
        node_b="n2",
        detected_at=T0,
        note="Says she craves deep work,\nkeeps choosing interrupt-driven roles.",
    )
    contents = {
        "n1": "Craves long stretches of deep work",
        "n2": "Took a support-lead role",
        "n3": "Calls himself a morning person",
    }
    rendered = render_tensions([newer, older], contents)
    assert rendered.split("\n") == [
        "## Tensions",
        "- detected:2026-03-10 | status:unresolved | Craves long stretches of deep work"
        " | Took a support-lead role",
        "  note: Says she craves deep work, keeps choosing interrupt-driven roles.",
        "- detected:2026-03-12 | status:unresolved | Calls himself a morning person | n4",
    ]
    assert "resolution" not in rendered.lower()


def test_a_resolved_tension_shows_its_status_and_an_empty_log_says_so() -> None:
    resolved = Tension(
        id="t", node_a="a", node_b="b", detected_at=T0, status=TensionStatus.RESOLVED
    )
    assert "status:resolved" in render_tensions([resolved], {})
    assert render_tensions([], {}) == "## Tensions\n(none recorded)"


async def test_the_sdk_reads_the_beliefs_of_the_portrait_the_api_serves() -> None:
    # The API appends the tensions log after the belief blocks (api/routes/memories.py).
    tension = Tension(id="t", node_a="a", node_b="b", detected_at=T0)
    served = (
        render_portrait([ARTICLE_ENTRY])
        + "\n\n# Tensions\n\n"
        + render_tensions([tension], {"a": "I work at Initech", "b": "I quit Initech"})
    )

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/users/u1/portrait"
        return httpx.Response(200, text=served)

    client = SelfImprintClient("http://api", "key")
    client._http = httpx.AsyncClient(base_url="http://api", transport=httpx.MockTransport(answer))
    async with client:
        assert await client.portrait_entries("u1") == (ARTICLE_ENTRY,)


def test_the_portrait_speaks_the_users_language() -> None:
    """Issue 36: the portrait's own words follow the user: the preferred language when the
    portrait has it, else the one most memories are written in, else English."""
    ru = ["Работаю в Тинькофф.", "Люблю горы.", "I like tea."]
    assert portrait_language(ru) == "ru"
    assert portrait_language(ru, preferred="en") == "en"
    assert portrait_language(ru, preferred="de") == "ru"
    assert portrait_language([]) == "en"
    assert entry_title(NodeType.FACT, "Работаю в Тинькофф.", "ru") == "Факт: Работаю в Тинькофф."
    assert entry_title(NodeType.OPEN_LOOP, "x " * 40, "en").startswith("Open loop: x x")
    assert len(entry_title(NodeType.FACT, "слово " * 30, "ru")) <= len("Факт: ") + 60


def test_a_localised_tensions_log_ends_the_blocks() -> None:
    first = datetime(2026, 3, 10, tzinfo=UTC)
    entry = PortraitEntry.from_belief(
        "Факт: Работаю в Тинькофф.", "Работаю в Тинькофф.", Belief(first_seen=first)
    )
    tension = Tension(id="t1", node_a="a", node_b="b", detected_at=first)
    sides = {"a": "Работаю в Сбере.", "b": "Ушёл из Сбера."}
    log = render_tensions([tension], sides, language="ru")
    assert log.startswith("## Противоречия\n")
    assert len(parse_portrait(render_entry(entry) + "\n\n" + log)) == 1
