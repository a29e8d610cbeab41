"""The corpus of broken configs: each file plants realistic mistakes and declares, under ``x-expect``, what
validation must report (code, location, optionally a message fragment and the severity)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from slotgraph.config import ConfigValidationError, load_dag, validate_dag
from slotgraph.config.loader import read_mapping

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
