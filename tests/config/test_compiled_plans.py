"""The compiled plan kept with a validation verdict (``SLOTGRAPH_VERDICT_DIR``): a later process compiles a
config from it without validating it or building its typed nodes, into the very DAG the typed nodes compile
to; a damaged plan is reported and replaced, never trusted; a fresh process with a plan imports no pydantic.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import logging
import marshal
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import (
    VERDICT_DIR_ENV,
    CompiledDag,
    clear_compile_cache,
    compile_config,
    configure_verdict_dir,
)
from slotgraph.config.compiled import CompiledCondition, Value
from slotgraph.config.content import ConfigContent
from slotgraph.config.loader import read_mapping
from slotgraph.config.nodes import DagConfig
from slotgraph.config.verdicts import VerdictDir

from .conftest import calls_of
from .dags import bella_dag, spec_dag

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DAGS = sorted(p for p in (ROOT / "examples").rglob("dag.yaml"))

pytestmark = pytest.mark.usefixtures("no_verdicts")


def legacy_dag() -> dict[str, Any]:
    """The keys ``bella_dag`` leaves out: legacy stall keys, bootstrap, event mappings, loops, parallel
    tasks."""
    return {
        "config_id": "legacy",
        "confirm_transition_prefix": "Noted.",
        "changeable": True,
        "readback_response": [{"type": "payload", "data": {"chips": ["Yes", "No"]}}],
        "channel_readback_response": {"VOICE": [{"type": "text", "text": "Say yes or no."}]},
        "event_mappings": {"ia_order": {"item": "pizza", "count": 2}},
        "bootstrap": {"tool": "route", "slot": "topic", "reset_on_complete": True},
        "gate_slot": "topic",
        "progress_stall": {"max_turns": 5, "on_exhaust": {"say": "Let me get a person.", "then": "escalate"}},
        "readback_retry": {"max_retries": 3},
        "slots": [
            {"name": "topic", "source": "event"},
            {"name": "item", "source": ["event", "user"], "setter": "set_item", "ask": "Which item?"},
            {"name": "count", "source": ["event", "user"], "setter": "set_count", "ask": "How many?",
             "requires_readback": True, "changeable": False},
            {"name": "note", "setter": "set_note", "ask": "Any note?", "accept_early": True,
             "requires": ["item"], "preempt": True},
            {"name": "price", "source": "task:Price"},
            {"name": "stock", "source": "task:Stock"},
            {"name": "order_id", "source": "task:Order"},
        ],
        "tasks": [
            {"name": "Price", "tool": "price", "inputs": ["item", "count"], "outputs": {"price": "price"},
             "parallel": True, "condition": "count > 0"},
            {"name": "Stock", "tool": "stock", "inputs": ["item"], "outputs": {"stock": "stock"},
             "parallel": True, "readback_inputs": True, "readback_together": True},
            {"name": "Order", "tool": "order", "inputs": ["item", "count", "price", "stock"],
             "requires": ["note"], "outputs": {"id": "order_id"}, "success_check": "ok", "terminal": True,
             "then_say": "Order {order_id} placed.",
             "then_response": [{"type": "text", "text": "Done."}],
             "channel_then_response": {"VOICE": [{"type": "end_session", "reason": "done"}]},
             "on_complete": {"clear_slots": ["item", "count", "note"]},
             "on_failure": {"max_retries": 2, "on_exhaust": {
                 "say": "Sorry.", "then": {"tool": "end_session", "args": {"reason": "failed"}},
                 "response": [{"type": "transfer", "target": "desk"}],
                 "channel_responses": {"VOICE": [{"type": "audio", "uri": "gs://sorry.wav"}]}}}},
        ],
    }  # fmt: skip


CORPUS: dict[str, Callable[[], dict[str, Any]]] = {
    "spec": spec_dag,
    "bella": bella_dag,
    "legacy": legacy_dag,
    **{
        str(path.relative_to(ROOT / "examples")): (lambda p=path: dict(read_mapping(p, what="DAG config")))
        for path in EXAMPLE_DAGS
    },
}

_SAMPLES: tuple[object, ...] = (1, 4, 0, "2026-06-17", "19:30", "Ada", "", None, "none", True, 2.5)


def assert_same(a: object, b: object, where: str = "dag") -> None:
    """``a`` and ``b`` compiled alike: records field by field, conditions by their source and reads (the
    compiled closures are rebuilt from the source), formatters by what they write for sample values."""
    if isinstance(a, CompiledCondition):
        assert isinstance(b, CompiledCondition), where
        assert (a.source, a.reads) == (b.source, b.reads), where
    elif isinstance(a, Value):
        assert type(a) is type(b), where
        for name in (f.name for f in dataclasses.fields(a) if f.compare):
            assert_same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, Mapping):
        assert isinstance(b, Mapping) and type(a) is type(b), where
        assert list(a) == list(b), where
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), where  # type: ignore[arg-type]
        for i, (x, y) in enumerate(zip(a, b, strict=True)):  # type: ignore[arg-type]
            assert_same(x, y, f"{where}[{i}]")
    elif callable(a):
        assert callable(b), where
        assert [a(v) for v in _SAMPLES] == [b(v) for v in _SAMPLES], where
    else:
        assert type(a) is type(b) and a == b, where


@pytest.fixture
def node_builds(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every typed config the compiler builds (``DagConfig.model_validate``, a class attribute that compiled
    code looks up like any caller)."""
    return calls_of(monkeypatch, DagConfig, "model_validate")


