"""The corpus of broken configs: each file plants realistic mistakes and declares, under ``x-expect``, what
validation must report (code, location, optionally a message fragment and the severity)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import ConfigValidationError, load_dag, validate_dag
from slotgraph.config.loader import read_mapping
from slotgraph.config.validation import validate_raw
from slotgraph.config.validation.run import WARNING_ONLY_CHECKS
from slotgraph.config.validation.view import View

BROKEN = sorted((Path(__file__).parent / "broken").glob("*.yaml"))


def test_corpus_is_large_enough() -> None:
    assert len(BROKEN) >= 24


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_broken_config_reports_expected_issues(path: Path) -> None:
    raw: dict[str, Any] = read_mapping(path)
    expected = raw["x-expect"]
    tools = raw.get("x-tools")
    report = validate_dag(raw, tool_names=tools)
    found = report.errors + report.warnings
    for expect in expected:
        severity = expect.get("severity", "error")
        matches = [
            issue
            for issue in found
            if issue.code == expect["code"]
            and issue.location == expect["location"]
            and issue.severity == severity
        ]
        listing = "\n".join(f"  {i.severity} {i.code} {i}" for i in found)
        assert matches, f"{path.name}: expected {expect} among:\n{listing}"
        if "message" in expect:
            assert any(expect["message"] in m.message for m in matches), f"{path.name}: {expect} vs {matches}"
    for issue in found:
        assert issue.fix.strip(), f"{path.name}: issue without a fix: {issue}"
        assert issue.message.strip()
    if tools is not None:
        return  # tool checks need the tools module, which load_dag does not see
    if any(e.get("severity", "error") == "error" for e in expected):
        with pytest.raises(ConfigValidationError) as info:
            load_dag(path)
        assert str(path) in str(info.value)
    else:
        load_dag(path)  # warnings only: loads


def test_five_mistakes_in_one_pass() -> None:
    raw = {
        "slots": [
            {"name": "party_size", "source": "users", "setter": "set_party_size", "ask": "How many?"},
            {"name": "date", "setter": "set_date", "ask": "What date, {nmae}?", "requires_readbak": True},
            {"name": "times", "source": "task:FindTimes"},
        ],
        "tasks": [
            {"name": "FindTimes", "tool": "find_times", "inputs": ["party_size", "dat"],
             "outputs": {"times": "times"}, "success_check": "ok",
             "condition": "lambda filled: filled.get('date' ==", "on_failure": {"clear_slots": ["date"]}},
        ],
    }  # fmt: skip
    report = validate_dag(raw)
    found = {(i.code, i.location) for i in report.errors}
    assert {
        ("unknown_source", "slots[0].source"),
        ("unknown_key", "slots[1].requires_readbak"),
        ("unknown_placeholder", "slots[1].ask"),
        ("unknown_slot", "tasks[0].inputs[1]"),
        ("invalid_condition", "tasks[0].condition"),
    } <= found
    assert not report.ok
    with pytest.raises(ConfigValidationError) as info:
        load_dag(raw)
    assert len(info.value.issues) == len(report.errors)
    lines = str(info.value).splitlines()
    assert lines[0].startswith(f"{len(report.errors)} problems")
    assert len(lines) == len(report.errors) + 1


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_the_errors_only_pass_finds_the_same_errors(path: Path) -> None:
    """``compile_config`` validates with ``warnings=False``: the checks it leaves out must never report an
    error, or an invalid config would compile."""
    raw: dict[str, Any] = read_mapping(path)
    tools = raw.get("x-tools")
    full = validate_raw(raw, tool_names=tools)
    errors_only = validate_raw(raw, tool_names=tools, warnings=False)
    assert errors_only.errors == full.errors
    assert set(errors_only.warnings) <= set(full.warnings)
    view = View(raw, None if tools is None else frozenset(tools))
    for check in WARNING_ONLY_CHECKS:
        assert all(issue.severity == "warning" for issue in check(view)), check


def test_the_corpus_exercises_the_warning_only_checks() -> None:
    """The test above means something only if the left-out checks do report on the corpus."""
    codes = set()
    for path in BROKEN:
        raw: dict[str, Any] = read_mapping(path)
        view = View(raw, None)
        for check in WARNING_ONLY_CHECKS:
            codes.update(issue.code for issue in check(view))
    assert len(codes) >= 5, codes
