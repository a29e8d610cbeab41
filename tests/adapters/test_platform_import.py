"""``slotgraph import``: the sample platform app becomes agent directories that validate and pass its goldens
and tool tests; unsupported pieces are reported and kept; re-running is idempotent."""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from slotgraph.adapters.platform_export import PlatformExportError, read_export
from slotgraph.adapters.platform_import import import_app
from slotgraph.adapters.platform_tools import PlatformFunction, as_platform_numbers
from slotgraph.apps import load_app
from slotgraph.cli.main import create_app
from slotgraph.config import load_definition
from slotgraph.runtime import AgentTransferEvent, PayloadEvent, TextEvent

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "platform_app" / "harbor_dental"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("imported")
    import_app(SAMPLE, out)
    return out


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_every_agent_is_imported_and_validates(imported: Path) -> None:
    for name in ("Booking_Agent", "Billing_Agent", "Harbor_Host"):
        definition = load_definition(imported / name)
        assert definition.kind == "agent"
        assert definition.report.ok, str(definition.report)
    booking = load_definition(imported / "Booking_Agent")
    assert [s.name for s in booking.dag.slots][:2] == ["welcome", "visit_reason"]
    assert booking.dag.bootstrap is not None and booking.dag.bootstrap.tool == "set_active_flow"
    assert "{current_date}" in (booking.instruction or "")


def test_the_report_accounts_for_every_tool_callback_and_evaluation(tmp_path: Path) -> None:
    report = import_app(SAMPLE, tmp_path)
    app = read_export(SAMPLE)
    names = {row.name for row in report.rows}
    sources = " ".join(row.source for row in report.rows)
    for tool in app.tools:
        assert tool in names or tool in sources, tool
    for agent in app.agents.values():
        for callback in agent.callbacks:
            assert callback.code in sources, callback.code
    for evaluation in app.evaluations:
        assert evaluation in sources, evaluation
    unmapped = {(row.kind, row.name) for row in report.unmapped}
    assert unmapped == {("tool", "validate_dag_config")}  # the framework's own validator, kept below
    status = {(row.kind, row.name): row.status for row in report.rows}
    assert status[("callback", "Harbor_Host before_model")] == "replaced"  # by the app's routing
    assert status[("callback", "Harbor_Host after_tool")] == "replaced"
    assert status[("child agents", "Harbor_Host")] == "mapped"
    assert status[("routing tool", "set_active_flow")] == "translated"
    assert status[("multi-agent app", app.name)] == "translated"
    # what could not be mapped is kept
    assert (tmp_path / "_platform" / "tools/validate_dag_config/python_function/python_code.py").is_file()
    assert (tmp_path / "_platform" / "evaluationExpectations").is_dir()
    translated = {row.name for row in report.rows if row.status == "translated"}
    assert {
        "readback_response",
        "bootstrap",
        "readback_fmt prefix (text)",
        "options_from chips",
    } <= translated


def test_a_host_and_its_desks_become_a_multi_agent_app(tmp_path: Path) -> None:
    """CONFIG_KEYS: the host's routing tool, `bootstrap`, a gate value set by the host."""
    import_app(SAMPLE, tmp_path)
    app = yaml.safe_load((tmp_path / "app.yaml").read_text(encoding="utf-8"))
    assert app["root"] == "Harbor_Host"
    assert sorted(entry["path"] for entry in app["agents"]) == [
        "Billing_Agent",
        "Booking_Agent",
        "Harbor_Host",
    ]
    assert app["routing"] == [
        {
            "tool": "set_active_flow",
            "param": "flow",
            "values": {"booking": "Booking_Agent", "billing": "Billing_Agent"},
        }
    ]
    described = {entry["path"]: entry.get("description", "") for entry in app["agents"]}
    assert described["Booking_Agent"].startswith("appointments; Reason for the visit (cleaning, checkup")
    assert "Which desk" not in described["Billing_Agent"]  # the gate slot's hint names both desks: left out
    assert sorted(p.name for p in (tmp_path / "evaluations").iterdir() if p.is_dir())[0].startswith("Event")
    root = load_app(tmp_path)
    session = root.session(clock=lambda: datetime.datetime(2030, 4, 1, 12, 0))
    first = session.send("Hi, I have a question about a bill I got")  # the offline model routes
    assert first.agent == "Billing_Agent" and first.state["filled"]["active_flow"] == "billing"
    assert [e.to_agent for e in first.events if isinstance(e, AgentTransferEvent)] == ["Billing_Agent"]
    flow = session.agent_states["Billing_Agent"]["filled"]
    assert flow == {"active_flow": "billing", "welcome": True}


