"""Data keys wrapped by a KEK: persistence, rotation without re-encryption, crypto-shredding."""

from __future__ import annotations

import base64
import io
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from selfimprint.adapters.crypto import (
    DataKeyNotFoundError,
    FileDataKeyStore,
    FileKeyRecords,
    InMemoryDataKeyStore,
    KekLoadError,
    KeyUnwrapError,
    KmsKek,
    LocalKek,
    MemoryKeyRecords,
    WrappedKeyStore,
    load_kek,
)
from selfimprint.adapters.synx import read_synx, write_synx
from selfimprint.config import Settings
from selfimprint.devstack.secrets import ensure_local_secrets
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.domain.synx_layout import SynxWrongKeyError
from selfimprint.ports import DataKey, DataKeyStore, GraphSnapshot, WrapContext

pytestmark = pytest.mark.unit

CTX = WrapContext("acme", "u-a", 1)
T0 = datetime(2026, 3, 10, tzinfo=UTC)
StoreFactory = Callable[[LocalKek], WrappedKeyStore]


@pytest.fixture(params=["memory", "file"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Opens 'the same' store (same records) with a given KEK, as a restarted process would."""
    records = MemoryKeyRecords()

    def make(kek: LocalKek) -> WrappedKeyStore:
        if request.param == "file":
            return FileDataKeyStore(tmp_path, kek)
        return WrappedKeyStore(records, kek)

    return make


def snapshot(user: str = "u-a") -> GraphSnapshot:
    fact = Node(
        id="f-1",
        user_id=user,
        type=NodeType.FACT,
        content="Works night shifts",
        weight_at=T0,
        created_at=T0,
        belief=Belief(first_seen=T0),
    )
    return GraphSnapshot(
        user_id=user, exported_at=T0, nodes=(fact,), edges=(), hypotheses=(), tensions=()
    )


def exported(store: DataKeyStore, user: str = "u-a") -> bytes:
    sink = io.BytesIO()
    write_synx(snapshot(user), sink, store.get_or_create("acme", user))
    return sink.getvalue()


def read_back(data: bytes, key: DataKey) -> GraphSnapshot:
    return read_synx(io.BytesIO(data), key)


# --- the store -------------------------------------------------------------------------------


def test_each_user_gets_one_stable_key(make_store: StoreFactory) -> None:
    store = make_store(LocalKek.generate())
    first = store.get_or_create("acme", "u-a")
    assert store.get_or_create("acme", "u-a") == first == store.get("acme", "u-a")
    other = store.get_or_create("acme", "u-b")
    assert other.material != first.material
    assert store.get_or_create("globex", "u-a").material != first.material
    with pytest.raises(DataKeyNotFoundError):
        store.get("acme", "u-c")


def test_the_file_store_survives_a_restart_and_never_holds_a_key_in_the_clear(
    tmp_path: Path,
) -> None:
    kek = LocalKek.generate()
    key = FileDataKeyStore(tmp_path, kek).get_or_create("acme", "user@example.org")
    assert FileDataKeyStore(tmp_path, kek).get("acme", "user@example.org") == key
    (record,) = (tmp_path / "keys").glob("*.json")
    raw = record.read_bytes()
    assert key.material not in raw and base64.b64encode(key.material) not in raw
    assert "example" not in record.name  # file names reveal no ids
    assert stat.S_IMODE(record.stat().st_mode) == 0o600


def test_hostile_ids_stay_inside_the_key_directory(tmp_path: Path) -> None:
    store = FileDataKeyStore(tmp_path / "data", LocalKek.generate())
    store.get_or_create("..", "../../etc/passwd")
    assert [p.parent for p in (tmp_path / "data" / "keys").glob("*.json")] == [
        tmp_path / "data" / "keys"
    ]
    assert list(tmp_path.glob("*.json")) == []


def test_concurrent_first_calls_agree_on_one_key(tmp_path: Path) -> None:
    kek = LocalKek.generate()
    keys: list[DataKey] = []
    lock = threading.Lock()

    def create() -> None:
        key = FileDataKeyStore(tmp_path, kek).get_or_create("acme", "u-a")
        with lock:
            keys.append(key)

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({key.material for key in keys}) == 1


def test_a_record_does_not_unwrap_for_another_user_or_under_another_kek(tmp_path: Path) -> None:
    kek = LocalKek.generate()
    store = FileDataKeyStore(tmp_path, kek)
    store.get_or_create("acme", "u-a")
    store.get_or_create("acme", "u-b")
    records = FileKeyRecords(tmp_path / "keys")
    theirs = records.find("acme", "u-a")
    mine = records.find("acme", "u-b")
    assert theirs is not None and mine is not None
    # Someone copies u-a's wrapped key into u-b's record: the wrap AAD names u-a.
    records.replace(replace(mine, wrapped=theirs.wrapped))
    with pytest.raises(KeyUnwrapError):
        store.get("acme", "u-b")
    with pytest.raises(KeyUnwrapError, match="rotation"):
        FileDataKeyStore(tmp_path, LocalKek.generate()).get("acme", "u-a")


def test_the_data_key_never_appears_in_its_repr() -> None:
    key = DataKey("acme", "u-a", 1, bytes(range(32)))
    assert bytes(range(32)).hex() not in repr(key) and "material" not in repr(key)
    assert "LocalKek(local:" in repr(LocalKek.generate())


# --- rotation and shredding ----------------------------------------------------------------------


def test_rotating_the_kek_keeps_old_exports_readable(make_store: StoreFactory) -> None:
    old, new = LocalKek.generate(), LocalKek.generate()
    store = make_store(old)
    before_rotation = exported(store)
    exported(store, "u-b")
    assert store.rewrap_all(old, new) == 2
    assert store.rewrap_all(old, new) == 0  # idempotent: a crashed rotation is just rerun
    reopened = make_store(new)
    assert read_back(before_rotation, reopened.get("acme", "u-a")) == snapshot()
    with pytest.raises(KeyUnwrapError):
        make_store(old).get("acme", "u-a")  # the old KEK no longer opens anything


def test_an_interrupted_rotation_is_finished_by_running_it_again(tmp_path: Path) -> None:
    old, new = LocalKek.generate(), LocalKek.generate()
    store = FileDataKeyStore(tmp_path, old)
    for user in ("u-a", "u-b", "u-c"):
        store.get_or_create("acme", user)
    records = FileKeyRecords(tmp_path / "keys")
    first = next(records.all())
    material = old.unwrap(first.wrapped, first.context)
    records.replace(replace(first, kek_id=new.key_id, wrapped=new.wrap(material, first.context)))
    assert store.rewrap_all(old, new) == 2
    assert {r.kek_id for r in records.all()} == {new.key_id}


def test_destroying_a_key_makes_every_earlier_export_unreadable(make_store: StoreFactory) -> None:
    store = make_store(LocalKek.generate())
    copy = exported(store)
    assert store.destroy("acme", "u-a") is True
    assert store.destroy("acme", "u-a") is False
    with pytest.raises(DataKeyNotFoundError):
        store.get("acme", "u-a")
    replacement = store.get_or_create("acme", "u-a")  # the user comes back later
    with pytest.raises(SynxWrongKeyError):
        read_back(copy, replacement)


def test_a_rewrap_racing_a_destroy_cannot_resurrect_the_key(tmp_path: Path) -> None:
    store = FileDataKeyStore(tmp_path, LocalKek.generate())
    store.get_or_create("acme", "u-a")
    records = FileKeyRecords(tmp_path / "keys")
    stale = records.find("acme", "u-a")
    assert stale is not None
    store.destroy("acme", "u-a")
    assert records.replace(stale) is False
    assert records.find("acme", "u-a") is None


# --- loading the KEK -----------------------------------------------------------------------------


def test_the_kek_comes_from_the_env_var_first_then_the_generated_file(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with pytest.raises(KekLoadError):
        load_kek(settings, {})
    ensure_local_secrets(settings)
    from_file = load_kek(settings, {})
    assert from_file.key_id == load_kek(settings, {}).key_id  # same file, same KEK
    env_text = base64.b64encode(bytes(range(32))).decode()
    from_env = load_kek(settings, {"SELFIMPRINT_KEK": env_text})
    assert from_env.key_id == LocalKek(bytes(range(32))).key_id != from_file.key_id


def test_the_kek_path_setting_wins_over_the_default_location(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.kek"
    path.write_text(base64.b64encode(bytes(32)).decode() + "\n")
    kek = load_kek(Settings(data_dir=tmp_path, kek_path=path), {})
    assert kek.key_id == LocalKek(bytes(32)).key_id


@pytest.mark.parametrize("text", ["not base64!", base64.b64encode(bytes(16)).decode(), ""])
def test_a_malformed_kek_is_refused(text: str) -> None:
    with pytest.raises(KekLoadError):
        LocalKek.from_base64(text)


# --- KMS ---------------------------------------------------------------------------------------


class FakeKms:
    """Just enough of KMS to check what KmsKek sends: decrypt needs the same context."""

    def __init__(self) -> None:
        self.vault: dict[bytes, tuple[bytes, Mapping[str, str]]] = {}

    def encrypt(self, **kwargs: Any) -> Mapping[str, Any]:
        blob = f"blob-{len(self.vault)}".encode()
        self.vault[blob] = (kwargs["Plaintext"], kwargs["EncryptionContext"])
        return {"CiphertextBlob": blob, "KeyId": kwargs["KeyId"]}

    def decrypt(self, **kwargs: Any) -> Mapping[str, Any]:
        plaintext, context = self.vault[kwargs["CiphertextBlob"]]
        if context != kwargs["EncryptionContext"]:
            raise RuntimeError("InvalidCiphertextException")
        return {"Plaintext": plaintext}


def test_kms_kek_binds_the_wrap_to_the_user_through_the_encryption_context() -> None:
    kms = KmsKek(FakeKms(), "arn:aws:kms:eu-north-1:111122223333:key/demo")
    wrapped = kms.wrap(bytes(32), CTX)
    assert kms.unwrap(wrapped, CTX) == bytes(32)
    with pytest.raises(KeyUnwrapError, match="KMS"):
        kms.unwrap(wrapped, WrapContext("acme", "u-b", 1))
    store = InMemoryDataKeyStore(kms)
    key = store.get_or_create("acme", "u-a")
    assert store.get("acme", "u-a") == key
