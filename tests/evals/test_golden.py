"""Importing the platform's golden evaluations: every step kind, located errors, settings, failure paths."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from slotgraph.evals import Case, CaseRunner, LoadFailure, ScenarioFormatError, TextExpect, load_cases
from slotgraph.evals.golden import golden_settings, import_golden

from .conftest import BELLA

GOLDENS = BELLA / "evaluations"


def _golden(tmp_path: Path, name: str, turns: list[dict[str, Any]], *, settings: str | None = None) -> Path:
    folder = tmp_path / "agent" / "evaluations" / name
    folder.mkdir(parents=True)
    (tmp_path / "agent" / "agent.yaml").write_text("name: x\n")
    if settings is not None:
        (tmp_path / "agent" / "evaluations" / "slotgraph.yaml").write_text(settings)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"displayName": name, "golden": {"turns": turns}}))
    return path


def _import(data: Any, file: Path = Path("G.json")) -> Any:
    return import_golden(data, file, agent=BELLA, today=datetime.date(2026, 7, 10))


def test_every_step_and_expectation_kind_is_converted() -> None:
    data = {
        "golden": {
            "turns": [
                {
                    "steps": [
                        {"userInput": {"variables": {"event_data": {"party_size": 4}}}},
                        {"userInput": {"event": {"event": "welcome"}}},
                        {
                            "expectation": {
                                "agentResponse": {"chunks": [{"text": "welcome"}, {"text": "date"}]}
                            }
                        },
                    ]
                },
                {
                    "steps": [
                        {"userInput": {"text": "July 17th"}},
                        {
                            "expectation": {
                                "toolCall": {
                                    "tool": "projects/p/tools/set_reservation_basics",
                                    "args": {"preferred_date": "2026-07-17"},
                                }
                            }
                        },
                        {
                            "expectation": {
                                "updatedVariables": {"sm": {"pending": {"preferred_date": "2026-07-17"}}}
                            }
                        },
                        {"expectation": {"agentTransfer": {}, "note": "a note"}},
                    ]
                },
            ]
        }
    }
    scenario, locations = _import(data)
    first, second = scenario.turns
    assert first.kind == "event" and first.event == "welcome"
    assert first.injected_event_data() == {"party_size": 4}
    assert first.expect.text == TextExpect(contains=["welcome", "date"])
    assert second.user == "July 17th"
    assert [(c.name, c.args) for c in second.expect.tool_calls] == [
        ("set_reservation_basics", {"preferred_date": "2026-07-17"})
    ]
    assert second.expect.state_during == {"pending": {"preferred_date": "2026-07-17"}}
    assert second.expect.transfer is True and second.note == "a note"
    assert scenario.model == "replay" and scenario.now == datetime.datetime(2026, 7, 10, 12, 0)
    assert scenario.name == "G"
    assert locations["turns[1].expect.tool_calls[0]"] == "golden.turns[1].steps[1].expectation.toolCall"
    assert (
        locations["turns[0].expect.text.contains[1]"]
        == "golden.turns[0].steps[2].expectation.agentResponse.chunks[1]"
    )
    assert locations["turns[1].expect.state_during.pending"] == (
        "golden.turns[1].steps[2].expectation.updatedVariables.sm.pending"
    )
    assert locations["turns[1].expect.transfer"] == "golden.turns[1].steps[3].expectation.agentTransfer"


def test_a_bare_turns_document_is_accepted() -> None:
    scenario, locations = _import({"turns": [{"steps": [{"userInput": {"text": "Hi"}}]}]})
    assert scenario.turns[0].user == "Hi" and locations["turns[0]"] == "turns[0]"


@pytest.mark.parametrize(
    ("data", "location", "message"),
    [
        ([], "<top>", "expected an object"),
        ({"golden": {"turns": []}}, "golden.turns", "no turns"),
        ({"golden": {}}, "golden.turns", "expected a list"),
        (
            {"golden": {"turns": [{"steps": [{"userInput": {"txt": "x"}}]}]}},
            "golden.turns[0].steps[0].userInput.txt",
            "unknown key 'txt'",
        ),
        ({"golden": {"turns": [{"steps": [{"expectation": {}}]}]}}, "golden.turns[0]", "no userInput"),
        (
            {"golden": {"turns": [{"steps": [{"userInput": {"text": "a", "event": {"event": "w"}}}]}]}},
            "golden.turns[0]",
            "both user text and an event",
        ),
        (
            {"golden": {"turns": [{"steps": [{"userInput": {"event": {}}}]}]}},
            "golden.turns[0].steps[0].userInput.event",
            "no name",
        ),
        (
            {
                "golden": {
                    "turns": [
                        {"steps": [{"userInput": {"text": "a"}}, {"expectation": {"toolCall": {"args": {}}}}]}
                    ]
                }
            },
            "golden.turns[0].steps[1].expectation.toolCall.tool",
            "tool name is missing",
        ),
        (
            {
                "golden": {
                    "turns": [
                        {
                            "steps": [
                                {"userInput": {"text": "a"}},
                                {"expectation": {"toolCall": {"tool": "t", "args": [1]}}},
                            ]
                        }
                    ]
                }
            },
            "golden.turns[0].steps[1].expectation.toolCall.args",
            "expected an object",
        ),
        (
            {"golden": {"turns": [{"steps": [{"userInput": {"variables": {"sm": {}}}}]}]}},
            "golden.turns[0].steps[0].userInput.variables.sm",
            "unknown key 'sm'",
        ),
        (
            {
                "golden": {
                    "turns": [
                        {
                            "steps": [
                                {"userInput": {"text": "a"}},
                                {"expectation": {"agentResponse": {"chunks": [{"txt": "a"}]}}},
                            ]
                        }
                    ]
                }
            },
            "golden.turns[0].steps[1].expectation.agentResponse.chunks[0].text",
            "no text",
        ),
        (
            {
                "golden": {
                    "turns": [
                        {
                            "steps": [
                                {"userInput": {"text": "a"}},
                                {"expectation": {"updatedVariables": {"other": {}}}},
                            ]
                        }
                    ]
                }
            },
            "golden.turns[0].steps[1].expectation.updatedVariables.other",
            "unknown key",
        ),
    ],
)
def test_malformed_goldens_are_located(data: Any, location: str, message: str) -> None:
    with pytest.raises(ScenarioFormatError) as info:
        _import(data)
    assert info.value.location == location
    assert message in info.value.message
    assert info.value.fix


def test_settings_give_the_day_and_the_agent_is_found_above(tmp_path: Path) -> None:
    path = _golden(
        tmp_path, "One", [{"steps": [{"userInput": {"text": "Hi"}}]}], settings="today: 2026-07-10\n"
    )
    settings = golden_settings(path)
    assert settings.today == datetime.date(2026, 7, 10)
    assert settings.agent == (tmp_path / "agent").resolve()
    (case,) = load_cases([path])
    assert isinstance(case, Case) and case.kind == "golden"
    assert case.scenario.now == datetime.datetime(2026, 7, 10, 12, 0)
    (override,) = load_cases([path], agent=BELLA, today=datetime.date(2026, 8, 1))
    assert isinstance(override, Case)
    assert override.scenario.agent == str(BELLA.resolve())
    assert override.scenario.now == datetime.datetime(2026, 8, 1, 12, 0)


@pytest.mark.parametrize(
    ("settings", "location"),
    [("agnt: ..\n", "agnt"), ("today: someday\n", "today"), ("seed: x\n", "seed"), ("- a\n", "<top>")],
)
def test_bad_settings_are_located(tmp_path: Path, settings: str, location: str) -> None:
    path = _golden(tmp_path, "One", [{"steps": [{"userInput": {"text": "Hi"}}]}], settings=settings)
    (failure,) = load_cases([path])
    assert isinstance(failure, LoadFailure)
    assert failure.error.location == location
    assert failure.error.file.name == "slotgraph.yaml"


def test_a_golden_without_an_agent_asks_for_one(tmp_path: Path) -> None:
    folder = tmp_path / "evaluations" / "Lonely"
    folder.mkdir(parents=True)
    path = folder / "Lonely.json"
    path.write_text(json.dumps({"turns": [{"steps": [{"userInput": {"text": "Hi"}}]}]}))
    (failure,) = load_cases([path])
    assert isinstance(failure, LoadFailure) and "--agent" in failure.error.fix


def test_a_golden_with_bad_json_gives_the_line(tmp_path: Path) -> None:
    path = _golden(tmp_path, "Broken", [])
    path.write_text('{"golden": {"turns": [\n  {"steps": }\n]}}')
    (failure,) = load_cases([path])
    assert isinstance(failure, LoadFailure) and failure.error.location == "line 2, column 13"


def test_the_repository_goldens_cover_every_kind_and_pass() -> None:
    files = sorted(GOLDENS.glob("*/*.json"))
    assert len(files) >= 10
    kinds: set[str] = set()
    for file in files:
        for turn in json.loads(file.read_text())["golden"]["turns"]:
            for step in turn["steps"]:
                for key, value in step.items():
                    kinds.update(f"{key}.{inner}" for inner in value)
    assert {
        "userInput.text",
        "userInput.variables",
        "userInput.event",
        "expectation.toolCall",
        "expectation.updatedVariables",
        "expectation.agentResponse",
        "expectation.agentTransfer",
        "expectation.note",
    } <= kinds
    runner = CaseRunner()
    for case in load_cases(files):
        assert isinstance(case, Case)
        result = runner.run(case)
        assert result.outcome == "passed", (case.name, result.all_failures)


def test_a_failing_golden_points_into_the_golden_file(tmp_path: Path) -> None:
    turns = [
        {"steps": [{"userInput": {"text": "Hi"}}]},
        {
            "steps": [
                {"userInput": {"text": "A table for 4 on July 17th"}},
                {"expectation": {"toolCall": {"tool": "set_reservation_basics", "args": {"party_size": 5}}}},
                {"expectation": {"agentResponse": {"chunks": [{"text": "6 guests"}]}}},
            ]
        },
    ]
    path = _golden(tmp_path, "Wrong", turns, settings="today: 2026-07-10\n")
    (case,) = load_cases([path], agent=BELLA)
    result = CaseRunner().run(case)
    assert result.outcome == "failed"
    where = [f.expectation for f in result.all_failures]
    assert where == [
        "golden.turns[1].steps[2].expectation.agentResponse.chunks[0]",
    ]
