"""Fixtures of the server tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from .support import app_for


@pytest.fixture
def api() -> Iterator[TestClient]:
    """A client of the app hosting Bella Notte with the offline model and a fixed clock."""
    with TestClient(app_for()) as c:
        yield c
