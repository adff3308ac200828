"""Which form of the portrait a client asked for (issue 36)."""

from __future__ import annotations

import pytest

from api.routes.memories import _wants_json

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("accept", "json"),
    [
        ("", False),
        ("*/*", False),
        ("text/plain", False),
        ("application/json", True),
        ("application/json, text/plain", True),
        ("text/plain, application/json;q=0.9", False),
        ("text/plain;q=0.5, application/json", True),
        ("application/json;q=0", False),
        ("application/json;q=bad", False),
    ],
)
def test_json_only_when_ranked_at_least_as_high_as_text(accept: str, json: bool) -> None:
    assert _wants_json(accept) is json
