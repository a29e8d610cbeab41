"""``slotgraph validate`` on workflow files: a YAML/JSON file with top-level ``workflow:`` and ``stages:``."""

from __future__ import annotations

from pathlib import Path

from slotgraph.config import ConfigError, ConfigIssue, ValidationReport
from slotgraph.config.agent import AGENT_FILE
from slotgraph.config.loader import read_document

__all__ = ["is_workflow_file", "validate_workflow_file"]


def is_workflow_file(path: Path) -> bool:
    """True when ``path`` is a readable YAML/JSON file declaring a workflow (never raises)."""
    if not path.is_file() or path.name in (AGENT_FILE, "agent.yml"):
        return False
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return False
    from slotgraph.workflow import is_workflow_document

    try:
        return is_workflow_document(read_document(path))
    except ConfigError:
        return False


def validate_workflow_file(path: Path) -> tuple[int, ValidationReport]:
    """``(number of stages, report)``; a load error becomes a one-issue report."""
    from slotgraph.workflow import validate_workflow

    try:
        workflow, report = validate_workflow(path)
    except ConfigError as err:
        return 0, ValidationReport((ConfigIssue("load_error", "", err.message, "correct the file"),))
    return (len(workflow.stages) if workflow is not None else 0), report
