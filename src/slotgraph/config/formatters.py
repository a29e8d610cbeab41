"""Readback formatters: how a slot value is spoken back to the user (``readback_fmt``,
docs/config.md#readback-formatters).

A formatter is a callable ``value -> str`` that never raises. Specs:

- absent: the default formatter — ``True``/``False`` → ``"yes"``/``"no"``, ``None`` → ``"none"``, an
  integral float → its integer (``4.0`` → ``"4"``), anything else ``str(value)``;
- ``"date"``: ISO date or datetime → ``"on July 4th"``; anything unparseable → the value as text;
- ``"time"``: ``H:MM``, ``HH:MM``, ``HH:MM:SS`` → ``"at 7:30 PM"``; unparseable → the value as text;
- ``{"type": "prefix", "prefix": "under the name"}`` → ``"under the name Chen"`` (the original platform spells
  the field ``text``; both are accepted);
- ``{"type": "plural", "one": "guest", "other": "guests"}`` → ``"1 guest"`` / ``"4 guests"``;
- ``{"type": "none_sub", "text": "no special requests", "none_values": [...]}`` → the text when the value
  is none-like (``None``, ``""``, ``"none"``, ``"no"``, ...; case-insensitive), else the value. The original
  platform's spelling ``{"type": "none_sub", "default": "no special requests"}`` keeps its meaning: the text
  replaces a value only when ``str(value).lower()`` is exactly ``none``, ``no`` or ``nothing``;
- a lambda string (``"lambda v: f'custom {v}'"``) compiled by :func:`slotgraph.expr.compile_lambda`.

:func:`formatter_problems` lists what is wrong with a spec (used by validation); :func:`compile_formatter`
builds the callable and raises :class:`~slotgraph.config.errors.ConfigValidationError` on a bad spec.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from slotgraph.config.compiled import Formatter
from slotgraph.config.errors import ConfigIssue, ConfigValidationError
from slotgraph.config.extensions import is_extension_key
from slotgraph.config.suggest import did_you_mean
from slotgraph.expr import ExpressionError, compile_lambda

__all__ = [
    "BUILTIN_FORMATTERS",
    "DEFAULT_NONE_VALUES",
    "DICT_FORMATTER_KEYS",
    "PLATFORM_NONE_VALUES",
    "PLATFORM_SPELLINGS",
    "compile_formatter",
    "default_formatter",
    "format_date",
    "format_time",
    "formatter_problems",
    "is_lambda_source",
]

DEFAULT_NONE_VALUES: Final = ("", "none", "no", "n/a", "na", "nothing", "null", "nil", "-", "no thanks")
"""Values (compared stripped and case-insensitively) that ``none_sub`` replaces; ``None`` always counts."""

DICT_FORMATTER_KEYS: Final[Mapping[str, tuple[frozenset[str], frozenset[str]]]] = {
    # type: (required keys, optional keys) besides "type"
    "prefix": (frozenset({"prefix"}), frozenset()),
    "plural": (frozenset({"one", "other"}), frozenset()),
    "none_sub": (frozenset({"text"}), frozenset({"none_values"})),
}

PLATFORM_SPELLINGS: Final[Mapping[str, Mapping[str, str]]] = {
    # type: {platform spelling: Slotgraph key}
    "prefix": {"text": "prefix"},
    "none_sub": {"default": "text"},
}
"""Field names the original platform uses in dict formatters, accepted beside Slotgraph's."""

PLATFORM_NONE_VALUES: Final = frozenset({"none", "no", "nothing"})
"""What the platform's ``none_sub`` (``default`` spelling) replaces: ``str(value).lower()``, exactly."""

_MONTHS: Final = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_TIME: Final = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$")
_LAMBDA: Final = re.compile(r"^\s*lambda\b")


def is_lambda_source(src: str) -> bool:
    """True when a config string is a lambda (``lambda filled: ...``) rather than a plain expression."""
    return bool(_LAMBDA.match(src))