def test_the_desk_takes_a_value_from_the_message_that_routed_and_welcomes_once(imported: Path) -> None:
    """The message that caused the hand-over reaches the desk's turn (FORMAT.md: the transfer's
    <user_context>): "a cleaning" is not asked again; the welcome is said once, with its card."""
    root = load_app(imported)
    session = root.session(clock=lambda: datetime.datetime(2030, 4, 1, 12, 0))
    routed = session.send("I'd like to book a cleaning")
    assert routed.agent == "Booking_Agent"
    assert routed.state["pending"] == {"visit_reason": "cleaning"}  # read back, not asked again
    texts = [e.text for e in routed.events if isinstance(e, TextEvent)]
    assert texts == ["Just to confirm — a visit for cleaning. Is that correct?"]

    other = root.session(clock=lambda: datetime.datetime(2030, 4, 1, 12, 0))
    greeted = other.send("I'd like to book an appointment")  # nothing to fill: the desk welcomes and asks
    texts = [e.text for e in greeted.events if isinstance(e, TextEvent)]
    assert len(texts) == 1 and texts[0].count("Welcome to Harbor Dental!") == 1
    cards = [e.part for e in greeted.events if isinstance(e, PayloadEvent)]
    assert "Booking takes about a minute." in json.dumps(cards)  # the welcome's card still follows

    billing = root.session(clock=lambda: datetime.datetime(2030, 4, 1, 12, 0))
    invoice = billing.send("I have a question about my invoice HD-48213")
    assert invoice.agent == "Billing_Agent"
    assert invoice.state["pending"] == {"invoice_number": "HD-48213"}  # read back, not asked for


def test_relative_paths_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLE.parent)
    report = import_app(Path(SAMPLE.name), tmp_path / "out")
    assert len(report.agents) == 3
    assert not [r for r in report.unmapped if r.kind in ("agent", "config")]


def test_reimporting_is_idempotent(tmp_path: Path) -> None:
    first = import_app(SAMPLE, tmp_path)
    before = _tree(tmp_path)
    second = import_app(SAMPLE, tmp_path)
    assert _tree(tmp_path) == before
    assert first.rows == second.rows


RECORDED = "2025-03-03"
"""The day the sample's "Recorded 2025" goldens were written: their dates are past now."""


def test_imported_goldens_and_tool_tests_pass_on_the_day_they_were_recorded(imported: Path) -> None:
    """The sample has what migrating apps have: a host routing with set_active_flow (goldens do not list
    the call), tool parameters that are all optional (goldens list argument subsets), goldens dated in the
    past (tools read the date themselves), one in a folder with a shorter name, one whose flow the engine
    hands over. Unchanged after import, they pass with --today."""
    result = CliRunner().invoke(create_app(), ["test", str(imported), "--today", RECORDED])
    last = result.output.strip().splitlines()[-1]
    assert result.exit_code == 0, result.output
    assert last == "21 passed, 0 failed, 1 skipped", result.output  # 9 goldens, 12 tool tests, 1 scenario
    assert "Simulated User" in result.output and "needs a model" in result.output
    assert "Recorded 2025 - Toothache Pain Level Is Asked" in result.output  # file name ≠ folder name
    assert "turn 1: routed with set_active_flow(flow='booking') → Booking_Agent" in result.output
    assert "completed set_visit_basics.preferred_date = '2025-03-12' from 'March 12th'" in result.output
    assert 'completed set_patient_info.visit_notes = "I\'m nervous about needles"' in result.output


