"""Finding and loading test cases: scenario YAML files and the platform's golden JSON files.

Discovery (for a directory argument): YAML files (``*.yaml``/``*.yml``) below a directory named
``scenarios``, golden files ``evaluations/<Name>/*.json`` (the file's name may differ from its folder's),
and the platform's tool-test YAML files below a directory named ``tool_tests``
(:mod:`slotgraph.evals.tool_tests`; each test is one case). A file named explicitly is always loaded (YAML
as a scenario or tool tests, JSON as a golden). A platform app export (a folder holding ``app.json``) met
while walking is skipped: its goldens and tool tests run on the agents ``slotgraph import`` makes of it. A
malformed file becomes a :class:`LoadFailure` with a located message (file, path inside it, what is wrong,
how to fix it); the other files still run.
"""

from __future__ import annotations

import datetime
import difflib
import json
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from slotgraph.config.yaml_budget import bounded_safe_load
from slotgraph.evals.errors import ScenarioFormatError
from slotgraph.evals.format import Scenario
from slotgraph.evals.golden import GoldenSettings, golden_settings, import_golden
from slotgraph.evals.tool_tests import ToolTestCase, is_tool_test_file, load_tool_tests

__all__ = ["Case", "LoadFailure", "discover", "load_cases", "load_scenario", "location_of", "parse_scenario"]

_YAML_SUFFIXES = frozenset({".yaml", ".yml"})


@dataclass(frozen=True, slots=True)
class Case:
    """A loaded test: its scenario (goldens are converted), where it came from, and its kind."""

    name: str
    source: Path
    scenario: Scenario
    base_dir: Path
    kind: str = "scenario"
    locations: Mapping[str, str] = field(default_factory=dict)
    """For goldens: a converted expectation's path → where it is written in the golden file."""

    @property
    def agent_path(self) -> Path:
        return (self.base_dir / self.scenario.agent).resolve()


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """A file that could not be loaded, with the located error."""

    source: Path
    error: ScenarioFormatError

    @property
    def name(self) -> str:
        return self.source.stem


def _is_golden(path: Path) -> bool:
    """``evaluations/<Name>/<file>.json``: the file name need not repeat its folder's (older platform exports
    keep a few goldens in a folder with a shorter name)."""
    return path.suffix == ".json" and path.parent.parent.name == "evaluations"


def _under_scenarios(path: Path, root: Path) -> bool:
    return "scenarios" in path.relative_to(root).parts[:-1] or _inside_scenarios(root)


def _inside_scenarios(root: Path) -> bool:
    """Whether the directory ``root`` is an agent's or app's ``scenarios`` directory or lies inside one
    (``my_agent/scenarios/simulated``): walking up, a directory named ``scenarios`` is met before the
    agent (``agent.yaml``) or app (``app.yaml``) directory holding it."""
    for directory in (root, *root.resolve().parents):
        if _is_agent_dir(directory):
            return False
        if directory.name == "scenarios" and (directory is root or _is_agent_dir(directory.parent)):
            return True
    return False


def _is_agent_dir(directory: Path) -> bool:
    return (directory / "agent.yaml").is_file() or (directory / "app.yaml").is_file()


def discover(paths: Sequence[Path]) -> list[Path]:
    """The test files named by ``paths`` (files as given, directories walked), sorted, without repeats.

    Raises FileNotFoundError for a path that does not exist.
    """
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(str(path))
        if path.is_file():
            found.append(path)
            continue
        exports = [p.parent for p in path.rglob("app.json") if not (p.parent / "agent.yaml").exists()]
        for file in sorted(path.rglob("*")):
            if not file.is_file() or any(part.startswith(".") for part in file.relative_to(path).parts):
                continue
            if any(file.is_relative_to(export) for export in exports):
                continue  # a platform app export: `slotgraph import` it, then test the imported agents
            if (
                (file.suffix in _YAML_SUFFIXES and _under_scenarios(file, path))
                or _is_golden(file)
                or is_tool_test_file(file)
            ):
                found.append(file)
    unique: dict[Path, None] = {}
    for file in found:
        unique.setdefault(file, None)
    return list(unique)


