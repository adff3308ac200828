"""Weekly compaction (spec §3.9) over a user's weeks: it must clean up, never hide or delete
what the user said and still holds."""

from __future__ import annotations

from selfimprint.config import Settings
from tests.scenarios.support import a_life

# Distinct statements: the restatement test never folds one into another.
CHATTER = (
    "Work was busy today, lots of meetings about the budget.",
    "I cooked a mushroom risotto for dinner.",
    "The weather turned cold and I bought a wool coat.",
    "I watched a documentary about octopuses.",
    "My sister called about the summer holidays in Greece.",
    "I fixed the bike's back brake myself.",
    "Reading a novel about a lighthouse keeper.",
    "Went for a long run along the river.",
    "Our team shipped the new billing dashboard.",
    "I repotted the monstera on the balcony.",
    "Booked a dentist appointment for a filling.",
    "Tried a bouldering gym with a colleague.",
    "The landlord finally repaired the boiler.",
    "I baked sourdough bread for the first time.",
    "Spent the evening learning chords on the ukulele.",
    "Visited my grandmother in the care home.",
)


async def test_a_verbatim_users_memories_survive_eight_weeks_of_compaction(
    stack_settings: Settings, tenant_key: str
) -> None:
    """Verbatim memories have no edges. Compaction removes nodes *left* without edges; rule
    removed (every edge-less node older than the 7-day grace goes), each weekly pass empties the
    user's graph of everything older than a week."""
    async with a_life(stack_settings, tenant_key) as life:
        said: list[str] = []
        for week in range(8):
            for day in (0, 3):
                text = CHATTER[2 * week + day // 3]
                await life.say(text)
                said.append(text)
                await life.days_pass(3.5)
        kept = {m["content"] for m in await life.memories()}
        # Facts fade at 0.92/day while the user is active: those said in the last ~5 weeks are
        # still above the removal threshold; all of them are older than compaction's grace.
        recent = said[-8:-2]
        assert set(recent) <= kept, sorted(kept)
        context = await life.context("Where did I go climbing?")
        assert any("bouldering" in m["content"] for m in context["memories"]), context


async def test_a_fact_re_mentioned_after_its_expiry_comes_back_after_compaction(
    stack_settings: Settings, tenant_key: str
) -> None:
    """A fact faded under the removal threshold is kept (issue 32): a specific question still
    recognises it, and a re-mention finds and reinforces it (no fresh twin), so it is live again
    and survives the next compaction. Rules removed: without recognition the faded fact is out
    of the first context; with the sweeper deleting faded facts it is gone, and the re-mention
    stores a twin."""
    fact = "My favourite tea is a green sencha from Shizuoka."
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(fact)
        for day in range(0, 40, 3):  # active every 3 days: the clock runs, the fact fades
            await life.say(CHATTER[day // 3])
            await life.days_pass(3)
        (faded,) = [m for m in await life.memories() if m["content"] == fact]
        assert faded["faded"] and faded["weight"] < 0.05, faded  # 0.92**40
        recalled = await life.context("Which tea do I like?")
        assert fact in {m["content"] for m in recalled["memories"]}, recalled
        await life.say(fact)
        (revived,) = [m for m in await life.memories() if m["content"] == fact]
        assert revived["id"] == faded["id"] and len(revived["sources"]) == 2, revived
        assert not revived["faded"] and revived["weight"] > 0.15, revived
        for _ in range(4):  # the next weekly compaction runs within 8 days
            await life.say("Nothing much today.")
            await life.days_pass(2)
        context = await life.context("Which tea do I like?")
        assert fact in {m["content"] for m in context["memories"]}, context
