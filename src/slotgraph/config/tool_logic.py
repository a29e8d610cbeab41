"""The per-tool logic keys of ``agent.yaml``: ``tool_logic:`` (tool gates and execution contracts) and
``builtin_tools:`` (settings of the built-in tools).

These are the *shapes*, checked by pydantic with locations like every other config key. What the shapes
cannot say — an ``available_when`` that does not parse, a capture into a linked variable, a gate on a tool
the agent does not have — is checked by :mod:`slotgraph.logic.validation` when the agent is loaded; whether a
bound parameter is a parameter of the tool is checked when the tools are imported (the runtime).

A gate wraps one tool (``tool_logic: {record_copay: {...}}``): ``available_when`` hides and refuses it while
false (and when it fails to evaluate — gates fail closed), ``bind``/``merge_bind`` inject arguments the model
cannot choose, ``capture`` copies parts of the result into variables, ``progress_message`` is said right
before the tool runs. ``idempotency`` and ``receipt`` are execution contracts for writes
(:mod:`slotgraph.logic.contracts`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from slotgraph.config.logic import Condition, SafetyCheck

__all__ = [
    "BindSource",
    "BuiltinToolSettings",
    "EndSessionSettings",
    "IdempotencyConfig",
    "ReceiptConfig",
    "ToolLogicConfig",
    "ToolSafetyConfig",
]

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BindSource(_Strict):
    """Where a bound argument comes from: a `literal` value or a session `variable`."""

    kind: Literal["literal", "variable"]
    """`literal`: the `value` as written. `variable`: the session variable `name`, read at call time."""
    value: Any = None
    """The value of a `literal` source (any JSON value)."""
    name: str | None = Field(default=None, pattern=IDENTIFIER.pattern)
    """The variable of a `variable` source."""

    @model_validator(mode="after")
    def _one_source(self) -> BindSource:
        if self.kind == "variable" and self.name is None:
            raise ValueError("a 'variable' source needs 'name' (the variable to read)")
        if self.kind == "variable" and "value" in self.model_fields_set:
            raise ValueError("a 'variable' source reads 'name'; remove 'value'")
        if self.kind == "literal" and self.name is not None:
            raise ValueError("a 'literal' source has a 'value'; remove 'name'")
        if self.kind == "literal" and "value" not in self.model_fields_set:
            raise ValueError("a 'literal' source needs 'value'")
        return self


class IdempotencyConfig(_Strict):
    """Run a write at most once per key: a repeat returns the original result instead of running again."""

    key: list[str] = Field(min_length=1)
    """The parameters (of the final, bound arguments) whose values identify one write."""
    fingerprint: list[str] = Field(default_factory=list)
    """The business parameters a repeat must match: a repeated key with other values here is refused.
    Never include generated values such as timestamps."""
    scope: Literal["session", "agent"] = "session"
    """`session`: keys are per conversation. `agent`: one key space for every session of the agent, so a
    write keyed on a transaction id happens once across conversations, processes and workers."""
    wait_seconds: float = Field(default=10.0, gt=0, le=300)
    """How long a duplicate waits for a concurrent original to finish before it is refused."""


class ReceiptConfig(_Strict):
    """A write only with a receipt: a status reader must find exactly one matching succeeded record."""

    reader: str = Field(min_length=1)
    """The tool that reads the payment records, called by the runtime with those of the write's final
    arguments its parameters name (e.g. the bound `appointment_id`). It returns a list of records, or an
    object with a `records` list; a record has `id`, `status`, `amount_minor` (an integer in minor units),
    `currency` and optionally `direction`."""
    transaction_id_param: str = Field(min_length=1)
    """The write's parameter holding the transaction id to look for."""
    amount_param: str = Field(min_length=1)
    """The write's parameter holding the amount in major units (10, "10.00")."""
    currency_param: str = Field(min_length=1)
    """The write's parameter holding the ISO 4217 currency code."""
    status_value: str = "succeeded"
    """The status a matching record must have."""
    direction: str | None = "charge"
    """The direction a matching record must have when it carries one (null: any)."""


class ToolSafetyConfig(SafetyCheck):
    """A safety check of a tool's arguments before it runs: the text the agent is about to send."""

    params: list[str] | None = Field(default=None, min_length=1)
    """The parameters whose text is checked (default: every string argument of the call)."""


class ToolLogicConfig(_Strict):
    """The gates and contracts of one tool (a key of `tool_logic:`, the tool's name)."""

    available_when: Condition | None = None
    """An expression, or an LLM judge (`{kind: llm, prompt: ...}`, decided once per turn): the tool is
    offered and runs only while it is true (an error, or a judge that cannot decide, counts as false)."""
    unavailable_message: str | None = None
    """The tool result when the gate refuses a call (default: a generic sentence)."""
    bind: dict[str, BindSource] = Field(default_factory=dict)
    """Parameter → source: the parameter disappears from the schema the model sees and is injected at call
    time; a bound value beats one the model supplied."""
    merge_bind: dict[str, BindSource] = Field(default_factory=dict)
    """Parameter → source of an object the model supplements: the application's keys win (shallow)."""
    capture: dict[str, str] = Field(default_factory=dict)
    """Variable → `$.path` into the tool's result; a value of None never overwrites the variable."""
    progress_message: str | None = Field(default=None, min_length=1)
    """A sentence said once the gate passed, right before the tool runs."""
    idempotency: IdempotencyConfig | None = None
    """Run at most once per key (see IdempotencyConfig)."""
    receipt: ReceiptConfig | None = None
    """Run only with a matching succeeded payment record (see ReceiptConfig)."""
    safety: ToolSafetyConfig | None = None
    """Check the call's text arguments with the safety classifier before the tool runs (a profile of the
    agent's `safety:`; `safety: standard` or a mapping with `profile`, `params` and overrides); a blocked
    category refuses the call."""

    @model_validator(mode="after")
    def _one_mode(self) -> ToolLogicConfig:
        both = sorted(set(self.bind) & set(self.merge_bind))
        if both:
            raise ValueError(
                f"parameter(s) {', '.join(both)} appear in both 'bind' and 'merge_bind'; a parameter is "
                "either replaced (bind) or supplemented (merge_bind) — keep one"
            )
        return self


Description = Annotated[str, Field(min_length=1)]


class EndSessionSettings(_Strict):
    """Settings of the built-in `end_session` tool."""

    require_summary: bool = False
    """The model must pass a non-blank `summary` string when it ends the session."""
    params_fields: dict[str, Description] = Field(default_factory=dict)
    """Named details of an ending, field name → description: `end_session` takes a `params` object whose
    optional string fields these are (the model reads the descriptions; the prompt says which apply). A
    `merge_bind` of `params` adds the application's keys on top. Names are identifiers
    (`EscalationReason`)."""


class BuiltinToolSettings(_Strict):
    """Settings of the built-in tools."""

    end_session: EndSessionSettings = Field(default_factory=EndSessionSettings)
    """The `end_session` tool."""
