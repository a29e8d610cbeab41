"""Publish-time checks of an agent's logic, with locations like every other config issue.

Errors (the agent does not load): an expression that does not parse (a rule ``condition``, a
``set_variable`` value, a ``run_tool`` argument, a ``#when`` condition, a ``{{set}}``/``{{= }}``/``{{run}}``
expression); a write to a linked variable (``set_variable``, ``run_tool`` captures, ``transition`` when
``current_topic`` is linked, ``{{set}}`` targets and ``{{run ... set}}`` captures); an unbalanced ``#when``;
a malformed prompt-program statement; an ``output_path`` outside a ``tool_result`` rule; a ``tool`` filter
outside ``tool_result`` or a ``variable`` filter outside ``variable_changed``; two variables of one name;
a ``run`` of a tool the agent does not have, or of a DAG task's executor (only the engine runs those);
a ``tool_logic`` entry for a tool the agent does not have (``unknown_tool``) or for a DAG task's executor
(``executor_gate``: gates apply to the model's and the logic layer's calls), an ``available_when`` that does
not parse, a ``capture`` into a linked variable or with a bad path, a ``bind``/``merge_bind`` of the same
parameter (``bind_conflict``); a response guard's ``pattern`` that is not a regular expression or ``code``
that does not parse; an expression that fails every time it runs by the declared types of its variables
(``expression_type_error``); a write to a capability-published variable (``published_write``) and a
``published_by`` naming a tool the agent does not have; an ``end_session.params_fields`` name that is not an
identifier (``bad_field_name``); a safety check naming an unknown profile or without ``safety:``
(``unknown_safety_profile``, ``no_safety_classifier``), a profile blocking a category outside the taxonomy
(``unknown_category``), the offline model as the classifier (``not_a_classifier``); two hand-off
destinations of one id (``duplicate_destination``) and an agent tool named ``start_consult`` beside
``handoff:`` (``reserved_tool``).

Warnings (the agent loads): a name that is read or written but neither declared nor provided by the
runtime — session variables are sparse by design, so this is most often a typo, but not always; an LLM
judge that would use the offline model (``offline_judge``).

:func:`logic_issues` is the check :func:`slotgraph.logic.load_definition` plugs into
:func:`slotgraph.config.load_definition`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from slotgraph.config import ConfigIssue
from slotgraph.config.logic import (
    LLAMA_GUARD_CATEGORIES,
    ExtractionConfig,
    HandoffConfig,
    LlmCondition,
    ResponseGuardConfig,
    RuleConfig,
    SafetyConfig,
    TopicConfig,
    VariableDeclaration,
)
from slotgraph.config.suggest import did_you_mean
from slotgraph.config.tool_logic import IDENTIFIER, ToolLogicConfig
from slotgraph.expr import ExpressionError, parse_output_path
from slotgraph.expr.typecheck import TYPE_OF_DECLARED, type_problems
from slotgraph.logic.templates import (
    Template,
    TemplateIssue,
    compile_logic_expression,
    expression_names,
    parse_template,
)
from slotgraph.names import READBACK_TOOLS, SESSION_ENDING_TOOLS, SET_VARIABLES, START_CONSULT

__all__ = ["BUILTIN_NAMES", "logic_issues", "template_issues"]

BUILTIN_NAMES: Final = frozenset(
    {"filled", "status", "current_phase", "session_id", "channel", "current_topic", "result"}
)
"""Names the runtime provides to every expression (slot-filling facts and session metadata)."""

BUILTIN_TYPES: Final[Mapping[str, str]] = {
    "filled": "dict",
    "status": "str",
    "current_phase": "str",
    "session_id": "str",
    "channel": "str",
    "current_topic": "str",
}
"""The type of the names the runtime provides, where it is fixed (``result`` is whatever a tool returned)."""

_TYPE_FIX: Final = "compare instead of combining (verified == True), or fix the operand or its declared type"

_BUILTIN_TOOLS: Final = SESSION_ENDING_TOOLS | READBACK_TOOLS | {SET_VARIABLES}


class _Checker:
    def __init__(
        self,
        tool_names: frozenset[str] | None,
        executors: frozenset[str] = frozenset(),
        agent_model: str = "offline",
    ) -> None:
        self.executors = executors
        self.agent_model = agent_model
        self.issues: list[ConfigIssue] = []
        self.declared: dict[str, VariableDeclaration] = {}
        self.tool_names = tool_names | _BUILTIN_TOOLS if tool_names is not None else None
        self.reads: list[tuple[str, str, ConfigIssue | None]] = []
        self.writes: set[str] = set()
        self.warned: set[tuple[str, str]] = set()

    def error(self, code: str, location: str, message: str, fix: str) -> None:
        self.issues.append(ConfigIssue(code, location, message, fix))

    def condition(self, source: Any, location: str, what: str) -> None:
        """A condition: an expression (checked as one), or an LLM judge (``{kind: llm}``)."""
        if isinstance(source, LlmCondition):
            self.judge(source.model, location)
        else:
            self.expression(source, location, what)

    def judge(self, model: str | None, location: str) -> None:
        """An LLM judge with the agent's model: the offline model cannot judge, so it never decides."""
        if model is None and self.agent_model.split(":", 1)[0] == "offline":
            self.issues.append(
                ConfigIssue(
                    "offline_judge",
                    location,
                    "this LLM judge uses the agent's model, the offline model, which cannot judge: it never "
                    "decides, so the check fails as its policy says (closed for a gate or a topic entry)",
                    "give the judge a model (model: openai:gpt-4o-mini), or the agent a model that can judge",
                    severity="warning",
                )
            )

    def types(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The names whose type is known: the runtime's typed names, then the declared mutable variables
        (a linked one reads whatever its fact holds, so it is unknown), then ``extra``."""
        known = dict(BUILTIN_TYPES)
        for name, declaration in self.declared.items():
            kind = TYPE_OF_DECLARED.get(declaration.type)
            if kind is not None and declaration.mutable:
                known[name] = kind
            else:
                known.pop(name, None)
        return {**known, **(extra or {})}

    def expression(
        self, source: Any, location: str, what: str, *, types: Mapping[str, str] | None = None
    ) -> None:
        if not isinstance(source, str):
            return  # the structure check reports the type
        try:
            compiled = compile_logic_expression(source)
        except ExpressionError as err:
            self.error(
                "bad_expression",
                location,
                f"{what} {source.strip()!r:.80}: {err.one_line()}",
                "fix the expression (see docs/expressions.md for the grammar)",
            )
            return
        for name in expression_names(compiled):
            self.reads.append((name, location, None))
        for problem in type_problems(compiled.source, self.types(types)):
            self.error(
                "expression_type_error",
                location,
                f"{what} {source.strip()!r:.80}: {problem}, so it fails every time it is evaluated (by the "
                "declared types of its variables)",
                _TYPE_FIX,
            )

    def write(self, name: str, location: str, what: str) -> None:
        self.writes.add(name)
        self.undeclared_write(name, location)
        declaration = self.declared.get(name)
        if declaration is not None and declaration.linked_to is not None:
            self.error(
                "linked_write",
                location,
                f"{what} writes {name!r}, which is linked to {declaration.linked_to!r} (read-only)",
                f"write another variable, or remove linked_to from {name!r} to make it mutable",
            )
        self.published_write(name, location, what)

    def published_write(self, name: str, location: str, what: str) -> ConfigIssue | None:
        declaration = self.declared.get(name)
        published = declaration.published_by if declaration is not None else None
        if published is None:
            return None
        issue = ConfigIssue(
            "published_write",
            location,
            f"{what} writes {name!r}, which {' and '.join(published.tools)} publish: only their results "
            "write it",
            f"write another variable, or remove published_by from {name!r}",
        )
        self.issues.append(issue)
        return issue

    def undeclared_write(self, name: str, location: str) -> None:
        if name in self.declared or name in BUILTIN_NAMES or (name, location) in self.warned:
            return
        self.warned.add((name, location))
        self.issues.append(
            ConfigIssue(
                "undeclared_name",
                location,
                f"{name!r} is written but not declared, so its type is not checked",
                f"declare it under variables: (name: {name}, type, description), or fix the name",
                severity="warning",
            )
        )

    def tool(self, name: str, location: str, *, runs: bool = True) -> None:
        if runs and name in self.executors:
            self.error(
                "executor_run",
                location,
                f"{name!r} is a DAG task's executor; only the engine runs it",
                "let the DAG fire the task, or run another tool",
            )
            return
        if self.tool_names is not None and name not in self.tool_names:
            self.error(
                "unknown_tool",
                location,
                f"there is no tool named {name!r}",
                "define it in the tools module or fix the name",
            )

    def path(self, path: str, location: str, what: str) -> None:
        try:
            parse_output_path(path)
        except ExpressionError as err:
            self.error("bad_path", location, f"{what}: {err.one_line()}", "write a path like $.data.code")


def _template_issue(
    issue: TemplateIssue, location: str, file: Path | None, severity: str = "error"
) -> ConfigIssue:
    if file is not None:
        return ConfigIssue(
            issue.code,
            location,
            issue.message,
            issue.fix or "fix the template",
            severity="warning" if severity == "warning" else "error",
            file=str(file),
            line=issue.line,
            column=issue.column,
        )
    return ConfigIssue(
        issue.code,
        location,
        f"line {issue.line}, column {issue.column} of the text: {issue.message}",
        issue.fix or "fix the template",
        severity="warning" if severity == "warning" else "error",
    )


def template_issues(template: Template, location: str, file: Path | None = None) -> list[ConfigIssue]:
    """The parse problems of a template as config issues (positions in ``file`` when it has its own)."""
    return [_template_issue(issue, location, file) for issue in template.issues]


def _check_template(
    checker: _Checker, text: str, location: str, file: Path | None, *, statements: bool = True
) -> None:
    template = parse_template(text)
    checker.issues.extend(template_issues(template, location, file))
    for name, line in template.names_written():
        declaration = checker.declared.get(name)
        checker.writes.add(name)
        checker.undeclared_write(name, location)
        published = declaration.published_by if declaration is not None else None
        if published is not None:
            issue = TemplateIssue(
                "published_write",
                f"a prompt statement writes {name!r}, which {' and '.join(published.tools)} publish: only "
                "their results write it",
                line,
                1,
                fix=f"write another variable, or remove published_by from {name!r}",
            )
            checker.issues.append(_template_issue(issue, location, file))
        if declaration is not None and declaration.linked_to is not None:
            issue = TemplateIssue(
                "linked_write",
                f"a prompt statement writes {name!r}, which is linked to {declaration.linked_to!r} "
                "(read-only)",
                line,
                1,
                fix=f"write another variable, or remove linked_to from {name!r}",
            )
            checker.issues.append(_template_issue(issue, location, file))
    for run in template.runs():
        checker.tool(run.tool, location)
    for expression, line in template.expressions():
        for problem in type_problems(expression.source, checker.types()):
            issue = TemplateIssue(
                "expression_type_error",
                f"{expression.source!r:.80}: {problem}, so it fails every time it is evaluated (by the "
                "declared types of its variables)",
                line,
                1,
                fix=_TYPE_FIX,
            )
            checker.issues.append(_template_issue(issue, location, file))
    for name in template.names_read():
        checker.reads.append((name, location, None))
    if not statements and (template.runs() or template.names_written()):
        checker.error(
            "statement_not_allowed",
            location,
            "prompt-program statements ({{run}}, {{set}}) are not run in an injected instruction",
            "use set_variable / run_tool actions instead",
        )


def _check_rule(checker: _Checker, rule: RuleConfig, at: str) -> None:
    if rule.tool is not None and rule.trigger != "tool_result":
        checker.error(
            "misplaced_key",
            f"{at}.tool",
            f"'tool' filters tool_result rules; this rule's trigger is {rule.trigger}",
            "remove 'tool' or use trigger: tool_result",
        )
    if rule.tool is not None:
        checker.tool(rule.tool, f"{at}.tool", runs=False)
    if rule.variable is not None and rule.trigger != "variable_changed":
        checker.error(
            "misplaced_key",
            f"{at}.variable",
            f"'variable' filters variable_changed rules; this rule's trigger is {rule.trigger}",
            "remove 'variable' or use trigger: variable_changed",
        )
    if rule.variable is not None:
        checker.reads.append((rule.variable, f"{at}.variable", None))
    if rule.condition is not None:
        checker.condition(rule.condition, f"{at}.condition", "rule condition")
    for index, action in enumerate(rule.actions):
        where = f"{at}.actions[{index}]"
        if action.set_variable is not None:
            spec = action.set_variable
            checker.write(spec.variable, f"{where}.set_variable.variable", "set_variable")
            if spec.value is not None:
                checker.expression(spec.value, f"{where}.set_variable.value", "set_variable value")
            if spec.output_path is not None:
                if rule.trigger != "tool_result":
                    checker.error(
                        "output_path_outside_tool_result",
                        f"{where}.set_variable.output_path",
                        f"output_path reads a tool result, but this rule's trigger is {rule.trigger}",
                        "use trigger: tool_result, or a 'value' expression instead",
                    )
                checker.path(spec.output_path, f"{where}.set_variable.output_path", "output_path")
        elif action.run_tool is not None:
            run = action.run_tool
            checker.tool(run.tool, f"{where}.run_tool.tool")
            for name, source in run.args.items():
                checker.expression(source, f"{where}.run_tool.args.{name}", f"argument {name}")
            for variable, path in run.capture.items():
                checker.write(variable, f"{where}.run_tool.capture.{variable}", "run_tool capture")
                checker.path(path, f"{where}.run_tool.capture.{variable}", f"capture {variable}")
        elif action.inject_instruction is not None:
            _check_template(
                checker,
                action.inject_instruction.text,
                f"{where}.inject_instruction.text",
                None,
                statements=False,
            )
        elif action.transition is not None:
            checker.write("current_topic", f"{where}.transition", "transition")


def _check_tool_logic(checker: _Checker, raw: Any) -> None:
    if not isinstance(raw, Mapping):
        return
    for tool, entry in raw.items():
        at = f"tool_logic.{tool}"
        if isinstance(entry, Mapping):
            both = sorted(set(entry.get("bind") or {}) & set(entry.get("merge_bind") or {}))
            for param in both:
                checker.error(
                    "bind_conflict",
                    f"{at}.merge_bind.{param}",
                    f"{param!r} is in both 'bind' and 'merge_bind'",
                    "a parameter is either replaced (bind) or supplemented (merge_bind): keep one",
                )
        try:
            config = ToolLogicConfig.model_validate(entry)
        except ValidationError:
            continue  # the structure check reports it, with its location
        if str(tool) in checker.executors:
            checker.error(
                "executor_gate",
                at,
                f"{tool!r} is a DAG task's executor: only the engine calls it, so a gate would never apply",
                "gate the tools the model or rules call, or use the task's condition in the DAG",
            )
        else:
            checker.tool(str(tool), at, runs=False)
        if config.available_when is not None:
            checker.condition(config.available_when, f"{at}.available_when", "available_when")
        for mode in ("bind", "merge_bind"):
            for param, source in getattr(config, mode).items():
                if source.kind == "variable" and source.name is not None:
                    checker.reads.append((source.name, f"{at}.{mode}.{param}.name", None))
        for variable, path in config.capture.items():
            checker.write(variable, f"{at}.capture.{variable}", "capture")
            checker.path(path, f"{at}.capture.{variable}", f"capture {variable}")
        if config.receipt is not None:
            checker.tool(config.receipt.reader, f"{at}.receipt.reader", runs=False)


def _check_topics(checker: _Checker, raw: Mapping[str, Any]) -> None:
    topics = _valid_items(raw.get("topics"), TopicConfig)
    seen: set[str] = set()
    for index, topic in topics:
        at = f"topics[{index}]"
        if topic.id in seen:
            checker.error("duplicate_topic", f"{at}.id", f"topic {topic.id!r} is declared twice", "keep one")
        seen.add(topic.id)
        for key in ("entry_when", "return_when"):
            source = getattr(topic, key)
            if source is not None:
                checker.condition(source, f"{at}.{key}", key)
        if topic.instruction is not None:
            _check_template(checker, topic.instruction, f"{at}.instruction", None)
        if topic.control == "transfer" and topic.return_when is not None:
            checker.issues.append(
                ConfigIssue(
                    "dead_return_when",
                    f"{at}.return_when",
                    f"topic {topic.id!r} is a transfer (it clears the way back): its return_when never "
                    "applies",
                    "use control: refer, or remove return_when",
                    severity="warning",
                )
            )
    if not topics:
        return
    for index, rule in _valid_items(raw.get("rules"), RuleConfig):
        for n, action in enumerate(rule.actions):
            target = action.transition.topic if action.transition is not None else None
            if target is not None and target not in seen and target != "__return__":
                checker.error(
                    "unknown_topic",
                    f"rules[{index}].actions[{n}].transition",
                    f"there is no topic {target!r}",
                    f"use one of {', '.join(sorted(seen))} or __return__",
                )


def _check_builtin_tools(checker: _Checker, raw: Any) -> None:
    ending = raw.get("end_session") if isinstance(raw, Mapping) else None
    fields = ending.get("params_fields") if isinstance(ending, Mapping) else None
    for name in fields if isinstance(fields, Mapping) else ():
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            checker.error(
                "bad_field_name",
                f"builtin_tools.end_session.params_fields.{name}",
                f"{name!r} is not a field name: the model writes it as a key of end_session's params",
                "use letters, digits and _ (not starting with a digit), e.g. EscalationReason",
            )


def _check_guard(checker: _Checker, guard: ResponseGuardConfig, at: str) -> None:
    check = guard.check
    if check.pattern is not None:
        try:
            re.compile(check.pattern)
        except re.error as err:
            checker.error(
                "bad_pattern",
                f"{at}.check.pattern",
                f"the guard's pattern {check.pattern!r:.80} is not a valid regular expression: {err}",
                "fix the regular expression (Python re syntax; escape . ? ( with a backslash)",
            )
    if check.llm is not None:
        checker.judge(check.model, f"{at}.check.llm")
    if check.code is not None:
        before = len(checker.reads)
        checker.expression(check.code, f"{at}.check.code", "guard check", types={"text": "str"})
        # `text` (the sentence being checked) is the guard's own name, never a session variable
        checker.reads[before:] = [read for read in checker.reads[before:] if read[0] != "text"]


def _check_extraction(checker: _Checker, raw: Mapping[str, Any]) -> None:
    eligible = [name for name, d in checker.declared.items() if d.extraction]
    config: ExtractionConfig | None = None
    try:
        config = ExtractionConfig.model_validate(raw["extraction"]) if raw.get("extraction") else None
    except ValidationError:
        return  # the structure check reports it, with its location
    if eligible and config is None:
        items = raw.get("variables") or []
        index = next(i for i, d in enumerate(items) if isinstance(d, Mapping) and d.get("extraction") is True)
        checker.error(
            "no_extractor",
            f"variables[{index}].extraction",
            f"{', '.join(eligible)} {'is' if len(eligible) == 1 else 'are'} filled by background extraction, "
            "but the agent names no extractor",
            "add extraction: {tool: <your extractor tool>} to agent.yaml, or remove extraction: true",
        )
    if config is not None:
        checker.tool(config.tool, "extraction.tool")
        if not eligible:
            checker.issues.append(
                ConfigIssue(
                    "nothing_to_extract",
                    "extraction",
                    "no variable is declared with extraction: true, so the extractor never runs",
                    "mark the variables extraction should fill with extraction: true, or remove extraction",
                    severity="warning",
                )
            )


def _check_safety(checker: _Checker, raw: Mapping[str, Any]) -> None:
    """``safety:`` and the checks that use it: known profiles, known categories, a classifier that can
    classify."""
    config: SafetyConfig | None = None
    try:
        config = SafetyConfig.model_validate(raw["safety"]) if raw.get("safety") is not None else None
    except ValidationError:
        return  # the structure check reports it, with its location
    if config is not None:
        if config.model.split(":", 1)[0] == "offline":
            checker.error(
                "not_a_classifier",
                "safety.model",
                "the offline model is not a safety classifier: it never answers safe or unsafe",
                "name a Llama Guard endpoint (openai-compatible:URL#MODEL), or offline-safety in tests",
            )
        for name, profile in config.profiles.items():
            known = {code.upper() for code in (*LLAMA_GUARD_CATEGORIES, *profile.categories)}
            for n, code in enumerate(profile.block):
                if code.upper() not in known:
                    checker.error(
                        "unknown_category",
                        f"safety.profiles.{name}.block[{n}]",
                        f"{code!r} is not a category of the classifier's taxonomy",
                        "use a Llama Guard code (S1 … S14), or declare it under this profile's categories",
                    )
    uses: list[tuple[str, str]] = []
    for index, guard in _valid_items(raw.get("response_guards"), ResponseGuardConfig):
        if guard.check.safety is not None:
            uses.append((guard.check.safety.profile, f"response_guards[{index}].check.safety"))
    tool_logic = raw.get("tool_logic")
    for tool, entry in tool_logic.items() if isinstance(tool_logic, Mapping) else ():
        try:
            gate = ToolLogicConfig.model_validate(entry)
        except ValidationError:
            continue
        if gate.safety is not None:
            uses.append((gate.safety.profile, f"tool_logic.{tool}.safety"))
    for used, location in uses:
        if config is None:
            checker.error(
                "no_safety_classifier",
                location,
                f"this safety check uses profile {used!r}, but the agent has no safety: classifier",
                "add safety: {model: <classifier>, profiles: {" + used + ": {version: 1, block: [...]}}}",
            )
        elif used not in config.profiles:
            checker.error(
                "unknown_safety_profile",
                location,
                f"there is no safety profile {used!r}{did_you_mean(used, list(config.profiles))}",
                f"use one of {', '.join(config.profiles)}, or add it under safety.profiles",
            )


def _check_handoff(checker: _Checker, raw: Mapping[str, Any]) -> None:
    """``handoff:``: unique destinations, their routing rules, the variables their context lists, and no
    tool of the agent's own named ``start_consult``."""
    try:
        config = HandoffConfig.model_validate(raw["handoff"]) if raw.get("handoff") is not None else None
    except ValidationError:
        return  # the structure check reports it, with its location
    if config is None:
        return
    seen: set[str] = set()
    for index, destination in enumerate(config.destinations):
        at = f"handoff.destinations[{index}]"
        if destination.id in seen:
            checker.error(
                "duplicate_destination",
                f"{at}.id",
                f"destination {destination.id!r} is declared twice",
                "keep one, or rename one",
            )
        seen.add(destination.id)
        if destination.when is not None:
            checker.condition(destination.when, f"{at}.when", "routing rule")
        for n, name in enumerate(destination.context):
            checker.reads.append((name, f"{at}.context[{n}]", None))
    if checker.tool_names is not None and START_CONSULT in checker.tool_names - _BUILTIN_TOOLS:
        checker.error(
            "reserved_tool",
            "handoff",
            f"the agent has its own tool {START_CONSULT!r}, and handoff: gives it the built-in of that name",
            "rename the agent's tool, or remove handoff:",
        )


def _valid_items(raw: Any, model: type[Any]) -> list[tuple[int, Any]]:
    if not isinstance(raw, list):
        return []
    out: list[tuple[int, Any]] = []
    for index, item in enumerate(raw):
        try:
            out.append((index, model.model_validate(item)))
        except ValidationError:
            continue  # the structure check reports it, with its location
    return out


def logic_issues(
    raw: Mapping[str, Any],
    instruction: str | None,
    *,
    instruction_file: Path | None = None,
    tool_names: frozenset[str] | None = None,
    slot_names: Iterable[str] = (),
    executor_names: Iterable[str] = (),
) -> list[ConfigIssue]:
    """Every logic problem of an agent file (``raw``) and its instruction text, errors and warnings."""
    model = raw.get("model")
    checker = _Checker(tool_names, frozenset(executor_names), model if isinstance(model, str) else "offline")
    for index, declaration in _valid_items(raw.get("variables"), VariableDeclaration):
        if declaration.name in checker.declared:
            checker.error(
                "duplicate_variable",
                f"variables[{index}].name",
                f"variable {declaration.name!r} is declared twice",
                "keep one declaration",
            )
            continue
        checker.declared[declaration.name] = declaration
    for index, declaration in _valid_items(raw.get("variables"), VariableDeclaration):
        published = declaration.published_by
        if published is None:
            continue
        at = f"variables[{index}].published_by"
        for n, tool in enumerate(published.tools):
            checker.tool(tool, f"{at}.tools[{n}]", runs=False)
        checker.path(published.path, f"{at}.path", "published_by.path")
    if instruction:
        location = "instruction_file" if instruction_file is not None else "instruction"
        _check_template(checker, instruction, location, instruction_file)
    for index, rule in _valid_items(raw.get("rules"), RuleConfig):
        _check_rule(checker, rule, f"rules[{index}]")
    _check_tool_logic(checker, raw.get("tool_logic"))
    _check_builtin_tools(checker, raw.get("builtin_tools"))
    _check_topics(checker, raw)
    _check_extraction(checker, raw)
    _check_safety(checker, raw)
    _check_handoff(checker, raw)
    for index, guard in _valid_items(raw.get("response_guards"), ResponseGuardConfig):
        _check_guard(checker, guard, f"response_guards[{index}]")
    for name in sorted(set(checker.declared) & set(slot_names)):
        checker.issues.append(
            ConfigIssue(
                "variable_shadows_slot",
                "variables",
                f"variable {name!r} has the name of a slot: in DAG conditions the filled slot wins",
                "rename the variable (or the slot)",
                severity="warning",
            )
        )
    known = set(checker.declared) | BUILTIN_NAMES | checker.writes | set(slot_names)
    for name, location, _ in checker.reads:
        if name in known or (name, location) in checker.warned:
            continue
        checker.warned.add((name, location))
        checker.issues.append(
            ConfigIssue(
                "undeclared_name",
                location,
                f"{name!r} is not a declared variable (it reads as None until something sets it)",
                f"declare it under variables: (name: {name}, type, description), or fix the name",
                severity="warning",
            )
        )
    return checker.issues
