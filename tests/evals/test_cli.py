"""``slotgraph test``: progress, failures side by side, the tally line, exit codes, JUnit, HTML, --schema."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from .conftest import BELLA, TOY, TOY_NO_READBACK, WriteScenario, cli_app

PASSING = f"""
name: passing
agent: {TOY_NO_READBACK}
model: replay
now: 2026-07-11T12:00:00
tags: [smoke]
turns:
  - user: Hi
    expect: {{text: "How many guests?"}}
"""
FAILING = f"""
name: failing
agent: {TOY_NO_READBACK}
model: replay
now: 2026-07-11T12:00:00
turns:
  - user: Hi
    expect: {{text: "How many cats?"}}
"""


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli_app(), ["test", *args])
    return result.exit_code, result.output


def test_all_passing_exits_0_and_ends_with_the_tally(write_scenario: WriteScenario) -> None:
    path = write_scenario(PASSING)
    code, out = _run(str(path))
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[-1] == "1 passed, 0 failed"
    assert re.match(
        r"pass rate 100% · 1 turns · 1 model calls · 0 preempted turns · 0 refusals · \d+ tokens", lines[-2]
    )
    assert "✓ passing" in out


def test_a_failure_shows_turn_expectation_expected_and_actual(write_scenario: WriteScenario) -> None:
    write_scenario(PASSING, name="a")
    write_scenario(FAILING, name="b")
    code, out = _run(str(write_scenario(PASSING, name="a").parent))
    assert code == 1
    assert "✗ failing" in out
    assert "turn 1: turns[0].expect.text.contains[0]" in out
    assert "input:    Hi" in out
    assert "expected: contains 'How many cats?'" in out
    assert "actual:   'How many guests?'" in out
    assert out.strip().splitlines()[-1] == "1 passed, 1 failed"


def test_k_selects_by_name_file_or_tag(write_scenario: WriteScenario) -> None:
    folder = write_scenario(PASSING, name="a").parent
    write_scenario(FAILING, name="b")
    assert _run(str(folder), "-k", "SMOKE")[1].strip().endswith("1 passed, 0 failed")
    assert _run(str(folder), "-k", "b.yaml")[1].strip().endswith("0 passed, 1 failed")
    code, out = _run(str(folder), "-k", "nothing-like-this")
    assert code == 2 and "no scenarios to run matching -k 'nothing-like-this'" in out


def test_a_malformed_file_is_a_located_failure(write_scenario: WriteScenario) -> None:
    path = write_scenario(f"agent: {TOY}\nturns:\n  - user: Hi\n    expect: {{txt: x}}\n")
    code, out = _run(str(path))
    assert code == 1
    assert "turns[0].expect.txt: unknown key 'txt' (fix: rename it to 'text')" in out
    assert out.strip().endswith("0 passed, 1 failed")


def test_skipped_simulations_are_counted(write_scenario: WriteScenario) -> None:
    write_scenario(PASSING, name="a")
    sim = write_scenario(
        f"agent: {TOY}\nuser_sim: {{persona: a guest, goal: book a table}}\nexpect: {{status: complete}}\n",
        name="sim",
    )
    code, out = _run(str(sim.parent))
    assert code == 0
    assert "a simulated user needs a model" in out
    assert out.strip().splitlines()[-1] == "1 passed, 0 failed, 1 skipped"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert _run(str(tmp_path / "missing"))[0] == 2
    assert _run()[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = _run(str(empty))
    assert code == 2 and "no scenarios to run" in out
    code, out = _run(str(empty), "--today", "tomorrow")
    assert code == 2 and "YYYY-MM-DD" in out
    assert _run(str(empty), "--agent", str(tmp_path / "nowhere"))[0] == 2


def test_junit_xml(write_scenario: WriteScenario, tmp_path: Path) -> None:
    folder = write_scenario(PASSING, name="a").parent
    write_scenario(FAILING, name="b")
    junit = tmp_path / "out.xml"
    code, _ = _run(str(folder), "--junit", str(junit))
    assert code == 1
    suite = ET.parse(junit).getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["passing"].find("failure") is None
    failure = cases["failing"].find("failure")
    assert failure is not None and failure.get("message") == "turn 1: turns[0].expect.text.contains[0]"
    assert "expected: contains 'How many cats?'" in (failure.text or "")
    props = {p.get("name"): p.get("value") for p in cases["passing"].iter("property")}
    assert props["model_calls"] == "1"


def test_html_report_is_self_contained(write_scenario: WriteScenario, tmp_path: Path) -> None:
    folder = write_scenario(PASSING, name="a").parent
    write_scenario(FAILING, name="b")
    report = tmp_path / "report.html"
    _run(str(folder), "--report", str(report))
    html = report.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html
    assert html.count("<script") == 1 and "<script>" in html  # one inline script: the text filter
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html and "<link" not in html and "<img" not in html and " src=" not in html
    assert "Model calls per turn" in html and "Preemption share" in html
    assert html.count("<svg") == 3  # a row of bars per played case, and the preemption share
    assert "How many cats?" in html and "turns[0].expect.text.contains[0]" in html
    assert "1 passed, 1 failed" in html


def test_goldens_run_against_an_agent_with_a_day(tmp_path: Path) -> None:
    golden = BELLA / "evaluations" / "WelcomeEvent" / "WelcomeEvent.json"
    code, out = _run(str(golden), "--agent", str(BELLA), "--today", "2026-07-10")
    assert code == 0, out
    code, out = _run(str(golden), "--today", "2026-07-25")
    assert code == 1 and "golden.turns[1].steps[" in out


def test_schema_prints_the_json_schema() -> None:
    code, out = _run("--schema")
    assert code == 0
    assert json.loads(out)["title"] == "Slotgraph scenario"
