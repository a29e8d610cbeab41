"""``slotgraph models list`` through Typer's test runner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from slotgraph.cli.models import models_app, provider_rows
from slotgraph.models import ProviderRegistry
from slotgraph.models.protocol import Model
from slotgraph.models.registry import default_registry


def _app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(models_app, name="models")

    @app.command("noop")
    def noop() -> None:  # a second command keeps "models" a group
        """Nothing."""

    return app


def test_list_shows_every_provider_with_its_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    result = CliRunner().invoke(_app(), ["models", "list"])
    assert result.exit_code == 0, result.output
    for spec in ("offline", "scripted:script.json", "openai:gpt-4o-mini", "gemini:gemini-2.5-flash"):
        assert spec in result.output
    assert "openai-compatible:http://localhost:8080/v1#qwen2.5" in result.output
    assert "OPENAI_API_KEY set" in result.output
    assert "GEMINI_API_KEY or GOOGLE_API_KEY not set" in result.output
    assert "no key needed" in result.output


def test_list_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(_app(), ["models", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["provider"]: row for row in json.loads(result.output)}
    assert list(rows) == [
        "offline",
        "scripted",
        "openai",
        "openai-compatible",
        "gemini",
        "anthropic",
        "offline-safety",
    ]
    assert rows["openai"]["key_required"] and not rows["openai"]["key_present"]
    assert rows["openai"]["installed"] and rows["openai"]["install"] is None


def _factory(rest: str, env: object) -> Model:
    raise AssertionError("not built by the listing")


def test_a_provider_whose_sdk_is_missing_names_the_extra() -> None:
    registry = ProviderRegistry()
    registry.register(
        "fancy",
        _factory,
        description="d",
        requires=["no_such_module_xyz"],
        extra="fancy",
        key_env=["FANCY_KEY"],
    )
    (row,) = provider_rows(registry, {"FANCY_KEY": "k"})
    assert row["install"] == "pip install 'slotgraph[fancy]'" and not row["installed"]
    assert row["key"] == "FANCY_KEY set (optional)"


def test_the_optional_compatible_key() -> None:
    rows = {row["provider"]: row for row in provider_rows(default_registry(plugins=False), {})}
    assert rows["openai-compatible"]["key"] == "SLOTGRAPH_OPENAI_COMPATIBLE_KEY not set (optional)"
