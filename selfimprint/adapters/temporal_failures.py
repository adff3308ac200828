"""Failures small enough that Temporal keeps them whole.

The server keeps a retrying activity's last failure in the workflow's mutable state only up to
4 KB (`limit.mutableStateActivityFailureSizeLimitError`) and replaces a bigger one with
"Failure exceeds size limit.": that is then all that `selfimprint sleep status` and the Temporal
UI show while the activity retries. A Python exception chain with its stack traces (the
product's error over the client library's over the socket's) is several times that: a sleep
pass whose LLM was down showed only "Failure exceeds size limit." for its whole retry budget.

So every failure a worker sends keeps its messages and is cut elsewhere: each stack trace to
its innermost frames (where it failed), a long cause chain to its first links and its root
cause, and the stack traces below the outermost dropped if it is still over the budget.
"""

from __future__ import annotations

from temporalio.api.failure.v1 import Failure
from temporalio.converter import DefaultFailureConverter, PayloadConverter

# Under the server's 4 KB, with room for the failure's info fields.
FAILURE_BUDGET_BYTES = 3_500
STACK_TRACE_CHARS = 700  # the innermost frames: a few lines of file, line and code
MESSAGE_CHARS = 500
MAX_CHAIN = 4  # the failure, two causes under it, and the root cause


def bound_failure(failure: Failure) -> None:
    """Cut `failure` in place to fit `FAILURE_BUDGET_BYTES` (the messages stay readable)."""
    chain = _chain(failure)
    if len(chain) > MAX_CHAIN:
        root = Failure()
        root.CopyFrom(chain[-1])
        root.message = f"(+{len(chain) - MAX_CHAIN} causes cut) {root.message}"
        chain[MAX_CHAIN - 2].cause.CopyFrom(root)
        chain = _chain(failure)
    for link in chain:
        if len(link.message) > MESSAGE_CHARS:
            link.message = link.message[: MESSAGE_CHARS - 1] + "…"
        if len(link.stack_trace) > STACK_TRACE_CHARS:
            link.stack_trace = "…\n" + link.stack_trace[-STACK_TRACE_CHARS:]
    if failure.ByteSize() > FAILURE_BUDGET_BYTES:
        for link in chain[1:]:
            link.stack_trace = ""


def _chain(failure: Failure) -> list[Failure]:
    links = [failure]
    while links[-1].HasField("cause"):
        links.append(links[-1].cause)
    return links


class BoundedFailureConverter(DefaultFailureConverter):
    """The SDK's failure converter, with every failure it writes cut by `bound_failure`."""

    def to_failure(
        self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure
    ) -> None:
        super().to_failure(exception, payload_converter, failure)
        bound_failure(failure)
