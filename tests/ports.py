"""Loopback ports for tests that need a server to be absent or a port to serve on."""

from __future__ import annotations

import socket

_refusing: socket.socket | None = None


def refused_port() -> int:
    """A loopback port on which every connection is refused, for the life of the test process.

    The socket stays bound and never listens, so no other process can take the port, as one
    could take a port that was found free and then released.
    """
    global _refusing
    if _refusing is None:
        _refusing = socket.socket()
        _refusing.bind(("127.0.0.1", 0))
    port: int = _refusing.getsockname()[1]
    return port


def free_port() -> int:
    """A port the kernel just handed out and released, for a server the test starts at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
