"""The test servers' own contract: a missing server skips locally but fails under CI."""

from __future__ import annotations

import pytest

from .conftest import need
from .local_servers import postgres_bin_dirs


def test_a_missing_server_skips_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(
        pytest.skip.Exception, match=r"redis-server is not available — install it with: apt-get"
    ):
        need("redis-server", "apt-get install redis-server")


def test_under_ci_a_missing_server_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(
        pytest.fail.Exception, match=r"CI is set, so real-server tests fail instead of skipping"
    ):
        need("redis-server", "apt-get install redis-server")


def test_postgres_binary_candidates_are_distinct_directories_with_a_server() -> None:
    found = postgres_bin_dirs()
    assert len(found) == len(set(found))
    assert all((d / "postgres").exists() and (d / "initdb").exists() for d in found)
