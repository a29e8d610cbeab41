"""Turning a PATH argument into a loaded agent or DAG definition, with the CLI's error policy.

A path that does not exist, or a directory without ``agent.yaml``, is a usage error (exit 2); a file that
exists but cannot be parsed or does not validate is an invalid config (exit 1).
"""

from __future__ import annotations

from pathlib import Path

from slotgraph.config import ConfigError, ConfigIssue, ConfigValidationError, Definition
from slotgraph.config.agent import AGENT_FILE, APP_FILE
from slotgraph.config.suggest import closest
from slotgraph.errors import SlotgraphError
from slotgraph.logic import load_definition

__all__ = ["InvalidConfig", "PathUsageError", "check_path_usage", "load_path"]

PATH_HELP = "an agent directory, an agent.yaml, or a DAG YAML/JSON file"


class PathUsageError(SlotgraphError):
    """The PATH argument does not point at anything loadable (exit 2)."""

    code = "path_usage"

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message, fix=fix)
        self.message = message


class InvalidConfig(SlotgraphError):
    """The config was found but is wrong (exit 1): every issue, or a single load message."""

    code = "invalid_config"

    def __init__(self, message: str, issues: tuple[ConfigIssue, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.issues = issues


_MAX_LISTED = 5


def _near_miss(path: Path) -> str:
    """`` (did you mean 'examples/bella_notte'?)`` for a path whose last part is mistyped, else ``""``."""
    parent = path.parent
    if not parent.is_dir():
        return ""
    try:
        entries = [entry.name for entry in parent.iterdir()]
    except OSError:
        return ""
    match = closest(path.name, entries)
    return f" (did you mean {str(parent / match)!r}?)" if match is not None else ""


def _agents_inside(path: Path) -> list[Path]:
    try:
        return sorted(p for p in path.iterdir() if (p / AGENT_FILE).is_file())
    except OSError:
        return []


def check_path_usage(path: Path) -> None:
    """Raise :class:`PathUsageError` if ``path`` is missing or is a directory without ``agent.yaml`` (or a
    multi-agent app's ``app.yaml``).

    A mistyped last part gets a did-you-mean; a directory of agents lists the agents in it.
    """
    if not path.exists():
        raise PathUsageError(f"{path}: no such file or directory{_near_miss(path)}", f"pass {PATH_HELP}")
    if path.is_dir() and not (path / AGENT_FILE).is_file() and not (path / APP_FILE).is_file():
        inside = _agents_inside(path)
        if inside:
            listed = ", ".join(str(p) for p in inside[:_MAX_LISTED]) + (
                ", …" if len(inside) > _MAX_LISTED else ""
            )
            fix = f"pass one of the agents in it: {listed}"
        else:
            fix = f"pass {PATH_HELP}, or add {path / AGENT_FILE}"
        raise PathUsageError(f"{path}: no {AGENT_FILE} in this directory", fix)


def load_path(path: Path) -> Definition:
    """Load ``path``; raise :class:`PathUsageError` or :class:`InvalidConfig` (never a config error).

    A multi-agent app directory is not one agent: the error names the agents in it."""
    check_path_usage(path)
    if path.is_dir() and not (path / AGENT_FILE).is_file() and (path / APP_FILE).is_file():
        inside = _agents_inside(path)
        listed = ", ".join(str(p) for p in inside[:_MAX_LISTED]) or "the agents its app.yaml lists"
        raise PathUsageError(
            f"{path}: a multi-agent app ({APP_FILE}), not one agent",
            f"pass one of its agents: {listed} (slotgraph validate, chat, serve and test take the app)",
        )
    try:
        return load_definition(path)
    except ConfigValidationError as err:
        raise InvalidConfig(str(err), err.issues) from None
    except ConfigError as err:
        raise InvalidConfig(err.message) from None
