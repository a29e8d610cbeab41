"""The agent-logic keys of ``agent.yaml``: typed ``variables:`` and lifecycle ``rules:``.

These are the *shapes* (checked by pydantic, with locations like every other config key). What the shapes
cannot say — an expression that does not parse, a write to a linked variable, an unbalanced ``#when`` in the
instruction — is checked by :mod:`slotgraph.logic.validation`, which runs when the agent is loaded.

A variable is either **mutable** (it has a ``default`` and is written by rules, prompt programs and tools)
or **linked**: ``linked_to`` names a runtime fact (a session metadata key such as ``session_id``, ``channel``
or a caller fact passed at session start, or a slot-filling fact: ``filled.<slot>``, ``status``,
``current_phase``) that the variable reads through, read-only.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "GUARD_ACTIONS",
    "LLAMA_GUARD_CATEGORIES",
    "RESERVED_NAMES",
    "TRIGGERS",
    "VARIABLE_TYPES",
    "Condition",
    "EndSessionAction",
    "EscalateAction",
    "ExtractionConfig",
    "GuardAction",
    "GuardCheckConfig",
    "HandoffConfig",
    "HandoffDestination",
    "InjectInstructionAction",
    "LlmCondition",
    "PublishedBy",
    "ResponseGuardConfig",
    "RuleActionConfig",
    "RuleConfig",
    "RunToolAction",
    "SafetyCheck",
    "SafetyConfig",
    "SafetyProfile",
    "SetVariableAction",
    "TopicConfig",
    "TransitionAction",
    "Trigger",
    "VariableDeclaration",
    "VariableType",
    "type_problem",
]

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

VariableType = Literal["string", "integer", "number", "boolean", "list", "object", "any"]
VARIABLE_TYPES: tuple[str, ...] = ("string", "integer", "number", "boolean", "list", "object", "any")

Trigger = Literal[
    "session_start", "user_message", "turn_start", "turn_end", "tool_result", "variable_changed"
]
TRIGGERS: tuple[str, ...] = (
    "session_start",
    "user_message",
    "turn_start",
    "turn_end",
    "tool_result",
    "variable_changed",
)

RESERVED_NAMES: frozenset[str] = frozenset(
    {"filled", "status", "current_phase", "result", "True", "False", "None"}
)
"""Names the logic layer fills itself (slot-filling state, a tool_result rule's ``result``)."""


def type_problem(value: Any, type_: str) -> str | None:
    """Why ``value`` is not of the declared ``type_`` (``None`` when it is, and always for ``None``)."""
    if value is None or type_ == "any":
        return None
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "list": isinstance(value, list | tuple),
        "object": isinstance(value, dict),
    }.get(type_, False)
    if ok:
        return None
    return f"expected a {type_}, got {type(value).__name__} {value!r:.60}"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LlmCondition(_Strict):
    """A condition an LLM judges: one cheap ALLOW/DENY completion on the person's latest message."""

    kind: Literal["llm"]
    """`llm` (an expression is written as a plain string instead)."""
    prompt: str = Field(min_length=1)
    """What the judge decides, in your words (used verbatim; the call site adds what ALLOW and DENY
    mean for it, e.g. "the rule applies")."""
    model: str | None = Field(default=None, min_length=1)
    """The judge model as a "provider:model" string (default: the agent's model)."""


Condition = str | LlmCondition
"""A condition: an expression (a string) or an LLM judge (`{kind: llm, prompt: ...}`)."""


class PublishedBy(_Strict):
    """The capability that maintains a variable: its tools publish the value on every result."""

    tools: list[str] = Field(min_length=1)
    """The tools whose results publish the variable (e.g. every tool of an authentication capability)."""
    path: str = Field(min_length=1)
    """A `$.path` into each result: the variable's new value (a result without it changes nothing)."""
    values: list[Any] | None = None
    """The states the variable can take: a result whose value is not one of them (a call-shaped status
    such as `consent_required`) changes nothing. Default: any value of the declared type."""


