"""S3 credentials: a key pair from settings or the local stack, or boto3's default chain (IAM
role, instance profile, AWS_* variables) when s3_default_credentials is set."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfimprint.adapters.s3 import S3ObjectStore
from selfimprint.config import MissingSecretError, Settings


def _access_key(store: S3ObjectStore) -> str:
    credentials = store._client._request_signer._credentials  # noqa: SLF001 - what boto3 signs with
    return str(credentials.access_key)


def test_the_default_chain_needs_no_key_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFROMTHEROLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-from-the-role")
    settings = Settings(
        data_dir=tmp_path, s3_endpoint_url="https://s3.example.invalid", s3_default_credentials=True
    )
    assert _access_key(S3ObjectStore.from_settings(settings)) == "AKIAFROMTHEROLE"


def test_a_key_pair_is_required_otherwise(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, s3_endpoint_url="https://s3.example.invalid")
    with pytest.raises(MissingSecretError, match="s3-access-key-id"):
        S3ObjectStore.from_settings(settings)
    explicit = Settings(
        data_dir=tmp_path,
        s3_endpoint_url="https://s3.example.invalid",
        s3_access_key_id="AKIAEXPLICIT",
        s3_secret_access_key="explicit-secret",
    )
    assert _access_key(S3ObjectStore.from_settings(explicit)) == "AKIAEXPLICIT"
