"""structlog set-up shared by every process: console on a TTY, JSON lines otherwise.

The stdlib root logger is routed through the same processors, so Temporal's workflow and activity
loggers (which attach `temporal_workflow` / `temporal_activity` dicts as extras) come out as
structured fields instead of being flattened into the message.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, Literal

import structlog

_TEMPORAL_EXTRAS = ("temporal_workflow", "temporal_activity")


def _temporal_extras(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    record = event.get("_record")
    if record is not None:
        for key in _TEMPORAL_EXTRAS:
            value = getattr(record, key, None)
            if value is not None:
                event[key] = value
    return event


def configure_logging(
    level: str = "info", fmt: Literal["auto", "json", "console"] = "auto"
) -> None:
    use_console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _temporal_extras,
    ]
    renderer: structlog.types.Processor = (
        structlog.dev.ConsoleRenderer() if use_console else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info if not use_console else _identity,
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Chatty libraries stay at warning unless we debug.
    for noisy in ("neo4j", "botocore", "boto3", "urllib3", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.DEBUG if level == "debug" else logging.WARNING)


def _identity(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    return event


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    logger: structlog.stdlib.BoundLogger = structlog.stdlib.get_logger(name)
    return logger
