"""Checks of text the engine interprets: ``{placeholders}`` in messages and response parts, conditions,
and readback formatters."""

from __future__ import annotations

import string
from collections.abc import Iterator, Mapping
from typing import Any

from slotgraph.config.conditions import condition_problem, likely_condition_fix
from slotgraph.config.errors import ConfigIssue
from slotgraph.config.extensions import is_extension_key
from slotgraph.config.formatters import formatter_problems
from slotgraph.config.suggest import closest, did_you_mean
from slotgraph.config.validation.view import View
from slotgraph.expr import ExpressionError

__all__ = ["expression_issues", "placeholder_issues"]

_PARSER = string.Formatter()
_RESPONSE_KEYS = ("response", "then_response", "retry_response", "error_responses")


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every string inside ``value`` (recursing into lists and mappings) with its location."""
    kind = type(value)
    if kind is str or isinstance(value, str):
        yield where, value
    elif kind is dict or (kind is not list and isinstance(value, Mapping)):  # (the Mapping ABC is slow)
        for key, item in value.items():
            if is_extension_key(key):
                continue
            yield from _strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def _exhaust_texts(block: Mapping[str, Any], where: str) -> Iterator[tuple[str, str]]:
    for key in ("say", "response", "channel_responses", "channel_response"):
        if key in block:
            yield from _strings(block[key], f"{where}.{key}")
    then = block.get("then")
    if isinstance(then, Mapping) and "args" in then:
        yield from _strings(then["args"], f"{where}.then.args")


_RESULT_TEXT_KEYS = ("then_say", "then_response", "channel_then_response")
"""Task texts rendered on success from filled values plus the task's whole result dict."""


def _texts(view: View) -> Iterator[tuple[str, str]]:
    for key in ("readback_response", "channel_readback_response"):
        if key in view.raw:
            yield from _strings(view.raw[key], key)
    for index, slot in view.slots:
        base = f"slots[{index}]"
        for key in ("ask", "message", "response", "channel_responses", "channel_response"):
            if key in slot:
                yield from _strings(slot[key], f"{base}.{key}")
        validation = View.mapping(slot.get("validation"))
        for key in ("errors", "error_responses", "channel_error_responses"):
            if key in validation:
                yield from _strings(validation[key], f"{base}.validation.{key}")
        yield from _exhaust_texts(View.mapping(validation.get("on_exhaust")), f"{base}.validation.on_exhaust")
    for index, task in view.tasks:
        base = f"tasks[{index}]"
        for key in _RESULT_TEXT_KEYS:
            if key in task:
                yield from _strings(task[key], f"{base}.{key}")
        failure = View.mapping(task.get("on_failure"))
        for key in ("retry_say", "retry_response", "channel_retry_response"):
            if key in failure:
                yield from _strings(failure[key], f"{base}.on_failure.{key}")
        yield from _exhaust_texts(View.mapping(failure.get("on_exhaust")), f"{base}.on_failure.on_exhaust")
    steer = View.mapping(view.raw.get("steer_back"))
    yield from _exhaust_texts(View.mapping(steer.get("on_exhaust")), "steer_back.on_exhaust")


def placeholder_issues(view: View) -> Iterator[ConfigIssue]:
    """``{name}`` must name a slot or a task result key; ``{{`` and ``}}`` are literal braces."""
    known = set(view.slot_index) | view.result_keys
    for where, text in _texts(view):
        if "{" not in text and "}" not in text:
            continue  # no placeholder, and no brace to be malformed
        try:
            fields = [name for _, name, _, _ in _PARSER.parse(text) if name is not None]
        except ValueError as err:
            yield ConfigIssue(
                "bad_placeholder",
                where,
                f"malformed placeholder in {text!r}: {err}",
                "write placeholders as {slot_name}; double the braces ({{ or }}) for a literal brace",
            )
            continue
        for name in fields:
            root = name.split(".", 1)[0].split("[", 1)[0]
            if not root or root.isdigit():
                yield ConfigIssue(
                    "bad_placeholder",
                    where,
                    f"positional placeholder {{{name}}} in {text!r}; placeholders are filled by slot name",
                    "write {slot_name}, or {{}} for literal braces",
                )
            elif root not in known and _is_result_text(where) and _not_a_typo(root, known):
                # The platform renders these from the task's whole result dict, whose fields cannot be
                # known at load time: legal, unless the name is close to a slot's (then it is a typo).
                yield ConfigIssue(
                    "result_placeholder",
                    where,
                    f"placeholder {{{root}}} names no slot and no declared output; it is filled from the "
                    f"task's result if the result has a field {root!r}",
                    "if the result has no such field, use a slot name; otherwise nothing to do",
                    severity="warning",
                )
            elif root not in known:
                yield ConfigIssue(
                    "unknown_placeholder",
                    where,
                    f"placeholder {{{root}}} names no slot and no task result key{did_you_mean(root, known)}",
                    "use the name of a slot (or a key of a task's outputs); write {{ }} for literal braces",
                )


def _not_a_typo(name: str, known: set[str]) -> bool:
    """Whether a result-text placeholder is no misspelling of a known name: nothing is close to it, or
    what is close is a whole word it extends (the result field ``symbolName`` next to the slot ``symbol``,
    ``price_usd`` next to ``price``) — a field named after the slot, not a slip of the keyboard."""
    near = closest(name, known)
    if near is None:
        return True
    rest = name[len(near) :]
    return name.lower().startswith(near.lower()) and bool(rest) and (rest[0].isupper() or rest[0] == "_")


def _is_result_text(where: str) -> bool:
    return where.startswith("tasks[") and where.split("]", 1)[1].lstrip(".").startswith(_RESULT_TEXT_KEYS)


def expression_issues(view: View) -> Iterator[ConfigIssue]:
    entries = [(f"slots[{i}]", s) for i, s in view.slots] + [(f"tasks[{i}]", t) for i, t in view.tasks]
    for base, entry in entries:
        if entry.get("condition") is None:
            continue
        problem = condition_problem(entry["condition"])
        if problem is None or (isinstance(problem, str) and "must be a string" in problem):
            continue  # a non-string is already reported as wrong_type by the structure check
        message = problem if isinstance(problem, str) else f"invalid condition: {problem.one_line()}"
        likely = likely_condition_fix(entry["condition"]) if isinstance(problem, ExpressionError) else None
        fix = (
            f"did you mean {likely!r}? (compare with ==, combine with and/or/not)"
            if likely is not None
            else "write a lambda such as \"lambda filled: int(filled.get('party_size', 0)) >= 5\" or an "
            'expression such as "party_size >= 5"'
        )
        yield ConfigIssue("invalid_condition", f"{base}.condition", message, fix)
    for index, slot in view.slots:
        spec = slot.get("readback_fmt")
        if spec is None or not isinstance(spec, str | Mapping):
            continue
        for code, sub, message, fix in formatter_problems(spec):
            yield ConfigIssue(code, f"slots[{index}].readback_fmt{sub}", message, fix)