def default_formatter(value: Any) -> str:
    """The formatter of a slot without ``readback_fmt``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def format_date(value: Any) -> str:
    """``"2026-07-04"`` → ``"on July 4th"``; ISO datetimes and date objects too; else the value as text."""
    day: dt.date | None = None
    if isinstance(value, dt.date):
        day = value
    elif isinstance(value, str):
        text = value.strip()
        for parse in (dt.date.fromisoformat, dt.datetime.fromisoformat):
            try:
                day = parse(text)
                break
            except ValueError:
                continue
    if day is None:
        return default_formatter(value)
    return f"on {_MONTHS[day.month - 1]} {_ordinal(day.day)}"


def format_time(value: Any) -> str:
    """``"19:30"`` → ``"at 7:30 PM"``, ``"00:15"`` → ``"at 12:15 AM"``; else the value as text."""
    hour: int
    minute: int
    if isinstance(value, dt.time | dt.datetime):
        hour, minute = value.hour, value.minute
    else:
        match = _TIME.match(value) if isinstance(value, str) else None
        if match is None:
            return default_formatter(value)
        hour, minute = int(match.group(1)), int(match.group(2))
        second = int(match.group(3) or 0)
        if hour > 23 or minute > 59 or second > 59:
            return default_formatter(value)
    meridiem = "AM" if hour < 12 else "PM"
    return f"at {(hour % 12) or 12}:{minute:02d} {meridiem}"


_BUILTINS: Final[Mapping[str, Formatter]] = {"date": format_date, "time": format_time}
BUILTIN_FORMATTERS: Final = frozenset(_BUILTINS)


@dataclass(frozen=True, slots=True)
class _Prefix:
    prefix: str

    def __call__(self, value: Any) -> str:
        return f"{self.prefix} {default_formatter(value)}".strip()


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


@dataclass(frozen=True, slots=True)
class _Plural:
    one: str
    other: str

    def __call__(self, value: Any) -> str:
        number = _as_number(value)
        if number is None:
            return default_formatter(value)
        noun = self.one if number == 1 else self.other
        return f"{default_formatter(number)} {noun}"


@dataclass(frozen=True, slots=True)
class _NoneSub:
    text: str
    none_values: frozenset[str]

    def __call__(self, value: Any) -> str:
        if value is None or (isinstance(value, str) and value.strip().lower() in self.none_values):
            return self.text
        return default_formatter(value)


@dataclass(frozen=True, slots=True)
class _PlatformNoneSub:
    """The platform's ``none_sub``: exact match of ``str(value).lower()`` (no trimming)."""

    text: str

    def __call__(self, value: Any) -> str:
        if str(value).lower() in PLATFORM_NONE_VALUES:
            return self.text
        return default_formatter(value)


@dataclass(frozen=True, slots=True)
class _Lambda:
    fn: Callable[[Any], Any]

    def __call__(self, value: Any) -> str:
        try:
            result = self.fn(value)
        except Exception:  # a formatter never raises: fall back to the plain value
            return default_formatter(value)
        return result if isinstance(result, str) else default_formatter(result)


