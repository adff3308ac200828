"""The deadlines the tests wait on, from one setting.

`SELFIMPRINT_START_TIMEOUT_S` is the stack's readiness deadline per service (`Settings.
start_timeout_s`, what `selfimprint dev up` waits). The tests read the same variable, with a
default above the product's 180 s: a CI machine may have one core taken by something else, and
a deadline that passes only on a quiet machine makes a flaky suite. Every wait for something to
become ready (a service of the stack, a time-skipping server, a lifecycle to settle) is this
long; a missed one names what it waited for.
"""

from __future__ import annotations

import os

READY_S = float(os.environ.get("SELFIMPRINT_START_TIMEOUT_S", "300"))
