"""Errors and validation results of :mod:`slotgraph.config`.

Hierarchy::

    ConfigError                 (code "config_error") - base of every error raised by slotgraph.config
    ├── ConfigLoadError         (code "load_error")   - a file is missing, unreadable or not YAML/JSON
    └── ConfigValidationError   (code "invalid_config") - the config is readable but wrong; carries
                                                        every :class:`ConfigIssue` found in one pass

A :class:`ConfigIssue` is one problem: a stable ``code``, a ``location`` such as
``tasks[1].inputs[2]``, what is wrong (``message``) and how to fix it (``fix``). When the config was read
from a file, ``file``, ``line`` and ``column`` (1-based) say where the located node is in that file.
Validation never stops at the first problem; :class:`ValidationReport` holds them all, errors and warnings
apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from slotgraph.errors import SlotgraphError

__all__ = [
    "ConfigError",
    "ConfigIssue",
    "ConfigLoadError",
    "ConfigValidationError",
    "Severity",
    "ValidationReport",
]

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One problem found in a config. ``str()`` reads ``location: message — fix: fix``, preceded by
    ``file:line:column: `` when the config came from a file and the position is known."""

    code: str
    location: str
    message: str
    fix: str
    severity: Severity = "error"
    file: str | None = None
    """The file the config was read from (``None`` for a mapping passed in by a host)."""
    line: int | None = None
    """1-based line of the located node (or of its nearest existing ancestor) in ``file``."""
    column: int | None = None
    """1-based column of that node."""

    @property
    def position(self) -> str:
        """``file:line:column`` (or the parts known), ``""`` when the issue has no position."""
        if self.line is None:
            return self.file or ""
        head = f"{self.file}:" if self.file else ""
        return f"{head}{self.line}:{self.column}" if self.column is not None else f"{head}{self.line}"

    def __str__(self) -> str:
        where = self.location or "<config>"
        text = f"{where}: {self.message}"
        if self.line is not None:
            text = f"{self.position}: {text}"
        if self.fix:
            text += f" — fix: {self.fix}"
        return text

    def prefixed(self, prefix: str) -> ConfigIssue:
        """The same issue with ``prefix`` put in front of its location (``dag.`` for agent.yaml)."""
        location = f"{prefix}.{self.location}" if self.location else prefix
        return replace(self, location=location)


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The result of validating a config: every error and warning, in the order they were found."""

    errors: tuple[ConfigIssue, ...] = ()
    warnings: tuple[ConfigIssue, ...] = ()

    @classmethod
    def from_issues(cls, issues: Iterable[ConfigIssue]) -> ValidationReport:
        unique: dict[tuple[str, str, str, str], ConfigIssue] = {}
        for issue in issues:
            unique.setdefault((issue.severity, issue.code, issue.location, issue.message), issue)
        items = list(unique.values())
        return cls(
            errors=tuple(i for i in items if i.severity == "error"),
            warnings=tuple(i for i in items if i.severity == "warning"),
        )

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings are allowed)."""
        return not self.errors

    @property
    def issues(self) -> tuple[ConfigIssue, ...]:
        return self.errors + self.warnings

    def raise_for_errors(self, source: str | None = None) -> None:
        """Raise :class:`ConfigValidationError` listing every error, if there is any."""
        if self.errors:
            raise ConfigValidationError(self.errors, source=source)

    def __str__(self) -> str:
        if not self.issues:
            return "config is valid"
        return "\n".join(f"{i.severity}: {i}" for i in self.issues)


class ConfigError(SlotgraphError):
    """Base of every error raised by :mod:`slotgraph.config`; ``code`` is stable and machine-readable."""

    code: str = "config_error"

    def __init__(self, message: str, *, code: str | None = None, fix: str | None = None) -> None:
        super().__init__(message, fix=fix)
        if code is not None:
            self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigLoadError(ConfigError):
    """A config file could not be read or parsed (missing file, YAML/JSON syntax error, not a mapping)."""

    code = "load_error"


class ConfigValidationError(ConfigError):
    """The config was read but is invalid. ``issues`` holds every problem found, in one pass."""

    code = "invalid_config"

    def __init__(self, issues: Iterable[ConfigIssue], *, source: str | None = None) -> None:
        self.issues: tuple[ConfigIssue, ...] = tuple(issues)
        self.source = source
        count = len(self.issues)
        head = f"{count} problem{'s' if count != 1 else ''} in {source or 'the config'}:"
        fixes = {issue.fix for issue in self.issues if issue.fix}
        fix = next(iter(fixes)) if len(fixes) == 1 else "fix each problem listed (each one says how)"
        super().__init__("\n".join([head, *(f"  {issue}" for issue in self.issues)]), fix=fix)
