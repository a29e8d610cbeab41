"""Resolving ``"provider:model"`` strings: built-ins, plugins, and every way a spec can be wrong."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from slotgraph.models import (
    MissingCredentialsError,
    MissingDependencyError,
    ModelSpecError,
    ProviderRegistry,
    UnknownProviderError,
    default_registry,
    resolve,
)
from slotgraph.models import registry as registry_module
from slotgraph.models.offline import OfflineModel
from slotgraph.models.openai import OpenAIChatModel
from slotgraph.models.protocol import Model, ModelRequest, ModelResponse
from slotgraph.models.providers import BUILTIN_PROVIDERS, http_settings
from slotgraph.runtime import Agent, ModelNotAvailableError, ScriptedModel, resolve_model


class EchoModel:
    def __init__(self, name: str) -> None:
        self.name = name

    async def generate(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(text=self.name)


def _echo(rest: str, env: Mapping[str, str]) -> Model:
    return EchoModel(rest)


def test_the_builtin_providers_in_order() -> None:
    names = [info.name for info in default_registry(plugins=False).list_providers()]
    assert names == [
        "offline",
        "scripted",
        "openai",
        "openai-compatible",
        "gemini",
        "anthropic",
        "offline-safety",
    ]
    assert all(info.example.startswith(info.name) for info in BUILTIN_PROVIDERS)


def test_offline() -> None:
    assert isinstance(resolve("offline", env={}), OfflineModel)


def test_offline_takes_no_model_name() -> None:
    with pytest.raises(ModelSpecError, match="takes no model name; use 'offline'"):
        resolve("offline:big", env={})


@pytest.mark.scripted_leftover("the script is only loaded, never played")
def test_scripted_through_the_runtime_seam(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "hi"}]), encoding="utf-8")
    model = resolve_model(f"scripted:{script}")
    assert isinstance(model, ScriptedModel) and model.remaining == 1
    with pytest.raises(ModelNotAvailableError, match=r"scripted:FILE\.json"):
        resolve_model("scripted")
    with pytest.raises(ModelNotAvailableError, match="cannot read the model script"):
        resolve_model(f"scripted:{tmp_path / 'missing.json'}")


def test_openai_reads_key_and_base_url() -> None:
    model = resolve("openai:gpt-4o-mini", env={"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://h:1/v1/"})
    assert isinstance(model, OpenAIChatModel)
    assert (model.model, model.base_url, model.provider) == ("gpt-4o-mini", "http://h:1/v1", "openai")
    default = resolve("openai:gpt-4o-mini", env={"OPENAI_API_KEY": "sk-1"})
    assert isinstance(default, OpenAIChatModel) and default.base_url == "https://api.openai.com/v1"


def test_openai_without_a_key_names_the_variable() -> None:
    with pytest.raises(MissingCredentialsError, match="set OPENAI_API_KEY") as info:
        resolve("openai:gpt-4o-mini", env={})
    assert isinstance(info.value, ModelNotAvailableError)


def test_openai_without_a_model_name() -> None:
    with pytest.raises(ModelSpecError, match=r"e\.g\. 'openai:gpt-4o-mini'"):
        resolve("openai:", env={"OPENAI_API_KEY": "k"})


def test_openai_compatible_splits_url_and_model() -> None:
    model = resolve("openai-compatible:http://localhost:8080/v1#qwen2.5", env={})
    assert isinstance(model, OpenAIChatModel)
    assert (model.base_url, model.model, model.provider) == (
        "http://localhost:8080/v1",
        "qwen2.5",
        "openai-compatible",
    )


def test_openai_compatible_key_comes_only_from_its_own_variable() -> None:
    env = {"SLOTGRAPH_OPENAI_COMPATIBLE_KEY": "local", "OPENAI_API_KEY": "sk-openai"}
    model = resolve("openai-compatible:http://h/v1#m", env=env)
    assert isinstance(model, OpenAIChatModel) and model._api_key == "local"
    # An OpenAI key is never sent to an arbitrary server named in a spec string.
    no_key = resolve("openai-compatible:http://h/v1#m", env={"OPENAI_API_KEY": "sk-openai"})
    assert isinstance(no_key, OpenAIChatModel) and no_key._api_key is None


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai-compatible:localhost:8080/v1#m", "needs the server's base URL"),
        ("openai-compatible:http://localhost:8080/v1", "lacks the model name after '#'"),
        ("openai-compatible:http://localhost:8080/v1#", "lacks the model name after '#'"),
    ],
)
def test_openai_compatible_bad_specs(spec: str, expected: str) -> None:
    with pytest.raises(ModelSpecError, match=expected):
        resolve(spec, env={})


def test_gemini_without_a_key_names_both_variables() -> None:
    with pytest.raises(MissingCredentialsError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve("gemini:gemini-2.5-flash", env={})
    with pytest.raises(ModelSpecError, match=r"gemini:gemini-2\.5-flash"):
        resolve("gemini", env={"GEMINI_API_KEY": "k"})


def test_an_unknown_provider_suggests_the_nearest() -> None:
    with pytest.raises(UnknownProviderError) as info:
        resolve("opnai:gpt-4o-mini", env={})
    assert str(info.value) == (
        "model 'opnai:gpt-4o-mini': unknown provider 'opnai'. Did you mean 'openai' (e.g. "
        "'openai:gpt-4o-mini')? Known providers: offline, scripted, openai, openai-compatible, gemini, "
        "anthropic, offline-safety (see `slotgraph models list`)."
    )


def test_a_bare_model_name_explains_the_spec_shape() -> None:
    with pytest.raises(UnknownProviderError) as info:
        resolve("gpt-4o-mini", env={})
    assert str(info.value).startswith(
        "model 'gpt-4o-mini': unknown provider 'gpt-4o-mini'. A model spec is 'provider:model'. Known"
    )


@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_spec(spec: str) -> None:
    with pytest.raises(ModelSpecError, match=r"non-empty 'provider:model' string.*'openai:gpt-4o-mini'"):
        resolve(spec, env={})


def test_a_missing_sdk_names_the_extra() -> None:
    registry = ProviderRegistry()
    registry.register("fancy", _echo, description="d", requires=["no_such_module_xyz"], extra="fancy")
    with pytest.raises(
        MissingDependencyError, match=r"needs no_such_module_xyz.*pip install 'slotgraph\[fancy\]'"
    ):
        registry.resolve("fancy:x", env={})
    (info,) = registry.list_providers()
    assert not info.installed and info.missing_modules() == ("no_such_module_xyz",)


def test_registering_a_provider() -> None:
    registry = default_registry(plugins=False)
    info = registry.register("echo", _echo, description="echoes", key_env=["ECHO_KEY"])
    assert info.example == "echo:MODEL" and "echo" in registry
    model = registry.resolve("echo:hello", env={})
    assert isinstance(model, EchoModel) and model.name == "hello"
    assert info.key_present({"ECHO_KEY": "x"}) and not info.key_present({})


def test_registering_twice_needs_replace() -> None:
    registry = ProviderRegistry()
    registry.register("echo", _echo, description="a")
    with pytest.raises(ValueError, match="already registered; pass replace=True"):
        registry.register("echo", _echo, description="b")
    assert registry.register("echo", _echo, description="b", replace=True).description == "b"


@pytest.mark.parametrize("name", ["", "a:b", " x"])
def test_bad_provider_names(name: str) -> None:
    with pytest.raises(ValueError, match="must be non-empty"):
        ProviderRegistry().register(name, _echo, description="d")


def test_registries_are_independent() -> None:
    first, second = default_registry(plugins=False), default_registry(plugins=False)
    first.register("echo", _echo, description="d")
    assert "echo" not in second


def test_http_settings_from_the_environment() -> None:
    timeout, retry = http_settings({"SLOTGRAPH_MODEL_TIMEOUT": "12.5", "SLOTGRAPH_MODEL_MAX_RETRIES": "0"})
    assert timeout == 12.5 and retry.max_retries == 0
    assert http_settings({})[0] == 60.0
    with pytest.raises(ModelSpecError, match="SLOTGRAPH_MODEL_TIMEOUT='soon' is not a positive number"):
        http_settings({"SLOTGRAPH_MODEL_TIMEOUT": "soon"})
    with pytest.raises(ModelSpecError, match="SLOTGRAPH_MODEL_MAX_RETRIES='-1' is not a whole number"):
        http_settings({"SLOTGRAPH_MODEL_MAX_RETRIES": "-1"})


class FakeEntryPoint:
    def __init__(self, name: str, register: object) -> None:
        self.name, self.value, self._register = name, f"plugin_{name}:register", register

    def load(self) -> object:
        return self._register


def _listing_plugins(monkeypatch: pytest.MonkeyPatch, fake: Callable[..., list[FakeEntryPoint]]) -> None:
    """Plugins listed by ``fake`` from now until the test ends (the process's kept listing is set aside)."""
    monkeypatch.setattr(registry_module, "entry_points", fake)
    registry_module._plugin_entries.cache_clear()
    monkeypatch.setattr(
        registry_module, "_plugin_entries", functools.cache(registry_module._plugin_entries.__wrapped__)
    )


def test_the_installed_plugins_are_listed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing entry points reads every installed distribution's metadata (~2 ms here): an agent whose
    model is a spec resolved it for every session, so every ``agent.session()`` paid it."""
    calls: list[str] = []

    def fake_entry_points(*, group: str) -> list[FakeEntryPoint]:
        calls.append(group)
        return [FakeEntryPoint("echo", lambda registry: registry.register("echo", _echo, description="echo"))]

    _listing_plugins(monkeypatch, fake_entry_points)
    agent = Agent.from_config(
        {"slots": [{"name": "x", "source": "user", "setter": "set_x", "ask": "X?"}]},
        tools=[],
        instruction="Ask.",
        model="offline",
    )
    sessions = [agent.session() for _ in range(3)]
    assert calls == ["slotgraph.models"]
    assert all(isinstance(session.model, OfflineModel) for session in sessions)
    assert sessions[0].model is not sessions[1].model  # each session still gets its own model
    assert isinstance(default_registry().resolve("echo:hi", env={}), EchoModel) and calls == [
        "slotgraph.models"
    ]


def test_entry_point_plugins_register_and_a_broken_one_is_skipped(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def register(registry: ProviderRegistry) -> None:
        registry.register("echo", _echo, description="from a plugin")

    def broken(registry: ProviderRegistry) -> None:
        raise RuntimeError("plugin bug")

    plugins = [FakeEntryPoint("good", register), FakeEntryPoint("bad", broken)]
    seen: list[str] = []

    def fake_entry_points(*, group: str) -> list[FakeEntryPoint]:
        seen.append(group)
        return plugins

    _listing_plugins(monkeypatch, fake_entry_points)
    registry = default_registry()
    assert seen == ["slotgraph.models"]
    assert isinstance(registry.resolve("echo:hi", env={}), EchoModel)
    assert "model plugin 'bad' (plugin_bad:register) failed to register" in caplog.text
    assert "echo" not in default_registry(plugins=False)


def test_the_runtime_seam_builds_the_offline_model() -> None:
    assert isinstance(resolve_model("offline"), OfflineModel)


def test_backends_without_their_sdk_say_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from slotgraph.models.gemini import GeminiModel

    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'slotgraph\[openai\]'"):
        OpenAIChatModel("m")
    monkeypatch.setitem(sys.modules, "google.genai", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'slotgraph\[gemini\]'"):
        GeminiModel("m", api_key="k")