def _verdict_path(directory: Path, raw: Any) -> Path:
    return directory / VerdictDir.key(ConfigContent(raw).key)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_plan_compiles_to_what_the_typed_nodes_compile_to(
    name: str, tmp_path: Path, node_builds: list[object]
) -> None:
    raw = CORPUS[name]()
    without = compile_config(raw)
    configure_verdict_dir(tmp_path)
    clear_compile_cache()
    first = compile_config(raw)  # validates, builds the typed nodes, keeps verdict and plan
    clear_compile_cache()
    from_plan = compile_config(raw)  # as a later process: from the plan
    assert len(node_builds) == 2  # the plan built none
    assert from_plan is not first
    assert_same(first, without)
    assert_same(from_plan, first)
    assert from_plan.fingerprint == first.fingerprint


@pytest.fixture(scope="module")
def platform_dags(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The DAGs of the platform's sample app (its export layout), as ``slotgraph import`` writes them."""
    from slotgraph.adapters.platform_import import import_app

    out = tmp_path_factory.mktemp("imported")
    import_app(ROOT / "examples" / "platform_app" / "harbor_dental", out)
    return {p.parent.name: dict(read_mapping(p, what="DAG config")) for p in sorted(out.glob("*/dag.yaml"))}


def test_a_platform_apps_dags_compile_alike_from_a_plan(
    platform_dags: dict[str, dict[str, Any]], tmp_path: Path, node_builds: list[object]
) -> None:
    assert len(platform_dags) == 3  # the host and its two desks
    configure_verdict_dir(tmp_path)
    for name, raw in platform_dags.items():
        first = compile_config(raw)
        clear_compile_cache()
        assert_same(compile_config(raw), first, name)
    assert len(node_builds) == len(platform_dags)  # each built its typed nodes once, then used its plan


def test_the_plan_is_the_normalised_config(tmp_path: Path) -> None:
    configure_verdict_dir(tmp_path)
    raw = bella_dag()
    compile_config(raw)
    head, newline, plan = _verdict_path(tmp_path, raw).read_bytes().partition(b"\n")
    assert head.decode() == VerdictDir.key(ConfigContent(raw).key) and newline
    normalised = marshal.loads(plan)
    assert normalised == DagConfig.model_validate(raw).model_dump()
    assert normalised["slots"][0]["requires"] == []  # defaults filled in
    assert normalised["tasks"][0]["parallel"] is False


def test_response_parts_compile_to_json_data_on_either_path(tmp_path: Path) -> None:
    """A payload built in code (or read from YAML) may hold dates and tuples: the compiled part holds their
    JSON form, as the host will send it, whether compiled from the typed nodes or from the plan."""
    raw = spec_dag()
    raw["slots"][0]["response"] = [
        {"type": "payload", "data": {"opens": datetime.date(2026, 6, 17), "sizes": (2, 4)}}
    ]
    expected = {"type": "payload", "data": {"opens": "2026-06-17", "sizes": [2, 4]}}
    assert dict(compile_config(raw).slots[0].responses.default[0]) == expected  # type: ignore[index]
    configure_verdict_dir(tmp_path)
    for _ in range(2):  # the first keeps a verdict and a plan, the second reads them
        clear_compile_cache()
        assert dict(compile_config(raw).slots[0].responses.default[0]) == expected  # type: ignore[index]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda plan: b"\x00garbage", id="not-marshal"),
        pytest.param(lambda plan: plan[: len(plan) // 2], id="truncated"),
        pytest.param(lambda plan: marshal.dumps(["slots"]), id="not-a-dict"),
        pytest.param(lambda plan: marshal.dumps({"slots": "x", "tasks": []}), id="wrong-shape"),
        pytest.param(
            lambda plan: marshal.dumps({**marshal.loads(plan), "slots": [{"name": "x"}]}), id="missing-fields"
        ),
    ],
)
def test_a_damaged_plan_is_reported_validated_again_and_replaced(
    damage: Callable[[bytes], bytes],
    tmp_path: Path,
    node_builds: list[object],
    caplog: pytest.LogCaptureFixture,
) -> None:
    configure_verdict_dir(tmp_path)
    raw = bella_dag()
    good = compile_config(raw)
    path = _verdict_path(tmp_path, raw)
    head, _, plan = path.read_bytes().partition(b"\n")
    path.write_bytes(head + b"\n" + damage(plan))
    clear_compile_cache()
    with caplog.at_level(logging.WARNING, logger="slotgraph.config"):
        again = compile_config(raw)
    assert_same(again, good)
    assert len(node_builds) == 2  # the damaged plan was not used: the typed nodes were built again
    warnings = [r.getMessage() for r in caplog.records if r.name == "slotgraph.config"]
    assert len(warnings) == 1 and str(path) in warnings[0] and "validating the config again" in warnings[0]
    assert "not a plan" in warnings[0] or "cannot be built: " in warnings[0]  # and why
    _, _, rewritten = path.read_bytes().partition(b"\n")
    assert marshal.loads(rewritten) == DagConfig.model_validate(raw).model_dump()


def test_a_config_a_plan_cannot_hold_keeps_a_verdict_without_one(
    tmp_path: Path, node_builds: list[object]
) -> None:
    """A value marshal cannot write (a date in a tool call's ``args``, as YAML reads one): the verdict is
    kept alone, and a later process skips the checks but builds the typed nodes; the date stays a date."""
    raw = spec_dag()
    raw["steer_back"]["on_exhaust"]["then"]["args"]["since"] = datetime.date(2026, 6, 17)
    configure_verdict_dir(tmp_path)
    first = compile_config(raw)
    path = _verdict_path(tmp_path, raw)
    assert path.read_bytes() == VerdictDir.key(ConfigContent(raw).key).encode() + b"\n"
    clear_compile_cache()
    second = compile_config(raw)
    assert len(node_builds) == 2
    assert_same(second, first)
    on_exhaust = second.steer_back.on_exhaust
    assert on_exhaust is not None and on_exhaust.then is not None
    assert on_exhaust.then.args["since"] == datetime.date(2026, 6, 17)


# what a process that compiles from a plan has no use for: the typed nodes (pydantic), the validator, the
# agent loader and YAML; tempfile (only writing a verdict needs it), difflib (only a misspelt name), random
# (only choosing a confirmation prefix)
_HEAVY = (
    "pydantic", "slotgraph.config.nodes", "slotgraph.config.validation", "slotgraph.config.agent", "yaml",
    "tempfile", "difflib", "random",
)  # fmt: skip
_FRESH_PROCESS = (
    f"HEAVY = {_HEAVY!r}\n"
    + """
import json, sys
from slotgraph.adapters.cxas import slot_filling_engine
out = slot_filling_engine({"raw_config": json.load(sys.stdin), "sm": {}, "last_user_text": ""})
heavy = [m for m in HEAVY if m in sys.modules]
print(json.dumps({"heavy": heavy, "action": out["action"], "sm": out["sm"]}, sort_keys=True, default=str))
"""
)


def test_a_fresh_process_with_a_plan_imports_no_pydantic(tmp_path: Path) -> None:
    """The host the plans exist for starts a process per tool call: with a plan on disk, that process
    compiles the config without importing pydantic, the typed nodes, the validator or anything else only
    validating needs (``_HEAVY``) — and answers the same."""
    env = {**os.environ, VERDICT_DIR_ENV: str(tmp_path)}
    config = json.dumps(bella_dag())
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", _FRESH_PROCESS],
                input=config,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert {"pydantic", "slotgraph.config.nodes", "slotgraph.config.validation"} <= set(runs[0]["heavy"])
    assert runs[1]["heavy"] == []
    assert runs[1]["action"] == runs[0]["action"] and runs[1]["sm"] == runs[0]["sm"]


def test_compiled_dags_from_a_plan_are_cached_like_any_other(tmp_path: Path) -> None:
    configure_verdict_dir(tmp_path)
    raw = bella_dag()
    compile_config(raw)
    clear_compile_cache()
    from_plan = compile_config(raw)
    assert isinstance(from_plan, CompiledDag)
    assert compile_config(json.loads(json.dumps(raw))) is from_plan