class VariableDeclaration(_Strict):
    """One session variable: a name, a type, a description, and a default or a linked runtime fact."""

    name: str = Field(pattern=IDENTIFIER.pattern)
    """The variable's name as expressions and prompts use it (snake_case identifier)."""
    type: VariableType
    """The value's type; writes of another type are refused (None is always allowed: not set yet)."""
    description: str = Field(min_length=1)
    """What the variable means (shown to authors and, later, to the model as a field hint). Required."""
    default: Any = None
    """The value a new session starts with, unless a value for this name was passed at session start."""
    linked_to: str | None = Field(default=None, min_length=1)
    """Make the variable a read-only alias of a runtime fact: a session metadata key (`session_id`,
    `channel`, a caller fact), `filled.<slot>`, `status` or `current_phase`."""
    extraction: bool = False
    """Fill the variable by background extraction from the caller's messages (needs the agent's
    `extraction.tool`); a gated tool that binds it waits for the latest extraction."""
    published_by: PublishedBy | None = None
    """Make the variable capability-published: the results of these tools write it (and nothing else:
    the model, rules and prompt programs cannot). It starts with its `default` like any variable."""

    @property
    def mutable(self) -> bool:
        """A linked variable is read-only; every other variable can be written (a published one only by
        its tools' results)."""
        return self.linked_to is None

    @property
    def writable(self) -> bool:
        """Whether the model (``set_variables``), rules and prompt programs may write it: a mutable variable
        that no capability publishes."""
        return self.linked_to is None and self.published_by is None

    @model_validator(mode="after")
    def _consistent(self) -> VariableDeclaration:
        if self.name in RESERVED_NAMES:
            raise ValueError(
                f"{self.name!r} is a reserved name (the logic layer provides it); pick another name"
            )
        if self.linked_to is not None and self.default is not None:
            raise ValueError("a linked variable reads its value from 'linked_to' and cannot have a 'default'")
        problem = type_problem(self.default, self.type)
        if problem is not None:
            raise ValueError(f"the default does not match type {self.type!r}: {problem}")
        if self.extraction and self.linked_to is not None:
            raise ValueError("a linked variable is read-only, so extraction cannot fill it")
        if self.published_by is not None:
            if self.linked_to is not None:
                raise ValueError("a variable is either linked (read-only) or published by tools, not both")
            if self.extraction:
                raise ValueError(
                    "a published variable is written by its tools' results only, so extraction cannot fill it"
                )
            for value in self.published_by.values or ():
                problem = type_problem(value, self.type)
                if problem is not None:
                    raise ValueError(f"published_by.values does not match type {self.type!r}: {problem}")
        return self


class ExtractionConfig(_Strict):
    """Background extraction: after each caller message a tool extracts values for the variables declared
    with `extraction: true`, while the conversation goes on."""

    tool: str = Field(min_length=1)
    """The extractor: a tool of the agent taking `message` (the caller's text) and, optionally, `fields`
    (variable name → description); it returns an object of variable name → value."""
    wait_seconds: float = Field(default=2.0, gt=0, le=30)
    """How long a gated tool that binds an extracted variable waits for the latest extraction."""


class SetVariableAction(_Strict):
    """Write a variable: `value` is an expression; in a `tool_result` rule `output_path` reads the result."""

    variable: str = Field(pattern=IDENTIFIER.pattern)
    """The variable to write (must not be a linked variable)."""
    value: str | None = None
    """An expression evaluated against the session's variables (e.g. `"visits + 1"`, `"'gold'"`)."""
    output_path: str | None = None
    """A `$.a.b[0]` path into the tool result (only in a rule whose trigger is `tool_result`)."""

    @model_validator(mode="after")
    def _one_source(self) -> SetVariableAction:
        if (self.value is None) == (self.output_path is None):
            raise ValueError("set_variable needs exactly one of 'value' (an expression) or 'output_path'")
        return self


class RunToolAction(_Strict):
    """Run a registered tool with arguments from expressions; capture parts of its result into variables."""

    tool: str = Field(min_length=1)
    """The tool's name (a tool of the agent; DAG task executors are refused: the engine runs them)."""
    args: dict[str, str] = Field(default_factory=dict)
    """Argument name → expression."""
    capture: dict[str, str] = Field(default_factory=dict)
    """Variable name → `$.path` into the tool's result."""


