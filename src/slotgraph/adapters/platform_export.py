"""Reading an app exported from the original hosting platform (CX Agent Studio) into typed records.

The export is a folder holding ``app.json``, ``agents/<Agent>/<Agent>.json`` (+ ``instruction.txt`` and
``<kind>_callbacks/<kind>_callbacks_NN/python_code.py``), ``tools/<tool>/<tool>.json`` (+ its
``python_function/python_code.py``), ``evaluations/*/*.json``, ``evaluationDatasets/*/*.json``,
``evaluationExpectations/*/*.json`` and, locally, ``evals/tool_tests/*.yaml``. Paths inside the JSON files are
relative to the app folder. Nothing here runs app code; :func:`read_export` only reads and checks shapes,
raising :class:`PlatformExportError` with the file and what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotgraph.config import ConfigLoadError

__all__ = [
    "CALLBACK_KINDS",
    "AppVariable",
    "Callback",
    "PlatformAgent",
    "PlatformApp",
    "PlatformExportError",
    "PlatformTool",
    "find_app_dir",
    "read_export",
]

CALLBACK_KINDS = (
    "before_agent",
    "after_agent",
    "before_model",
    "after_model",
    "before_tool",
    "after_tool",
)
"""Callback kinds by folder name (``<kind>_callbacks``); the JSON lists are ``<kindCamel>Callbacks``."""


class PlatformExportError(ConfigLoadError):
    """The folder is not a readable platform app export (a file is missing, unreadable or malformed)."""


def _camel(kind: str) -> str:
    head, tail = kind.split("_", 1)
    return f"{head}{tail.capitalize()}Callbacks"


@dataclass(frozen=True, slots=True)
class AppVariable:
    """A declared session variable with its typed default (JSON held in a STRING is left as text)."""

    name: str
    type: str
    default: Any
    description: str = ""


@dataclass(frozen=True, slots=True)
class PlatformTool:
    """A tool folder: its display name, entry function and code file (relative to the app folder)."""

    name: str
    function: str
    code: str
    description: str
    source: str
    """The tool JSON file, relative to the app folder (for the report)."""


@dataclass(frozen=True, slots=True)
class Callback:
    kind: str
    code: str
    """Path of ``python_code.py`` relative to the app folder."""
    description: str
    disabled: bool


@dataclass(frozen=True, slots=True)
class PlatformAgent:
    name: str
    folder: str
    instruction_path: str
    instruction: str
    tools: tuple[str, ...]
    child_agents: tuple[str, ...]
    callbacks: tuple[Callback, ...]
    description: str
    source: str


@dataclass(frozen=True, slots=True)
class PlatformApp:
    """Everything :func:`read_export` found, with paths relative to :attr:`root`."""

    root: Path
    name: str
    root_agent: str | None
    variables: tuple[AppVariable, ...]
    tools: Mapping[str, PlatformTool]
    agents: Mapping[str, PlatformAgent]
    evaluations: tuple[str, ...]
    """``evaluations/*/*.json`` files, relative paths, sorted."""
    datasets: tuple[str, ...]
    expectations: tuple[str, ...]
    tool_tests: tuple[str, ...]
    """``evals/tool_tests/*.yaml`` files."""
    time_zone: str | None = None
    model: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The raw ``app.json``."""

    def variable(self, name: str) -> AppVariable | None:
        return next((v for v in self.variables if v.name == name), None)

    def agent(self, reference: str) -> PlatformAgent | None:
        """An agent by display name, then by folder name (references use display names)."""
        if reference in self.agents:
            return self.agents[reference]
        return next((a for a in self.agents.values() if a.folder == reference), None)

    def config_map(self) -> dict[str, str]:
        """``agent_config_map`` (a JSON object, possibly held as text): agent display name → config id."""
        variable = self.variable("agent_config_map")
        if variable is None:
            return {}
        value = variable.default
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else {}
            except json.JSONDecodeError as err:
                raise PlatformExportError(
                    f"{self.root / 'app.json'}: variable agent_config_map is not valid JSON ({err.msg}) "
                    "— fix: write it as a JSON object of agent name to config id"
                ) from None
        if not isinstance(value, Mapping):
            raise PlatformExportError(
                f"{self.root / 'app.json'}: variable agent_config_map must be a JSON object, "
                f"got {type(value).__name__}"
            )
        return {str(k): str(v) for k, v in value.items()}


def find_app_dir(path: Path) -> Path:
    """The folder holding ``app.json``: ``path`` itself or its only subfolder that has one."""
    if (path / "app.json").is_file():
        return path
    if not path.is_dir():
        raise PlatformExportError(f"{path}: not a directory — fix: pass the unzipped app export folder")
    inner = [p for p in sorted(path.iterdir()) if p.is_dir() and (p / "app.json").is_file()]
    if len(inner) == 1:
        return inner[0]
    raise PlatformExportError(
        f"{path}: no app.json here or in a subfolder — fix: pass the folder of the unzipped app export"
    )


def _json(file: Path) -> dict[str, Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlatformExportError(f"{file}: file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise PlatformExportError(f"{file}: cannot be read ({err})") from None
    except json.JSONDecodeError as err:
        raise PlatformExportError(f"{file}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}") from None
    if not isinstance(data, dict):
        raise PlatformExportError(f"{file}: expected a JSON object, got {type(data).__name__}")
    return data


def _text(root: Path, relative: str, owner: Path) -> str:
    file = root / relative
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlatformExportError(f"{owner}: refers to {relative}, which does not exist") from None
    except (OSError, UnicodeDecodeError) as err:
        raise PlatformExportError(f"{file}: cannot be read ({err})") from None


def _string(data: Mapping[str, Any], key: str, file: Path) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise PlatformExportError(f"{file}: {key!r} is missing or not a string")
    return value


def _rel(root: Path, file: Path) -> str:
    return file.relative_to(root).as_posix()


def _variables(app: Mapping[str, Any], file: Path) -> tuple[AppVariable, ...]:
    found: list[AppVariable] = []
    declared = app.get("variableDeclarations") or []
    if not isinstance(declared, list):
        raise PlatformExportError(f"{file}: 'variableDeclarations' must be a list")
    for index, item in enumerate(declared):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise PlatformExportError(f"{file}: variableDeclarations[{index}] has no name")
        raw_schema = item.get("schema")
        schema: Mapping[str, Any] = raw_schema if isinstance(raw_schema, Mapping) else {}
        found.append(
            AppVariable(
                name=item["name"],
                type=str(schema.get("type", "STRING")),
                default=schema.get("default"),
                description=str(item.get("description", "")),
            )
        )
    return tuple(found)


def _tools(root: Path) -> dict[str, PlatformTool]:
    tools: dict[str, PlatformTool] = {}
    for file in sorted((root / "tools").glob("*/*.json")):
        data = _json(file)
        name = _string(data, "displayName", file)
        function = data.get("pythonFunction")
        if not isinstance(function, Mapping):
            # Other tool types (OpenAPI, client functions, ...) are kept with an empty code path; the
            # importer reports them as not mapped.
            tools[name] = PlatformTool(name, "", "", str(data.get("description", "")), _rel(root, file))
            continue
        tools[name] = PlatformTool(
            name=name,
            function=_string(function, "name", file),
            code=_string(function, "pythonCode", file),
            description=str(function.get("description", "")),
            source=_rel(root, file),
        )
    return tools


