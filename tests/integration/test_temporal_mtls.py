"""`connect()` reaches a Temporal frontend that demands mutual TLS (the Helm chart's
temporalTLS Secret), and is refused without a client certificate.

The Temporal dev server speaks plain gRPC only, so a TLS terminator in front of it plays the
frontend: it holds a certificate of a private CA for `temporal.test` and requires a client
certificate of the same CA (CERT_REQUIRED), as a self-hosted cluster with mTLS does. The client is
the real SDK through our adapter; certificates are issued here with `cryptography`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from temporalio.api.workflowservice.v1 import ListNamespacesRequest
from temporalio.client import Client

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from tests.ports import free_port

pytestmark = pytest.mark.integration

SERVER_NAME = "temporal.test"


Issued = tuple[x509.Certificate, ec.EllipticCurvePrivateKey]


def _issue(name: str, issuer: Issued | None = None, dns: str | None = None) -> Issued:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer[0].subject if issuer else subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if dns:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False
        )
    return builder.sign(issuer[1] if issuer else key, hashes.SHA256()), key


def _write(folder: Path, name: str, issued: Issued) -> tuple[Path, Path]:
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    cert.write_bytes(issued[0].public_bytes(serialization.Encoding.PEM))
    key.write_bytes(
        issued[1].private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key


@dataclass(frozen=True)
class Pki:
    ca: Path
    server: tuple[Path, Path]
    client: tuple[Path, Path]
    stranger: tuple[Path, Path]  # a client certificate of another CA


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    ca = _issue("selfimprint test CA")
    other_ca = _issue("another CA")
    ca_path, _ = _write(folder, "ca", ca)
    return Pki(
        ca=ca_path,
        server=_write(folder, "server", _issue("frontend", ca, dns=SERVER_NAME)),
        client=_write(folder, "client", _issue("worker", ca)),
        stranger=_write(folder, "stranger", _issue("worker", other_ca)),
    )


async def _serving(port: int, deadline: float) -> bool:
    while time.monotonic() < deadline:
        with contextlib.suppress(RuntimeError):
            await Client.connect(f"127.0.0.1:{port}")
            return True
        await asyncio.sleep(0.2)
    return False


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    temporal = Path(sys.executable).parent / "temporal"
    if not temporal.exists():
        pytest.fail("no temporal CLI next to the interpreter: run scripts/setup.sh")
    port = free_port()
    folder = tmp_path_factory.mktemp("temporal")
    proc = subprocess.Popen(
        [
            str(temporal), "server", "start-dev", "--headless",
            "--ip", "127.0.0.1", "--port", str(port),
            "--http-port", str(free_port()), "--metrics-port", str(free_port()),
            "--db-filename", str(folder / "temporal.sqlite"), "--log-level", "error",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            time.sleep(0.1)
        else:
            pytest.fail("the Temporal dev server did not open its port")
        # The port opens before the frontend serves ("Frontend is not healthy yet"), and a
        # connect fails on that; wait for a plain connect to work, so that only TLS is tested.
        if not asyncio.run(_serving(port, deadline)):
            pytest.fail("the Temporal dev server did not become healthy")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.asynccontextmanager
async def mtls_frontend(pki: Pki, upstream: int) -> AsyncIterator[int]:
    """A TLS terminator requiring a client certificate of the test CA, forwarding to the dev
    server; yields its port."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki.ca))
    context.load_cert_chain(*pki.server)
    context.verify_mode = ssl.CERT_REQUIRED
    context.set_alpn_protocols(["h2"])  # gRPC

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ssl.SSLError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(forward, "127.0.0.1", 0, ssl=context)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


def _settings(port: int, **tls: object) -> Settings:
    return Settings(
        _env_file=None,
        temporal_address=f"127.0.0.1:{port}",
        temporal_encrypt_payloads=False,
        temporal_tls_server_name=SERVER_NAME,
        **tls,  # type: ignore[arg-type]
    )


async def test_connects_with_the_client_certificate(pki: Pki, dev_server: int) -> None:
    async with mtls_frontend(pki, dev_server) as port:
        settings = _settings(
            port,
            temporal_tls_ca_path=pki.ca,
            temporal_tls_cert_path=pki.client[0],
            temporal_tls_key_path=pki.client[1],
        )
        client = await connect(settings)
        assert await client.service_client.check_health()
        namespaces = await client.workflow_service.list_namespaces(ListNamespacesRequest())
        assert "default" in {n.namespace_info.name for n in namespaces.namespaces}


@pytest.mark.parametrize("client", ["none", "stranger"])
async def test_is_refused_without_a_certificate_of_the_ca(
    pki: Pki, dev_server: int, client: str
) -> None:
    tls: dict[str, object] = {"temporal_tls_ca_path": pki.ca}
    if client == "stranger":
        tls |= {"temporal_tls_cert_path": pki.stranger[0], "temporal_tls_key_path": pki.stranger[1]}
    async with mtls_frontend(pki, dev_server) as port:
        with pytest.raises(RuntimeError, match="connect"):
            await connect(_settings(port, **tls))


async def test_refuses_the_frontend_without_the_private_ca(pki: Pki, dev_server: int) -> None:
    # System roots do not know the test CA: the client must not trust the frontend.
    async with mtls_frontend(pki, dev_server) as port:
        settings = _settings(
            port, temporal_tls_cert_path=pki.client[0], temporal_tls_key_path=pki.client[1]
        )
        with pytest.raises(RuntimeError, match="connect"):
            await connect(settings)


async def test_a_certificate_without_its_key_is_a_configuration_error(pki: Pki) -> None:
    with pytest.raises(ValueError, match="go together"):
        await connect(_settings(1, temporal_tls_cert_path=pki.client[0]))