class InjectInstructionAction(_Strict):
    """Add an instruction to the system prompt of the model calls that follow (this turn)."""

    text: str = Field(min_length=1)
    """The instruction; `{{name}}` and `#when` sections are rendered against the live variables."""


class EndSessionAction(_Strict):
    """End the session after this step."""

    reason: str = ""
    """Why (recorded on the end-of-session event)."""


class EscalateAction(_Strict):
    """Hand the conversation over to a person (through the agent's `escalate` tool)."""

    reason: str = ""
    """Why (passed to the escalate tool)."""


class TransitionAction(_Strict):
    """Move to a topic: sets the `current_topic` variable (which `#when` sections and rules can read)."""

    topic: str = Field(min_length=1)
    """The topic's name."""


_ACTION_KINDS = ("set_variable", "run_tool", "inject_instruction", "end_session", "escalate", "transition")


class RuleActionConfig(_Strict):
    """One action of a rule: a mapping with exactly one of the action keys."""

    set_variable: SetVariableAction | None = None
    run_tool: RunToolAction | None = None
    inject_instruction: InjectInstructionAction | None = None
    end_session: EndSessionAction | None = None
    escalate: EscalateAction | None = None
    transition: TransitionAction | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthands(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if isinstance(data.get("inject_instruction"), str):
                data["inject_instruction"] = {"text": data["inject_instruction"]}
            if isinstance(data.get("transition"), str):
                data["transition"] = {"topic": data["transition"]}
            for key in ("end_session", "escalate"):
                if key in data and data[key] is None:
                    data[key] = {}
                elif isinstance(data.get(key), str):
                    data[key] = {"reason": data[key]}
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> RuleActionConfig:
        given = [kind for kind in _ACTION_KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            raise ValueError(
                f"an action has exactly one of {', '.join(_ACTION_KINDS)}"
                + (f" (got {', '.join(given)})" if given else "")
            )
        return self

    @property
    def kind(self) -> str:
        return next(kind for kind in _ACTION_KINDS if getattr(self, kind) is not None)


class RuleConfig(_Strict):
    """A deterministic rule: when `trigger` happens and `condition` holds, run `actions` in order."""

    name: str | None = None
    """A name for logs and events (default: `rules[<index>]`)."""
    trigger: Trigger
    """When the rule is considered."""
    tool: str | None = None
    """For `tool_result`: only results of this tool (default: every tool)."""
    variable: str | None = None
    """For `variable_changed`: only changes of this variable (default: every variable)."""
    condition: Condition | None = None
    """An expression, or an LLM judge (`{kind: llm, prompt: ...}`); the rule fires only when it is true (a
    condition that fails to evaluate, or a judge that cannot decide: no fire)."""
    actions: list[RuleActionConfig] = Field(min_length=1)
    """What to do, in order."""


SafetyFailure = Literal["allow", "block"]

LLAMA_GUARD_CATEGORIES: dict[str, str] = {
    "S1": "Violent Crimes",
    "S2": "Non-Violent Crimes",
    "S3": "Sex-Related Crimes",
    "S4": "Child Sexual Exploitation",
    "S5": "Defamation",
    "S6": "Specialized Advice",
    "S7": "Privacy",
    "S8": "Intellectual Property",
    "S9": "Indiscriminate Weapons",
    "S10": "Hate",
    "S11": "Suicide & Self-Harm",
    "S12": "Sexual Content",
    "S13": "Elections",
    "S14": "Code Interpreter Abuse",
}
"""Llama Guard 3's hazard categories (the MLCommons taxonomy), what a classifier served with its default
chat template answers with."""


class SafetyProfile(_Strict):
    """A versioned safety profile: which categories of the classifier's taxonomy are violations."""

    version: int = Field(ge=1)
    """The profile's version: raise it when `block` changes, so events and logs say which rules applied."""
    block: list[str] = Field(min_length=1)
    """The category codes that are violations (`S1`, `S10`, ...); other categories the classifier flags
    are allowed."""
    categories: dict[str, str] = Field(default_factory=dict)
    """Category code → name, for a classifier served with its own taxonomy (default: Llama Guard 3's
    S1–S14; these add to it or rename)."""


class SafetyConfig(_Strict):
    """The safety classifier (a Llama Guard-style model) and the profiles guards and tools check against."""

    model: str = Field(min_length=1)
    """The classifier as a "provider:model" string: any OpenAI-compatible endpoint serving Llama Guard
    (`openai-compatible:http://localhost:8000/v1#meta-llama/Llama-Guard-3-8B`), or `offline-safety` (a
    deterministic stand-in for tests)."""
    timeout_seconds: float = Field(default=2.0, gt=0, le=30)
    """The latency limit of one check: a classifier that has not answered by then is a failure."""
    on_failure: SafetyFailure = "allow"
    """What a check that fails — no answer within the limit, an error, an answer that is neither `safe` nor
    `unsafe` — counts as: `allow` (fail open: the text is said, the tool runs; default) or `block` (fail
    closed: a violation)."""
    profiles: dict[str, SafetyProfile] = Field(min_length=1)
    """The profiles by name."""


class SafetyCheck(_Strict):
    """A safety check against one profile; `model`, `timeout_seconds` and `on_failure` override `safety:`."""

    profile: str = Field(min_length=1)
    """The profile (a key of `safety.profiles`)."""
    model: str | None = Field(default=None, min_length=1)
    """Another classifier for this check."""
    timeout_seconds: float | None = Field(default=None, gt=0, le=30)
    """Another latency limit for this check."""
    on_failure: SafetyFailure | None = None
    """Another failure policy for this check."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        return {"profile": data} if isinstance(data, str) else data


GuardAction = Literal["replace", "redact", "regenerate", "suppress"]
GUARD_ACTIONS: tuple[str, ...] = ("replace", "redact", "regenerate", "suppress")


class GuardCheckConfig(_Strict):
    """What a response guard looks for: exactly one of `pattern`, `code`, `llm` or `safety`."""

    pattern: str | None = Field(default=None, min_length=1)
    """A regular expression (Python `re` syntax, searched in each sentence); a match is a violation."""
    code: str | None = Field(default=None, min_length=1)
    """An expression over the session's variables and `text` (the sentence); true is a violation."""
    llm: str | None = Field(default=None, min_length=1)
    """A judge prompt: one model call gets it with the sentence and answers ALLOW or DENY; DENY is a
    violation."""
    model: str | None = Field(default=None, min_length=1)
    """For `llm`: the judge model as a "provider:model" string (default: the agent's model)."""
    safety: SafetyCheck | None = None
    """A safety classifier check: a profile of the agent's `safety:` (`safety: standard`), or a mapping
    with `profile` and overrides of `model`, `timeout_seconds`, `on_failure`. A sentence in a blocked
    category is a violation."""

    @model_validator(mode="after")
    def _exactly_one(self) -> GuardCheckConfig:
        given = [k for k in ("pattern", "code", "llm", "safety") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "a guard check has exactly one of pattern, code, llm, safety"
                + (f" (got {', '.join(given)})" if given else "")
            )
        if self.model is not None and self.llm is None:
            raise ValueError("'model' only applies to an llm check (a safety check takes safety.model)")
        return self

    @property
    def kind(self) -> Literal["pattern", "code", "llm", "safety"]:
        if self.pattern is not None:
            return "pattern"
        if self.code is not None:
            return "code"
        return "llm" if self.llm is not None else "safety"


class ResponseGuardConfig(_Strict):
    """A check on the assistant's text before the person sees it, and what to do on a violation."""

    name: str | None = None
    """A name for logs and events (default: `response_guards[<index>]`)."""
    check: GuardCheckConfig
    """What counts as a violation."""
    on_violation: GuardAction = "replace"
    """`replace` the sentence and the rest of the reply by `message`; `redact` the match (the whole sentence
    for code and llm checks) with `redaction`; `regenerate` the reply (at most `max_regenerations` times, then
    `message` if given, else suppress); `suppress` the sentence and the rest of the reply without
    replacement."""
    message: str | None = Field(default=None, min_length=1)
    """The replacement text (`replace`, and `regenerate` once its attempts are used up)."""
    redaction: str = "[redacted]"
    """What `redact` puts in place of the match."""
    max_regenerations: int = Field(default=1, ge=1, le=3)
    """How many new replies `regenerate` asks the model for (1 to 3)."""
    strict: bool = False
    """Fail closed: a check that cannot decide (an expression that fails to evaluate, a judge that errs or
    answers neither ALLOW nor DENY) counts as a violation. Default: it counts as a pass, with a warning."""

    @model_validator(mode="after")
    def _message_when_needed(self) -> ResponseGuardConfig:
        if self.on_violation == "replace" and self.message is None:
            raise ValueError("on_violation: replace needs a 'message' (the text said instead)")
        return self


class HandoffDestination(_Strict):
    """Where the conversation can be handed: a person (a queue, a desk) or another agent of the app."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """The destination's id (snake_case): what `start_consult`'s `destination` enumerates."""
    description: str = Field(min_length=1)
    """When to hand the conversation here (the model reads it in the tool's description)."""
    kind: Literal["human", "agent"] = "human"
    """`human`: the host connects a person, who gets the context (the session ends for the agent).
    `agent`: another agent of the multi-agent app takes the conversation over, within the turn."""
    agent: str | None = Field(default=None, min_length=1)
    """For `kind: agent`: the app's agent (default: the id)."""
    mode: Literal["consult", "transfer"] = "consult"
    """For the host connecting a person: `consult` (warm: the person is briefed with the context and joins
    while the caller waits) or `transfer` (cold)."""
    when: Condition | None = None
    """The routing rule: an expression, or an LLM judge, that must hold for a hand-off here. A rule that
    cannot be decided lets the hand-off through (fail open: a typo must not strand a caller who needs a
    person)."""
    context: list[str] = Field(default_factory=list)
    """The variables the receiver gets (besides the reason, the summary and the filled slots)."""

    @model_validator(mode="after")
    def _agent_only_for_agents(self) -> HandoffDestination:
        if self.agent is not None and self.kind != "agent":
            raise ValueError("'agent' is for kind: agent destinations; remove it, or set kind: agent")
        return self

    @property
    def target(self) -> str:
        """The app's agent a `kind: agent` destination hands over to."""
        return self.agent or self.id


class HandoffConfig(_Strict):
    """Warm hand-off: the `start_consult` tool and the routing rules that gate it."""

    destinations: list[HandoffDestination] = Field(min_length=1)
    """Where the conversation can be handed, each with its routing rule and the context it gets."""


TOPIC_ID = re.compile(r"^[a-z][a-z0-9_]*$")


class TopicConfig(_Strict):
    """A topic (a subagent): a named specialist of this agent the conversation can move to."""

    id: str = Field(pattern=TOPIC_ID.pattern)
    """The topic's id (snake_case): what `current_topic` holds and `transition_topic` offers."""
    description: str = Field(min_length=1)
    """When to move here: rides the `transition_topic` tool's description (how the model learns it)."""
    instruction: str | None = Field(default=None, min_length=1)
    """The topic's instructions. While the topic is active they REPLACE the agent's instruction (prompt
    takeover; `#when` sections, `{{name}}` and prompt programs work as in the main instruction); history
    and variables carry over. Without instructions the main instruction stays."""
    control: Literal["refer", "transfer"] = "refer"
    """`refer` (default): entering remembers where the conversation was, and `__return__` (or
    `return_when`) goes back there. `transfer`: a full hand-over; the return history is cleared."""
    entry_when: Annotated[str, Field(min_length=1)] | LlmCondition | None = None
    """An expression (or an LLM judge) that must be true to enter the topic (a condition that fails to
    evaluate, or a judge that cannot decide: closed)."""
    return_when: Annotated[str, Field(min_length=1)] | LlmCondition | None = None
    """An expression (or an LLM judge) evaluated at the end of every turn in this topic; when true the
    conversation returns to where it came from (a pop, never a new entry)."""
    dag: str | dict[str, Any] | None = None
    """The topic's own slot-filling DAG (a file relative to the agent directory, or inline), with its own
    slot state: while the topic is active its engine runs instead of the agent's, on the topic's state,
    which is kept when the conversation leaves and found again on re-entry. Without it the topic shares
    the agent's DAG."""