def test_goldens_recorded_in_the_past_fail_on_the_real_day(imported: Path) -> None:
    result = CliRunner().invoke(create_app(), ["test", str(imported / "evaluations"), "-k", "Recorded 2025"])
    assert result.exit_code == 1
    assert "past" in result.output or "preferred_date" in result.output, result.output


def test_the_cli_prints_the_table_and_exits_by_strictness(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(create_app(), ["import", str(SAMPLE), str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert re.search(r"replaced\s+callback\s+Harbor_Host before_model", result.output)
    assert re.search(r"not mapped\s+tool\s+validate_dag_config", result.output)
    assert "imported 3 agents" in result.output
    strict = runner.invoke(create_app(), ["import", str(SAMPLE), str(tmp_path / "out"), "--strict"])
    assert strict.exit_code == 1
    as_json = runner.invoke(create_app(), ["import", str(SAMPLE), str(tmp_path / "out"), "--json"])
    rows = json.loads(as_json.output)["rows"]
    assert {"status", "kind", "name", "source", "detail"} == set(rows[0])
    missing = runner.invoke(create_app(), ["import", str(tmp_path / "nowhere"), str(tmp_path / "out")])
    assert missing.exit_code == 2 and "not a directory" in missing.output


CALLBACK = "agents/Desk/before_tool_callbacks/before_tool_callbacks_01/python_code.py"


def _minimal_app(root: Path) -> Path:
    """A one-agent export with pieces Slotgraph cannot map."""
    app = root / "app"
    shutil.copytree(SAMPLE / "tools" / "set_invoice_number", app / "tools" / "set_invoice_number")
    shutil.copytree(SAMPLE / "tools" / "look_up_balance", app / "tools" / "look_up_balance")
    shutil.copytree(SAMPLE / "tools" / "billing_dag", app / "tools" / "billing_dag")
    shutil.copytree(SAMPLE / "tools" / "set_active_flow", app / "tools" / "set_active_flow")
    (app / "tools" / "weather_api").mkdir(parents=True)
    (app / "tools" / "weather_api" / "weather_api.json").write_text(
        json.dumps({"name": "w1", "displayName": "weather_api", "openApiTool": {}})
    )
    stateful = app / "tools" / "remember_me" / "python_function" / "python_code.py"
    stateful.parent.mkdir(parents=True)
    stateful.write_text(
        "def remember_me(note: str) -> dict:\n"
        "    context.state['note'] = note\n"
        "    return {'stored': True, 'seen': sorted(context.state)}\n"
    )
    (app / "tools" / "remember_me" / "remember_me.json").write_text(
        json.dumps(
            {
                "displayName": "remember_me",
                "pythonFunction": {
                    "name": "remember_me",
                    "pythonCode": "tools/remember_me/python_function/python_code.py",
                },
            }
        )
    )
    agent = app / "agents" / "Desk"
    (agent / "before_tool_callbacks" / "before_tool_callbacks_01").mkdir(parents=True)
    (agent / "before_tool_callbacks" / "before_tool_callbacks_01" / "python_code.py").write_text(
        "def before_tool_callback(tool, input, callback_context):\n    return None\n"
    )
    (agent / "instruction.txt").write_text(
        "Today is {current_date}. {{system_directive}} Hi {caller} {missing}"
    )
    (agent / "Desk.json").write_text(
        json.dumps(
            {
                "displayName": "Desk",
                "instruction": "agents/Desk/instruction.txt",
                "tools": [
                    "billing_dag",
                    "set_invoice_number",
                    "weather_api",
                    "remember_me",
                    "transfer_to_agent",
                ],
                "beforeToolCallbacks": [{"pythonCode": CALLBACK}],
            }
        )
    )
    (app / "app.json").write_text(
        json.dumps(
            {
                "displayName": "Desk app",
                "rootAgent": "Desk",
                "variableDeclarations": [
                    {
                        "name": "agent_config_map",
                        "schema": {"type": "STRING", "default": '{"Desk": "billing", "Ghost": "x"}'},
                    },
                    {"name": "caller", "schema": {"type": "STRING", "default": "friend"}},
                ],
            }
        )
    )
    return app


def test_unsupported_pieces_are_each_reported_and_kept(tmp_path: Path) -> None:
    report = import_app(_minimal_app(tmp_path), tmp_path / "out")
    unmapped = {(row.kind, row.name): row for row in report.unmapped}
    assert ("callback", "Desk before_tool") in unmapped
    assert ("tool", "weather_api") in unmapped and "not a python tool" in unmapped[
        ("tool", "weather_api")
    ].detail
    assert ("tool", "transfer_to_agent") in unmapped
    assert ("agent", "Ghost") in unmapped
    assert ("instruction variable", "{missing}") in unmapped
    state_row = next(r for r in report.rows if r.name == "remember_me")
    assert "context.state" in state_row.detail
    assert (
        tmp_path
        / "out"
        / "_platform"
        / "agents/Desk/before_tool_callbacks/before_tool_callbacks_01/python_code.py"
    ).is_file()
    instruction = (tmp_path / "out" / "Desk" / "instruction.md").read_text()
    assert instruction.startswith("Today is {current_date}.") and "Hi friend {missing}" in instruction
    assert "system_directive" not in instruction
    assert load_definition(tmp_path / "out" / "Desk").report.ok


def test_a_broken_config_tool_is_reported_not_raised(tmp_path: Path) -> None:
    app = _minimal_app(tmp_path)
    (app / "tools" / "billing_dag" / "python_function" / "python_code.py").write_text(
        "def billing_dag():\n    raise RuntimeError('boom')\n"
    )
    report = import_app(app, tmp_path / "out")
    row = next(r for r in report.unmapped if r.kind == "agent" and r.name == "Desk")
    assert "boom" in row.detail


def test_not_an_export_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PlatformExportError, match=r"no app\.json"):
        import_app(tmp_path, tmp_path / "out")


def test_platform_tools_get_floats_and_a_context_global(tmp_path: Path) -> None:
    code = tmp_path / "tool.py"
    code.write_text(
        "def probe(n: int, flag: bool = False) -> dict:\n"
        "    return {'n': n, 'flag': flag, 'sm': context.state['sm'], 'var': context.state.get('caller')}\n"
    )
    fn = PlatformFunction(code, "probe", {"caller": "friend"})
    result = fn({"filled": {"x": 1}}, n=8, flag=True)
    assert result == {"n": 8.0, "flag": True, "sm": {"filled": {"x": 1}}, "var": "friend"}
    assert isinstance(result["n"], float)
    assert as_platform_numbers({"a": [1, True, "2"]}) == {"a": [1.0, True, "2"]}


def test_current_date_in_an_imported_instruction_is_filled_from_the_session_clock(imported: Path) -> None:
    import datetime

    from slotgraph import Agent
    from slotgraph.runtime import ModelRequest, ModelResponse

    seen: list[str] = []

    class Spy:
        async def generate(self, request: ModelRequest) -> ModelResponse:
            seen.append(request.system_instruction)
            return ModelResponse(text="Hello!")

    def clock() -> datetime.datetime:
        return datetime.datetime(2030, 4, 2, 9, 0)

    agent = Agent.load(imported / "Booking_Agent")
    agent.session(model=Spy(), clock=clock).send("hi")
    assert seen and "2030-04-02" in seen[0] and "{current_date}" not in seen[0]
