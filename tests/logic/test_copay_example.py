"""The copay example (issue 16: "a payment is taken once, a write happens only with the verified
identifiers, a session never ends without the summary operations needs"): its scenarios pass, and the
clinic's records afterwards hold exactly one copay per paid appointment — none for the declined one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slotgraph.cli.main import create_app
from slotgraph.runtime.tools import load_tools_module

COPAY = Path(__file__).resolve().parents[2] / "examples" / "copay"


def test_the_copay_scenarios_pass_and_each_payment_is_recorded_exactly_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPAY_DB", str(tmp_path / "payments.sqlite"))
    result = CliRunner().invoke(create_app(), ["test", str(COPAY)])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(r"3 passed, 0 failed", result.output.strip().splitlines()[-1]), result.output
    tools = load_tools_module(COPAY / "tools.py")
    recorded = [r["appointment_id"] for r in tools.copay_records()]
    assert sorted(recorded) == ["A-100", "A-200"]


def test_the_example_uses_every_gate_and_contract() -> None:
    agent = (COPAY / "agent.yaml").read_text(encoding="utf-8")
    for key in (
        "available_when:",
        "unavailable_message:",
        "bind:",
        "capture:",
        "progress_message:",
        "idempotency:",
        "receipt:",
        "scope: agent",
        "require_summary: true",
    ):
        assert key in agent, key