# --- located pydantic errors ------------------------------------------------------------------------------


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (list, typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found = _model_of(arg)
            if found is not None:
                return found
    return None


def location_of(loc: Sequence[int | str]) -> tuple[str, type[BaseModel] | None]:
    """A pydantic error location as ``turns[2].expect.tool_calls[0]``, and the model found at it."""
    text = ""
    model: type[BaseModel] | None = Scenario
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        fields = model.model_fields if model is not None else {}
        if part not in fields:
            if (model is not None and part == model.__name__) or part in {"str", "int", "dict[str,any]"}:
                continue  # a union branch's name, not a key
            text += ("." if text else "") + part
            model = None
            continue
        text += ("." if text else "") + part
        model = _model_of(fields[part].annotation)
    return text, model


def _from_validation(file: Path, err: ValidationError) -> ScenarioFormatError:
    errors = err.errors()
    # A union (``text: str | {contains: ...}``) reports an error per branch; the deepest is the useful one.
    head = location_of(tuple(errors[0]["loc"]))[0]
    first = max(
        (e for e in errors if location_of(tuple(e["loc"]))[0].startswith(head)),
        key=lambda e: len(location_of(tuple(e["loc"]))[0]),
    )
    loc = tuple(first["loc"])
    if first["type"] == "extra_forbidden":
        where, parent = location_of(loc[:-1])
        key = str(loc[-1])
        allowed = sorted(parent.model_fields) if parent is not None else []
        close = difflib.get_close_matches(key, allowed, n=1)
        fix = f"rename it to {close[0]!r}" if close else f"use one of {allowed}"
        location = f"{where}.{key}" if where else key
        return ScenarioFormatError(file, location, f"unknown key {key!r}", fix)
    where, _ = location_of(loc)
    message = str(first["msg"]).removeprefix("Value error, ")
    fixes = {
        "missing": "add it",
        "string_type": "write a string",
        "int_type": "write a whole number",
        "bool_type": "write true or false",
        "dict_type": "write a mapping (key: value)",
        "list_type": "write a list (- item)",
        "literal_error": "use one of the allowed values",
        "datetime_from_date_parsing": "write a date and time, e.g. 2026-07-10T18:00:00",
    }
    fix = fixes.get(first["type"], "see docs/evals.md")
    if first["type"] == "string_type" and isinstance(first.get("input"), bool):
        fix = 'quote it, e.g. "yes" (YAML reads unquoted yes/no/on/off as true/false)'
    others = {location_of(tuple(e["loc"]))[0] for e in errors} - {head}
    more = f" (and {len(others)} more problem(s))" if others else ""
    return ScenarioFormatError(file, where or "<top>", message + more, fix)


def parse_scenario(data: Any, file: Path) -> Scenario:
    """Validate plain data as a scenario; raise ScenarioFormatError with the location of the first problem."""
    if not isinstance(data, dict):
        raise ScenarioFormatError(
            file,
            "<top>",
            f"a scenario is a mapping, got {type(data).__name__}",
            "start with 'agent:' and 'turns:'",
        )
    try:
        return Scenario.model_validate(data)
    except ValidationError as err:
        raise _from_validation(file, err) from None


def load_scenario(file: Path) -> Scenario:
    """Read and validate one scenario YAML file."""
    try:
        data = bounded_safe_load(file.read_text(encoding="utf-8"))
    except OSError as err:
        raise ScenarioFormatError(file, "", f"cannot read the file ({err.strerror or err})") from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ScenarioFormatError(
            file, where, f"invalid YAML: {err.problem}", "fix the YAML syntax"
        ) from None
    except yaml.YAMLError as err:
        raise ScenarioFormatError(file, "", f"invalid YAML: {err}", "fix the YAML syntax") from None
    return parse_scenario(data, file)


def _load_golden(file: Path, agent: Path | None, today: datetime.date | None) -> Case:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as err:
        raise ScenarioFormatError(file, "", f"cannot read the file ({err.strerror or err})") from None
    except json.JSONDecodeError as err:
        raise ScenarioFormatError(
            file, f"line {err.lineno}, column {err.colno}", f"invalid JSON: {err.msg}", "fix the JSON syntax"
        ) from None
    settings: GoldenSettings = golden_settings(file)
    agent_path = agent or settings.agent
    if agent_path is None:
        raise ScenarioFormatError(
            file, "", "no agent to run this golden against", "pass --agent PATH (the agent directory)"
        )
    scenario, locations = import_golden(
        data, file, agent=agent_path.resolve(), today=today, settings=settings
    )
    return Case(scenario.name or file.stem, file, scenario, file.parent, kind="golden", locations=locations)


def _nearest_agent_dir(file: Path) -> Path | None:
    for folder in file.resolve().parents:
        if (folder / "agent.yaml").is_file():
            return folder
    return None


def _tool_test_cases(file: Path, agent: Path | None) -> list[ToolTestCase]:
    target = agent.resolve() if agent is not None else _nearest_agent_dir(file)
    return [ToolTestCase(f"{file.stem}: {test.name}", file, test, target) for test in load_tool_tests(file)]


def load_cases(
    files: Iterable[Path], *, agent: Path | None = None, today: datetime.date | None = None
) -> list[Case | LoadFailure | ToolTestCase]:
    """Load every file; goldens and tool tests run against ``agent`` (else the nearest agent directory
    above them)."""
    cases: list[Case | LoadFailure | ToolTestCase] = []
    for file in files:
        try:
            if file.suffix in _YAML_SUFFIXES and is_tool_test_file(file):
                cases.extend(_tool_test_cases(file, agent))
            elif file.suffix == ".json":
                cases.append(_load_golden(file, agent, today))
            else:
                scenario = load_scenario(file)
                cases.append(Case(scenario.name or file.stem, file, scenario, file.parent))
        except ScenarioFormatError as err:
            cases.append(LoadFailure(file, err))
    return cases
