"""``slotgraph validate --check-tools`` catches what ``chat`` would reject: it imports the tools module in a
clean process and checks every tool (without the option the module is read, never imported); plus the
doubled-interjection warning, did-you-mean for paths and condition fixes."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_support import REPO_ROOT, Invoke

from slotgraph.config.validation.phrasing import DEFAULT_TRANSITION_PREFIX, leading_interjection
from slotgraph.engine.text import DEFAULT_TRANSITION_PREFIX as ENGINE_DEFAULT_PREFIX

AGENT = """\
name: probe
instruction: You help.
model: offline
tools: tools.py
dag:
  slots:
    - {name: city, source: user, setter: set_city, ask: "Which city?"}
    - {name: answer, source: "task:Lookup"}
  tasks:
    - {name: Lookup, tool: lookup, inputs: [city], outputs: {answer: answer}, success_check: ok}
"""

GOOD_TOOLS = '''
"""Tools."""

__all__ = ["lookup", "set_city"]


def set_city(city: str) -> dict:
    """Store the city."""
    return {"stored": True, "value": city}


def lookup(city: str) -> dict:
    """Look it up."""
    return {"ok": True, "answer": city.upper()}
'''


def _agent(tmp_path: Path, tools: str, agent: str = AGENT) -> Path:
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "agent.yaml").write_text(agent, encoding="utf-8")
    (folder / "tools.py").write_text(textwrap.dedent(tools), encoding="utf-8")
    return folder


def _validate(invoke: Invoke, path: Path, *, check_tools: bool = True) -> tuple[int, dict[str, Any]]:
    result = invoke(["validate", str(path), "--json", *(["--check-tools"] if check_tools else [])])
    return result.exit_code, json.loads(result.stdout)["results"][0]


def test_a_clean_tools_module_is_valid_without_warnings(invoke: Invoke, tmp_path: Path) -> None:
    code, result = _validate(invoke, _agent(tmp_path, GOOD_TOOLS))
    assert code == 0, result
    assert result["errors"] == [] and result["warnings"] == []


@pytest.mark.parametrize(
    ("definition", "parameter"),
    [
        (
            "class Address:\n    street: str\n\n\ndef set_city(city: Address) -> dict:\n",
            "city",
        ),
        (
            "from pydantic import BaseModel\n\n\nclass Place(BaseModel):\n    name: str\n\n\n"
            "def set_city(city: Place) -> dict:\n",
            "city",
        ),
        ("def set_city(*cities: str) -> dict:\n", "cities"),
    ],
    ids=["custom-class", "pydantic-model", "varargs"],
)
def test_an_unsupported_tool_signature_is_a_located_error(
    invoke: Invoke, tmp_path: Path, definition: str, parameter: str
) -> None:
    tools = (
        f'"""Tools."""\n\n__all__ = ["lookup", "set_city"]\n\n\n{definition}'
        '    """Store the city."""\n    return {"stored": True}\n\n\n'
        'def lookup(city: str) -> dict:\n    """Look it up."""\n    return {"ok": True, "answer": city}\n'
    )
    folder = _agent(tmp_path, tools)
    code, result = _validate(invoke, folder)
    assert code == 1
    (issue,) = result["errors"]
    assert issue["code"] == "unsupported_tool_signature"
    assert issue["message"].startswith("tool 'set_city': parameter")
    assert repr(parameter) in issue["message"]
    lines = (folder / "tools.py").read_text(encoding="utf-8").splitlines()
    assert issue["file"] == str(folder / "tools.py")
    assert parameter in lines[issue["line"] - 1][issue["column"] - 1 :]  # points at the parameter
    assert issue["fix"]

    text = invoke(["validate", str(folder), "--check-tools"])
    assert f"tools.py:{issue['line']}:{issue['column']}" in text.stdout
    assert _validate(invoke, folder, check_tools=False)[0] == 0  # reading the module cannot find it


def test_an_import_error_is_located(invoke: Invoke, tmp_path: Path) -> None:
    folder = _agent(tmp_path, GOOD_TOOLS + "\nimport not_a_module_anywhere  # noqa\n")
    code, result = _validate(invoke, folder)
    assert code == 1
    (issue,) = result["errors"]
    assert issue["code"] == "tools_import_failed"
    assert "ModuleNotFoundError" in issue["message"] and "not_a_module_anywhere" in issue["message"]
    lines = (folder / "tools.py").read_text(encoding="utf-8").splitlines()
    assert lines[issue["line"] - 1].startswith("import not_a_module_anywhere")


def test_the_module_is_imported_only_with_check_tools_and_in_another_process(
    invoke: Invoke, tmp_path: Path
) -> None:
    marker = tmp_path / "imported-by.txt"
    tools = GOOD_TOOLS + f"\nimport os\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\n"
    folder = _agent(tmp_path, tools)
    code, _ = _validate(invoke, folder, check_tools=False)
    assert code == 0 and not marker.exists()  # validating an unknown agent runs none of its code
    code, _ = _validate(invoke, folder)
    assert code == 0
    assert int(marker.read_text(encoding="utf-8")) != os.getpid()


def test_a_public_helper_that_becomes_a_tool_is_a_warning(invoke: Invoke, tmp_path: Path) -> None:
    tools = GOOD_TOOLS.replace('__all__ = ["lookup", "set_city"]\n', "") + (
        "\n\ndef normalise(text: str) -> str:\n    return text.strip()\n\n\n"
        "def _private(text: str) -> str:\n    return text\n"
    )
    code, result = _validate(invoke, _agent(tmp_path, tools))
    assert code == 0
    (warning,) = result["warnings"]
    assert warning["code"] == "undeclared_tool"
    assert "'normalise' becomes a tool the model can call" in warning["message"]
    assert "__all__" in warning["fix"]


def test_a_doubled_interjection_is_a_warning(invoke: Invoke, tmp_path: Path) -> None:
    agent = AGENT.replace(
        'ask: "Which city?"}',
        'ask: "Which city?", requires_readback: true}\n'
        '    - {name: day, source: user, setter: set_day, ask: "Perfect! Which day?"}',
    ).replace("inputs: [city]", "inputs: [city, day]")
    agent = agent.replace("  slots:", '  confirm_transition_prefix: ["Wonderful!"]\n  slots:')
    tools = GOOD_TOOLS.replace('"set_city"]', '"set_city", "set_day"]') + (
        '\n\ndef set_day(day: str) -> dict:\n    """Store the day."""\n    return {"stored": True}\n'
    )
    code, result = _validate(invoke, _agent(tmp_path, tools, agent))
    assert code == 0
    (warning,) = result["warnings"]
    assert warning["code"] == "doubled_interjection"
    assert "'Wonderful! Perfect! Which day?'" in warning["message"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Lovely! What date?", "Lovely!"),
        ("Thank you! What name?", "Thank you!"),
        ("Perfect, which day?", "Perfect,"),
        ("What date would you like?", None),
        ("We have {times}. Which one?", None),
        ("Which one, please? Thanks!", None),
    ],
)
def test_leading_interjections(text: str, found: str | None) -> None:
    assert leading_interjection(text) == found


def test_the_default_prefix_is_the_engine_s() -> None:
    assert DEFAULT_TRANSITION_PREFIX == ENGINE_DEFAULT_PREFIX


def test_the_examples_have_no_doubled_interjections(invoke: Invoke) -> None:
    for name in ("bella_notte", "toy_reservation"):
        code, result = _validate(invoke, REPO_ROOT / "examples" / name)
        assert code == 0
        assert [w for w in result["warnings"] if w["code"] == "doubled_interjection"] == [], name


def test_a_mistyped_agent_path_gets_did_you_mean(invoke: Invoke, tmp_path: Path) -> None:
    (tmp_path / "bella_notte").mkdir()
    (tmp_path / "bella_notte" / "agent.yaml").write_text("name: x\n", encoding="utf-8")
    result = invoke(["validate", str(tmp_path / "bella_note")])
    assert result.exit_code == 2
    assert f"(did you mean {str(tmp_path / 'bella_notte')!r}?)" in result.stdout

    listed = invoke(["validate", str(tmp_path)])
    assert listed.exit_code == 2
    assert f"pass one of the agents in it: {tmp_path / 'bella_notte'}" in listed.stdout


@pytest.mark.parametrize(
    ("condition", "suggestion"),
    [
        ("city = 'Paris'", "city == 'Paris'"),
        ("city == 'Paris' && day", "city == 'Paris' and day"),
        ("lambda filled: filled.get('city') = 'Paris'", "lambda filled: filled.get('city') == 'Paris'"),
    ],
)
def test_a_condition_syntax_error_suggests_the_likely_fix(
    invoke: Invoke, tmp_path: Path, condition: str, suggestion: str
) -> None:
    dag = tmp_path / "dag.yaml"
    dag.write_text(
        "slots:\n"
        '  - {name: city, source: user, setter: set_city, ask: "City?"}\n'
        f'  - {{name: day, source: user, setter: set_day, ask: "Day?", condition: "{condition}"}}\n',
        encoding="utf-8",
    )
    code, result = _validate(invoke, dag)
    assert code == 1
    (issue,) = result["errors"]
    assert issue["code"] == "invalid_condition"
    assert issue["fix"].startswith(f"did you mean {suggestion!r}?")


def test_a_tool_the_instruction_or_agent_yaml_uses_is_not_undeclared(invoke: Invoke, tmp_path: Path) -> None:
    tools = GOOD_TOOLS.replace('__all__ = ["lookup", "set_city"]\n', "") + (
        '\n\ndef find_patient(phone: str) -> dict:\n    """Find a patient."""\n    return {}\n'
    )
    agent = AGENT.replace("instruction: You help.", "instruction: You help. {{run find_patient}}")
    code, result = _validate(invoke, _agent(tmp_path, tools, agent))
    assert code == 0
    assert result["warnings"] == []
