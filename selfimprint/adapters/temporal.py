"""The one way every process connects to Temporal (local dev server or a production cluster)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from selfimprint.config import Settings


async def connect(settings: Settings) -> Client:
    api_key = settings.temporal_api_key.get_secret_value() if settings.temporal_api_key else None
    return await Client.connect(
        settings.temporal_target,
        namespace=settings.temporal_namespace,
        tls=settings.temporal_tls or api_key is not None,
        api_key=api_key,
        data_converter=pydantic_data_converter,
    )
