"""A user's profile as the app backend sets it: plan, time zone, language, deployment flags."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from selfimprint.domain.models import MemoryId
from selfimprint.domain.sleep_policy import Plan

_MEMORY_ID = TypeAdapter(MemoryId)


def _known_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown IANA time zone {name!r}") from exc
    return name


class Tier(StrEnum):
    """Where a user's graph lives (spec §3.8.1): Neo4j, or an encrypted SYNX object in S3."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"


@dataclass(frozen=True)
class UserScope:
    """The (tenant, user) a store is bound to. Both parts are MemoryIds (no '/'), so the joined
    key is unambiguous; callers map arbitrary names with `domain.models.safe_id` first."""

    tenant_id: str
    user_id: str

    def __post_init__(self) -> None:
        _MEMORY_ID.validate_python(self.tenant_id)
        _MEMORY_ID.validate_python(self.user_id)

    @property
    def key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


TimeZoneName = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_known_zone)]


class UserProfile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    plan: Plan = Plan.FREE
    time_zone: TimeZoneName = "UTC"
    language: Annotated[str, Field(pattern=r"^[a-z]{2,3}$")] | None = Field(
        None, description="Preferred language (ISO 639); the context follows the latest message."
    )
    medical_deployment: bool = Field(
        False, description="Deployed in a medical setting: health inferences are allowed there."
    )

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)
