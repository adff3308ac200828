"""The one way every process connects to Temporal (local dev server or a production cluster)."""

from __future__ import annotations

import dataclasses
import os

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter
from temporalio.runtime import Runtime
from temporalio.service import TLSConfig

from selfimprint.adapters.crypto import FileDataKeyStore, load_kek
from selfimprint.adapters.payload_codec import DataKeyPayloadKeys, parse_keys, with_encryption
from selfimprint.adapters.temporal_failures import BoundedFailureConverter
from selfimprint.config import Settings
from selfimprint.telemetry import tracing


def data_converter(settings: Settings) -> DataConverter:
    """Pydantic models on the wire, encrypted unless turned off (every client and worker of a
    namespace must agree, or one side reads ciphertext), a user's workflows under that user's
    key (`payload_codec`); failures bounded in size (`temporal_failures`)."""
    # Failures cut to fit what the server keeps of a retrying activity's last failure.
    converter = dataclasses.replace(
        pydantic_data_converter, failure_converter_class=BoundedFailureConverter
    )
    if not settings.temporal_encrypt_payloads:
        return converter
    keys = settings.secret(settings.temporal_payload_keys, "temporal-payload-key")
    user_keys = None
    if settings.temporal_user_payload_keys:
        # A user's payloads under their own data key (issue 37): erasure shreds their histories.
        store = FileDataKeyStore(settings.data_dir, load_kek(settings, os.environ))
        user_keys = DataKeyPayloadKeys(store)
    return with_encryption(converter, parse_keys(keys), user_keys)


def tls_config(settings: Settings) -> TLSConfig | bool:
    """TLS to the frontend: off, on with the system roots, or a TLSConfig for a private CA,
    an mTLS client certificate or another server name. Files are read once, at connect: a
    renewed certificate takes a restart."""
    ca, cert, key = (
        settings.temporal_tls_ca_path,
        settings.temporal_tls_cert_path,
        settings.temporal_tls_key_path,
    )
    if ca is None and cert is None and key is None and settings.temporal_tls_server_name is None:
        return settings.temporal_tls or settings.temporal_api_key is not None
    if (cert is None) != (key is None):
        raise ValueError("temporal_tls_cert_path and temporal_tls_key_path go together (mTLS)")
    return TLSConfig(
        server_root_ca_cert=ca.read_bytes() if ca else None,
        client_cert=cert.read_bytes() if cert else None,
        client_private_key=key.read_bytes() if key else None,
        domain=settings.temporal_tls_server_name,
    )


async def connect(settings: Settings, *, runtime: Runtime | None = None) -> Client:
    """`runtime`: the worker's, which serves the SDK's Prometheus metrics (workers/runner.py);
    None = the SDK's default runtime, without metrics. With tracing on, the client carries the
    OpenTelemetry interceptor: its calls send the caller's trace context, and workers built from
    it trace workflows and activities."""
    api_key = settings.temporal_api_key.get_secret_value() if settings.temporal_api_key else None
    return await Client.connect(
        settings.temporal_target,
        namespace=settings.temporal_namespace,
        tls=tls_config(settings),
        api_key=api_key,
        data_converter=data_converter(settings),
        interceptors=tracing.client_interceptors(),
        runtime=runtime,
    )