class _Safe:
    """A built-in formatter that never raises (a class, not a closure: compiled, a closure and its
    environment refer to each other, a cycle only the garbage collector frees)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Formatter) -> None:
        self.fn = fn

    def __call__(self, value: Any) -> str:
        try:
            return self.fn(value)
        except Exception:  # defensive: built-ins are total, but a formatter must never raise
            return str(value)


def _safe(fn: Formatter) -> Formatter:
    return _Safe(fn)


def formatter_problems(spec: Any) -> list[tuple[str, str, str, str]]:
    """Problems of a ``readback_fmt`` spec as ``(code, sub_location, message, fix)``; empty if valid."""
    if spec is None:
        return []
    if isinstance(spec, str):
        if is_lambda_source(spec):
            try:
                compile_lambda(spec)
            except ExpressionError as err:
                return [
                    (
                        "invalid_formatter",
                        "",
                        f"lambda formatter does not compile: {err.one_line()}",
                        "write a one-parameter lambda such as \"lambda v: f'{v} guests'\"",
                    )
                ]
            return []
        if spec in _BUILTINS:
            return []
        names = ", ".join(sorted(_BUILTINS))
        return [
            (
                "unknown_formatter",
                "",
                f"unknown readback formatter {spec!r}{did_you_mean(spec, _BUILTINS)}",
                f"use a built-in ({names}), a dict spec (prefix, plural, none_sub) or a lambda string",
            )
        ]
    if not isinstance(spec, Mapping):
        return [
            (
                "invalid_formatter",
                "",
                f"readback_fmt must be a string or a mapping, got {type(spec).__name__}",
                'use "date", "time", a dict spec such as {type: plural, one: guest, other: guests}, '
                "or a lambda string",
            )
        ]
    kind = spec.get("type")
    if not isinstance(kind, str) or kind not in DICT_FORMATTER_KEYS:
        types = ", ".join(sorted(DICT_FORMATTER_KEYS))
        hint = did_you_mean(kind, DICT_FORMATTER_KEYS) if isinstance(kind, str) else ""
        what = "is missing its 'type'" if kind is None else f"has unknown type {kind!r}{hint}"
        return [("unknown_formatter", ".type", f"readback formatter {what}", f"set type to one of: {types}")]
    required, optional = DICT_FORMATTER_KEYS[kind]
    problems: list[tuple[str, str, str, str]] = []
    spellings = PLATFORM_SPELLINGS.get(kind, {})
    for platform_key, key in spellings.items():
        if platform_key in spec and key in spec:
            problems.append(
                (
                    "invalid_formatter",
                    f".{platform_key}",
                    f"{kind!r} formatter sets both {key!r} and its platform spelling {platform_key!r}",
                    f"keep one of them ({key} is Slotgraph's spelling)",
                )
            )
    spec = {spellings.get(k, k) if isinstance(k, str) else k: v for k, v in spec.items()}
    for key in sorted(required - spec.keys()):
        problems.append(
            (
                "invalid_formatter",
                "",
                f"{kind!r} formatter is missing {key!r}",
                f"add {key}: <text> (a {kind} formatter needs {', '.join(sorted(required))})",
            )
        )
    allowed = required | optional | {"type"}
    for key in spec:
        if key not in allowed and not is_extension_key(key):
            problems.append(
                (
                    "invalid_formatter",
                    f".{key}",
                    f"unknown key {key!r} in a {kind!r} formatter{did_you_mean(str(key), allowed)}",
                    f"allowed keys: {', '.join(sorted(allowed))}",
                )
            )
    for key in sorted(required & spec.keys()):
        if not isinstance(spec[key], str):
            problems.append(
                (
                    "invalid_formatter",
                    f".{key}",
                    f"{key!r} must be text, got {type(spec[key]).__name__}",
                    f"write {key} as a string",
                )
            )
    none_values = spec.get("none_values")
    if none_values is not None and not (
        isinstance(none_values, list) and all(isinstance(v, str) for v in none_values)
    ):
        problems.append(
            (
                "invalid_formatter",
                ".none_values",
                "none_values must be a list of strings",
                "write none_values: [none, 'n/a', nothing]",
            )
        )
    return problems


def compile_formatter(spec: Any, *, location: str = "readback_fmt") -> Formatter:
    """The callable for a ``readback_fmt`` spec; raises ConfigValidationError listing what is wrong."""
    if spec is None:
        return default_formatter
    if isinstance(spec, str):  # the valid string forms first: checking them is building them
        if not is_lambda_source(spec):
            if spec in _BUILTINS:
                return _safe(_BUILTINS[spec])
        else:
            try:
                return _Lambda(compile_lambda(spec))
            except ExpressionError:
                pass  # worded by formatter_problems, as for every other invalid spec
    problems = formatter_problems(spec)
    if problems:
        raise ConfigValidationError(
            ConfigIssue(code, location + sub, message, fix) for code, sub, message, fix in problems
        )
    if spec is None:
        return default_formatter
    if isinstance(spec, str):
        if is_lambda_source(spec):
            return _Lambda(compile_lambda(spec))
        return _safe(_BUILTINS[spec])
    kind = spec["type"]
    if kind == "prefix":
        return _safe(_Prefix(spec["prefix"] if "prefix" in spec else spec["text"]))
    if kind == "plural":
        return _safe(_Plural(spec["one"], spec["other"]))
    if "default" in spec:
        return _safe(_PlatformNoneSub(spec["default"]))
    values = spec.get("none_values")
    none_values = DEFAULT_NONE_VALUES if values is None else tuple(values)
    return _safe(_NoneSub(spec["text"], frozenset(v.strip().lower() for v in none_values)))
