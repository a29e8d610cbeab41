"""Fixtures of the server tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from .support import app_for


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default store is a SQLite file under the working directory: keep it out of the repository."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture
def api() -> Iterator[TestClient]:
    """A client of the app hosting Bella Notte with the offline model and a fixed clock."""
    with TestClient(app_for()) as c:
        yield c
