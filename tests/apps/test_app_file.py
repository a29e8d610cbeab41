"""app.yaml: checked with the app file's line and column; each agent equipped with its routing tools."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from slotgraph.apps import is_app, load_agent, load_app
from slotgraph.config import ConfigValidationError
from slotgraph.models.offline.routing import routing_targets

TEAM = Path(__file__).resolve().parents[2] / "examples" / "bella_notte_team"
BELLA = TEAM.parent / "bella_notte"


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "examples" / "bella_notte_team"
    shutil.copytree(TEAM, target)
    shutil.copytree(BELLA, tmp_path / "examples" / "bella_notte")  # the reservation desk's files
    return target


def test_every_agent_carries_the_team_and_its_transfer_tool_enumerates_its_handoffs() -> None:
    root = load_app(TEAM)
    assert root.name == "host" and root.team is not None and root.team.name == "bella_notte_team"
    assert sorted(root.team.names) == ["host", "reservations", "takeout"]
    schema = next(t.schema for t in root.tools if t.name == "transfer_to_agent").as_json()
    param, targets = routing_targets(schema) or ("", {})
    assert param == "agent" and list(targets) == ["reservations", "takeout"]
    assert targets["takeout"] == "Order takeout food to pick up (dishes, pickup time)."
    takeout = root.team["takeout"]
    takeout_schema = next(t.schema for t in takeout.tools if t.name == "transfer_to_agent").as_json()
    assert list((routing_targets(takeout_schema) or ("", {}))[1]) == ["reservations"]
    assert is_app(TEAM) and not is_app(BELLA)
    assert load_agent(BELLA).team is None and load_agent(TEAM).team is not None


@pytest.mark.parametrize(
    ("edit", "location", "words"),
    [
        (("root: host", "root: hots"), "root", "no agent of the app is named 'hots'"),
        (
            ("handoffs: [reservations, takeout]", "handoffs: [reservations, pizza]"),
            "agents[0].handoffs[1]",
            "'pizza'",
        ),
        (("  - path: takeout\n", "  - path: takeaway\n"), "agents[2].path", "no agent directory"),
        (("name: bella_notte_team", "name: 7\nbogus: 1"), "bogus", "unknown key 'bogus'"),
    ],
)
def test_app_file_problems_have_locations(
    tmp_path: Path, edit: tuple[str, str], location: str, words: str
) -> None:
    app = _copy(tmp_path)
    text = (app / "app.yaml").read_text(encoding="utf-8")
    assert edit[0] in text
    (app / "app.yaml").write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_app(app)
    issue = next(i for i in caught.value.issues if i.location == location)
    assert words in issue.message and issue.line is not None and issue.file is not None


def test_a_routing_tool_no_agent_has_and_a_duplicate_name_are_reported(tmp_path: Path) -> None:
    app = _copy(tmp_path)
    text = (app / "app.yaml").read_text(encoding="utf-8")
    text = text.replace("  - path: takeout\n", "  - path: takeout\n  - path: takeout\n")
    text += "routing:\n  - {tool: pick_desk, param: desk, values: {food: takeout}}\n"
    (app / "app.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigValidationError) as caught:
        load_app(app)
    codes = {(i.code, i.location) for i in caught.value.issues}
    assert ("duplicate_agent", "agents[3].path") in codes
    assert ("unknown_tool", "routing[0].tool") in codes


def test_slotgraph_validate_checks_an_app_as_a_whole(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from slotgraph.cli.main import create_app

    ok = CliRunner().invoke(create_app(), ["validate", str(TEAM)])
    assert ok.exit_code == 0 and "valid multi-agent app" in ok.output, ok.output
    app = _copy(tmp_path)
    text = (app / "app.yaml").read_text(encoding="utf-8").replace("root: host", "root: hots")
    (app / "app.yaml").write_text(text, encoding="utf-8")
    bad_root = CliRunner().invoke(create_app(), ["validate", str(app)])
    assert bad_root.exit_code == 1 and "no agent of the app is named 'hots'" in bad_root.output
    (app / "takeout" / "dag.yaml").write_text("slots: [{name: x, source: nowhere}]\n", encoding="utf-8")
    bad_dag = CliRunner().invoke(create_app(), ["validate", str(app)])
    assert bad_dag.exit_code == 1 and "agents[takeout].dag.slots[0].source" in bad_dag.output


INLINE = """\
name: inline_team
root: front
agents:
  - agent:
      name: front
      description: The front desk.
      instruction: Greet and hand over.
      dag: {slots: [], tasks: []}
    handoffs: [takeout]
  - path: takeout
"""


def test_several_agents_in_one_app_file(tmp_path: Path) -> None:
    app = _copy(tmp_path)
    (app / "app.yaml").write_text(INLINE, encoding="utf-8")
    root = load_app(app)
    assert root.name == "front" and root.team is not None and sorted(root.team.names) == ["front", "takeout"]
    result = root.session().send("I want to order takeout")
    assert result.agent == "takeout"
    from typer.testing import CliRunner

    from slotgraph.cli.main import create_app

    ok = CliRunner().invoke(create_app(), ["validate", str(app)])
    assert ok.exit_code == 0, ok.output
    from slotgraph.server import load_hosted_agents

    [hosted] = load_hosted_agents([app])
    assert hosted.name == "inline_team" and hosted.agent.name == "front"


def test_an_inline_agents_problems_point_into_the_app_file(tmp_path: Path) -> None:
    app = _copy(tmp_path)
    text = INLINE.replace("dag: {slots: [], tasks: []}", "dag: {slots: [{name: x, source: nowhere}]}")
    (app / "app.yaml").write_text(
        text.replace("instruction:", "bogus: 1\n      instruction:"), encoding="utf-8"
    )
    with pytest.raises(ConfigValidationError) as caught:
        load_app(app)
    located = {(i.location, i.line) for i in caught.value.issues}
    assert ("bogus", 7) in located  # the app file's line of the inline agent's key
    assert any(loc.startswith("dag.slots[0]") and line == 9 for loc, line in located)
    both = INLINE.replace(
        "  - path: takeout\n", "  - path: takeout\n    agent: {name: x, dag: {slots: []}}\n"
    )
    (app / "app.yaml").write_text(both, encoding="utf-8")
    with pytest.raises(ConfigValidationError, match="exactly one of 'path'"):
        load_app(app)


def test_a_command_that_takes_one_agent_names_the_agents_of_an_app() -> None:
    from typer.testing import CliRunner

    from slotgraph.cli.main import create_app

    result = CliRunner().invoke(create_app(), ["graph", str(TEAM)])
    assert result.exit_code == 2
    assert "a multi-agent app (app.yaml), not one agent" in result.output
    assert str(TEAM / "takeout") in result.output.replace("\n", "")
