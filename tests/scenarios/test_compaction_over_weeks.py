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
    """A re-mention of an expired memory cannot reinforce it (retrieval no longer sees it), so a
    fresh twin is stored. Rule removed (no sweep before the dedupe, the merge keeping the dead
    survivor's stale weight and expiry), the next compaction folds the fresh twin into the dead
    node and the fact vanishes for good."""
    fact = "My favourite tea is a green sencha from Shizuoka."
    async with a_life(stack_settings, tenant_key) as life:
        await life.say(fact)
        for day in range(0, 40, 3):  # active every 3 days: the clock runs, the fact fades
            await life.say(CHATTER[day // 3])
            await life.days_pass(3)
        forgotten = await life.context("Which tea do I like?")  # expired: 0.92**40 < 0.05
        assert fact not in {m["content"] for m in forgotten["memories"]}
        await life.say(fact)
        for _ in range(4):  # the next weekly compaction runs within 8 days
            await life.say("Nothing much today.")
            await life.days_pass(2)
        context = await life.context("Which tea do I like?")
        assert fact in {m["content"] for m in context["memories"]}, context
