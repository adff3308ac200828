"""Secrets the local stack generates once into `<data_dir>/secrets/` (mode 0600) and then reuses,
so that a restart finds the same Neo4j password, S3 keys, key-encryption key, tokens and the
collective pseudonym key."""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path

from selfimprint.config import COLLECTIVE_PSEUDONYM_SECRET, Settings


def _ensure(path: Path, make: str) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(make + "\n")


def ensure_local_secrets(settings: Settings) -> None:
    root = settings.secrets_dir
    _ensure(root / "neo4j-password", secrets.token_urlsafe(24))
    _ensure(root / "s3-access-key-id", "SI" + secrets.token_hex(9).upper())
    _ensure(root / "s3-secret-access-key", secrets.token_urlsafe(30))
    # A 256-bit key-encryption key that wraps per-user data keys (AES-256-GCM).
    kek = settings.kek_path or (root / "kek")
    _ensure(kek, base64.b64encode(secrets.token_bytes(32)).decode())
    # Encrypts Temporal payloads (messages and memories travel through workflow history).
    _ensure(root / "temporal-payload-key", base64.b64encode(secrets.token_bytes(32)).decode())
    # Bearer token of the codec server (which decrypts those payloads for operators).
    _ensure(root / "codec-token", secrets.token_urlsafe(32))
    # Keys CollectiveImprint's pseudonyms (32 random bytes, hex): the API counts users by them,
    # the cpu worker withdraws an erased user's.
    _ensure(root / COLLECTIVE_PSEUDONYM_SECRET, secrets.token_hex(32))
