"""Sleep scheduling cost: adaptive scheduling + smart skip vs a naive full pass every night.

A population simulation with the pure domain policy (`selfimprint.domain.sleep_simulation`):
every user is replayed event by event through `sleep_policy.next_sleep_at`, `smart_skip.decide`
and the tier rule. Cost is counted in LLM calls (the sleep phase's expensive part: the smart-skip
pre-check and hypothesis formation; the other operations are deterministic graph work) and in
passes. The naive policy runs a full pass (one hypothesis call) for every user every night.

Population (spec §3.8.1: 10-15 % of users active in a given week): per user a plan (paid with
probability --paid) and an activity class with its daily message rate; a user writes on a day
with probability `days_per_week / 7`, a Poisson number of messages at a random local hour.
Smart-skip inputs: each message carries a signal (emotion, significant event, open loop) with
probability --signal; when the rule is ambiguous the LLM pre-check says "worth it" with
probability --worth. All of these are assumptions, printed with the result.

    .venv/bin/python scripts/bench_sleep.py --users 100000 --days 90
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from selfimprint.domain.sleep_policy import Plan
from selfimprint.domain.sleep_simulation import SimulatedSleeps, simulate_user

START = datetime(2025, 1, 6, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")


@dataclass(frozen=True)
class ActivityClass:
    name: str
    share: float  # of the user base
    days_per_week: float  # days with messages
    messages_per_day: float  # mean on those days


# 3 % + 5 % + 6 % = 14 % write in a given week (spec §3.8.1: 10-15 %); dormant users write a
# couple of times a month (some weeks they count as active too), the rest not at all.
MIX = (
    ActivityClass("very_active", 0.03, 6.5, 9.0),
    ActivityClass("regular", 0.05, 5.0, 2.5),
    ActivityClass("light", 0.06, 2.0, 1.5),
    ActivityClass("dormant", 0.11, 0.5, 1.2),
    ActivityClass("inactive", 0.75, 0.0, 0.0),
)


def _poisson(rng: random.Random, mean: float) -> int:
    # Knuth; means here are small.
    limit, k, p = pow(2.718281828459045, -mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _user(
    seed: int, days: int, paid: float, signal: float, worth: float
) -> tuple[str, str, dict[str, int]]:
    rng = random.Random(seed)
    plan = Plan.PAID if rng.random() < paid else Plan.FREE
    cls = rng.choices(MIX, weights=[c.share for c in MIX])[0]
    messages = []
    for day in range(days):
        if rng.random() < cls.days_per_week / 7:
            n = max(1, _poisson(rng, cls.messages_per_day))
            at = START + timedelta(days=day, hours=rng.uniform(7, 23))
            messages.append((at, n))
    sims = simulate_user(
        plan,
        messages,
        START,
        START + timedelta(days=days),
        UTC_ZONE,
        worth_reasoning=lambda n: rng.random() < worth,
        has_signal=lambda n: rng.random() < 1 - (1 - signal) ** n,
    )
    # A fairer baseline: every night, but only from a user's first message on.
    engaged = days - (messages[0][0] - START).days if messages else 0
    return plan.value, cls.name, asdict(sims) | {"naive_engaged": engaged}


def _chunk(
    args: tuple[int, int, int, float, float, float],
) -> list[tuple[str, str, dict[str, int]]]:
    first, count, days, paid, signal, worth = args
    return [_user(first + i, days, paid, signal, worth) for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--paid", type=float, default=0.1, help="share of paid users")
    parser.add_argument("--signal", type=float, default=0.15, help="P(message carries a signal)")
    parser.add_argument("--worth", type=float, default=0.5, help="P(LLM pre-check says run)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args()
    began = time.perf_counter()
    size = 500
    jobs = [
        (first, min(size, a.users - first), a.days, a.paid, a.signal, a.worth)
        for first in range(0, a.users, size)
    ]
    total: Counter[str] = Counter()
    by_class: dict[str, Counter[str]] = {}
    with ProcessPoolExecutor(a.workers) as pool:
        for rows in pool.map(_chunk, jobs):
            for plan, cls, sims in rows:
                total.update(sims)
                by_class.setdefault(f"{plan}/{cls}", Counter()).update(sims | {"users": 1})
    naive_calls = naive_passes = a.users * a.days
    engaged = total["naive_engaged"]
    adaptive = SimulatedSleeps(**{k: total[k] for k in asdict(SimulatedSleeps())})
    result = {
        "users": a.users,
        "days": a.days,
        "assumptions": {
            "paid": a.paid,
            "signal": a.signal,
            "worth": a.worth,
            "mix": [asdict(c) for c in MIX],
        },
        "naive": {"full_passes": naive_passes, "llm_calls": naive_calls},
        "naive_since_first_message": {"full_passes": engaged, "llm_calls": engaged},
        "adaptive": asdict(adaptive) | {"passes": adaptive.passes},
        "llm_call_ratio": round(naive_calls / max(adaptive.llm_calls, 1), 1),
        "full_pass_ratio": round(naive_passes / max(adaptive.full, 1), 1),
        "llm_call_ratio_since_first_message": round(engaged / max(adaptive.llm_calls, 1), 1),
        "by_class": {k: dict(v) for k, v in sorted(by_class.items())},
        "seconds": round(time.perf_counter() - began, 1),
    }
    if a.json:
        print(json.dumps(result, indent=1))  # noqa: T201
        return
    print(f"{a.users} users x {a.days} days, {result['seconds']} s")  # noqa: T201
    print(f"naive:    {naive_passes} full passes, {naive_calls} LLM calls")  # noqa: T201
    print(  # noqa: T201
        f"adaptive: {adaptive.full} full, {adaptive.light} light, {adaptive.skipped} skipped "
        f"passes; {adaptive.llm_calls} LLM calls ({adaptive.prechecks} pre-checks)"
    )
    print(f"LLM-call ratio naive/adaptive: {result['llm_call_ratio']}x")  # noqa: T201
    print(  # noqa: T201
        f"naive from each user's first message: {engaged} calls, ratio "
        f"{result['llm_call_ratio_since_first_message']}x"
    )
    for key, c in result["by_class"].items():
        print(  # noqa: T201
            f"  {key:20} users {c['users']:6}  full {c.get('full', 0):7}"
            f"  light {c.get('light', 0):6}  skipped {c.get('skipped', 0):6}"
            f"  llm {c.get('llm_calls', 0):7}"
        )


if __name__ == "__main__":
    main()