def _agents(root: Path) -> dict[str, PlatformAgent]:
    agents: dict[str, PlatformAgent] = {}
    for file in sorted((root / "agents").glob("*/*.json")):
        data = _json(file)
        name = _string(data, "displayName", file)
        instruction_path = data.get("instruction")
        instruction = (
            _text(root, instruction_path, file)
            if isinstance(instruction_path, str) and instruction_path
            else ""
        )
        callbacks: list[Callback] = []
        for kind in CALLBACK_KINDS:
            entries = data.get(_camel(kind)) or []
            for index, entry in enumerate(entries if isinstance(entries, list) else []):
                if not isinstance(entry, Mapping) or not isinstance(entry.get("pythonCode"), str):
                    raise PlatformExportError(f"{file}: {_camel(kind)}[{index}] has no pythonCode path")
                callbacks.append(
                    Callback(
                        kind=kind,
                        code=entry["pythonCode"],
                        description=str(entry.get("description", "")),
                        disabled=bool(entry.get("disabled", False)),
                    )
                )
        tools = data.get("tools") or []
        children = data.get("childAgents") or []
        agents[name] = PlatformAgent(
            name=name,
            folder=file.parent.name,
            instruction_path=instruction_path if isinstance(instruction_path, str) else "",
            instruction=instruction,
            tools=tuple(str(t) for t in tools) if isinstance(tools, list) else (),
            child_agents=tuple(str(c) for c in children) if isinstance(children, list) else (),
            callbacks=tuple(callbacks),
            description=str(data.get("description", "")),
            source=_rel(root, file),
        )
    return agents


def read_export(path: Path) -> PlatformApp:
    """Read the app export at ``path`` (the app folder or the folder that holds it)."""
    root = find_app_dir(Path(path)).resolve()
    app_file = root / "app.json"
    app = _json(app_file)
    local = root / "gecx-config.json"
    local_model = None
    if local.is_file():
        local_model = _json(local).get("model")
    raw_settings = app.get("modelSettings")
    model_settings: Mapping[str, Any] = raw_settings if isinstance(raw_settings, Mapping) else {}
    time_zone = (
        app.get("timeZoneSettings", {}).get("timeZone")
        if isinstance(app.get("timeZoneSettings"), Mapping)
        else None
    )

    def listing(pattern: str) -> tuple[str, ...]:
        return tuple(_rel(root, f) for f in sorted(root.glob(pattern)) if f.is_file())

    return PlatformApp(
        root=root,
        name=str(app.get("displayName") or root.name),
        root_agent=app.get("rootAgent") if isinstance(app.get("rootAgent"), str) else None,
        variables=_variables(app, app_file),
        tools=_tools(root),
        agents=_agents(root),
        evaluations=listing("evaluations/*/*.json"),
        datasets=listing("evaluationDatasets/*/*.json"),
        expectations=listing("evaluationExpectations/*/*.json"),
        tool_tests=listing("evals/tool_tests/*.yaml") + listing("evals/tool_tests/*.yml"),
        time_zone=time_zone if isinstance(time_zone, str) else None,
        model=str(model_settings.get("model") or local_model or "") or None,
        settings=app,
    )
