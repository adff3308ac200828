"""`python -m api`: serve the API with uvicorn on the configured loopback port."""

from __future__ import annotations

import uvicorn

from api.app import create_app
from selfimprint.config import Settings
from selfimprint.logging import configure_logging
from selfimprint.telemetry import tracing


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    provider = tracing.configure_tracing("api")
    try:
        uvicorn.run(
            create_app(settings),
            host=settings.bind_host,
            port=settings.api_port,
            log_config=None,  # keep our structlog handlers
            access_log=False,
        )
    finally:
        tracing.shutdown_tracing(provider)


if __name__ == "__main__":
    main()
