"""The stack probe's activity: proves a GPU-queue worker can load and run the embedder."""

from __future__ import annotations

from pydantic import BaseModel, Field
from temporalio import activity

from selfimprint.ports import Embedder


class EmbedProbeInput(BaseModel):
    text: str = Field(min_length=1, max_length=2_000)


class EmbedProbeOutput(BaseModel):
    model_id: str
    dimension: int


class ProbeActivities:
    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    @activity.defn(name="probe.embed")
    def embed(self, data: EmbedProbeInput) -> EmbedProbeOutput:
        vector = self._embedder.embed_queries([data.text])[0]
        return EmbedProbeOutput(model_id=self._embedder.model_id, dimension=len(vector))
