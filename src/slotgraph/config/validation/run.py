"""The validation pass: structure first, then every semantic check on whatever is structurally usable."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, Final

from slotgraph.config.content import check_tree
from slotgraph.config.errors import ConfigIssue, ConfigValidationError, ValidationReport
from slotgraph.config.nodes import DagConfig
from slotgraph.config.validation.advisories import advisory_issues
from slotgraph.config.validation.phrasing import phrasing_issues
from slotgraph.config.validation.platform import platform_issues
from slotgraph.config.validation.references import reference_issues
from slotgraph.config.validation.setters import setter_issues
from slotgraph.config.validation.structure import structure_issues
from slotgraph.config.validation.texts import expression_issues, placeholder_issues
from slotgraph.config.validation.view import View

__all__ = ["SEMANTIC_CHECKS", "WARNING_ONLY_CHECKS", "validate_raw"]

Check = Callable[[View], Iterator[ConfigIssue]]

SEMANTIC_CHECKS: Final[tuple[Check, ...]] = (
    reference_issues,
    setter_issues,
    placeholder_issues,
    expression_issues,
    advisory_issues,
    phrasing_issues,
    platform_issues,
)
"""Every check after the structural one, in the order their issues are reported."""
WARNING_ONLY_CHECKS: Final[frozenset[Check]] = frozenset((advisory_issues, phrasing_issues))
"""The checks whose every issue is a warning: legal configs that are probably not what the author meant."""


def validate_raw(
    raw: Any,
    *,
    tool_names: Collection[str] | None = None,
    warnings: bool = True,
    _structure_valid: bool = False,
) -> ValidationReport:
    """Every error and warning of a raw DAG config, in one pass. Never raises for config problems.

    ``warnings=False`` leaves out the checks that can only warn (:data:`WARNING_ONLY_CHECKS`): the report
    has the same errors and fewer warnings. ``compile_config`` uses it, since it raises errors and drops
    warnings. ``_structure_valid``: the caller has just validated ``raw`` against :class:`DagConfig`
    successfully (so the structural pass, which would do the same, finds nothing); ``compile_config`` uses
    it to validate once.
    """
    if not isinstance(raw, Mapping):
        return ValidationReport.from_issues(
            [
                ConfigIssue(
                    "not_a_mapping",
                    "",
                    f"a DAG config must be a mapping with 'slots' and 'tasks', got {type(raw).__name__}",
                    "write the config as a mapping: {slots: [...], tasks: [...]}",
                )
            ]
        )
    try:  # a config too deep to walk, or holding itself, is reported before any check walks it
        check_tree(raw)
    except ConfigValidationError as err:
        return ValidationReport.from_issues(err.issues)
    issues: list[ConfigIssue] = [] if _structure_valid else list(structure_issues(raw, DagConfig))
    view = View(raw, None if tool_names is None else frozenset(tool_names))
    for check in SEMANTIC_CHECKS:
        if warnings or check not in WARNING_ONLY_CHECKS:
            issues.extend(check(view))
    return ValidationReport.from_issues(issues)
