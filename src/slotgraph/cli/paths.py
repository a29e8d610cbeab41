"""Turning a PATH argument into a loaded agent or DAG definition, with the CLI's error policy.

A path that does not exist, or a directory without ``agent.yaml``, is a usage error (exit 2); a file that
exists but cannot be parsed or does not validate is an invalid config (exit 1).
"""

from __future__ import annotations

from pathlib import Path

from slotgraph.config import ConfigError, ConfigIssue, ConfigValidationError, Definition
from slotgraph.config.agent import AGENT_FILE
from slotgraph.logic import load_definition

__all__ = ["InvalidConfig", "PathUsageError", "check_path_usage", "load_path"]

PATH_HELP = "an agent directory, an agent.yaml, or a DAG YAML/JSON file"


class PathUsageError(Exception):
    """The PATH argument does not point at anything loadable (exit 2)."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix


class InvalidConfig(Exception):
    """The config was found but is wrong (exit 1): every issue, or a single load message."""

    def __init__(self, message: str, issues: tuple[ConfigIssue, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.issues = issues


def check_path_usage(path: Path) -> None:
    """Raise :class:`PathUsageError` if ``path`` is missing or is a directory without ``agent.yaml``."""
    if not path.exists():
        raise PathUsageError(f"{path}: no such file or directory", f"pass {PATH_HELP}")
    if path.is_dir() and not (path / AGENT_FILE).is_file():
        raise PathUsageError(
            f"{path}: no {AGENT_FILE} in this directory", f"pass {PATH_HELP}, or add {path / AGENT_FILE}"
        )


def load_path(path: Path) -> Definition:
    """Load ``path``; raise :class:`PathUsageError` or :class:`InvalidConfig` (never a config error)."""
    check_path_usage(path)
    try:
        return load_definition(path)
    except ConfigValidationError as err:
        raise InvalidConfig(str(err), err.issues) from None
    except ConfigError as err:
        raise InvalidConfig(err.message) from None
