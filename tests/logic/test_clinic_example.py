"""The clinic example (spec: "Agent Logic lets a non-developer combine natural-language instructions with
deterministic behavior ...: typed variables, conditional #when prompt sections re-rendered against live
state, deterministic rules at lifecycle triggers ... Everything below the authoring surface runs on ONE safe
expression language")."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from slotgraph.cli.main import create_app

CLINIC = Path(__file__).resolve().parents[2] / "examples" / "clinic"


def test_the_clinic_scenarios_pass_on_the_offline_model() -> None:
    result = CliRunner().invoke(create_app(), ["test", str(CLINIC)])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    match = re.fullmatch(r"(\d+) passed, 0 failed", last)
    assert match is not None and int(match.group(1)) >= 5, last


def test_the_clinic_uses_every_part_of_the_logic_layer() -> None:
    agent = (CLINIC / "agent.yaml").read_text(encoding="utf-8")
    instruction = (CLINIC / "instruction.md").read_text(encoding="utf-8")
    for key in (
        "linked_to:",
        "default:",
        "tool_result",
        "variable_changed",
        "user_message",
        "turn_start",
        "output_path",
        "inject_instruction",
        "escalate",
    ):
        assert key in agent, key
    for tag in ("{{#when", "{{:else when", "{{:else}}", "{{run ", "{{set ", "{{known_name}}"):
        assert tag in instruction, tag
