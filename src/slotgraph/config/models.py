"""Typed models of the DAG config, exactly as the spec (and the original platform) writes it.

These are the *edge* models: pydantic v2, validating plain data loaded from YAML, JSON or a Python dict
(`raw_config`). Field names are the spec's (`slot_filling_dag_framework.md` §2.1, §2.2, §5, §5b, §7.6, §8a,
§12). Nothing here evaluates anything: conditions and formatters stay strings until
:mod:`slotgraph.config.compile` turns them into callables through :mod:`slotgraph.expr`.

Unknown keys are refused (``extra="forbid"``) so that a typo such as ``requires_readbak`` is reported with a
"did you mean" suggestion by the validator instead of being silently ignored. Keys starting with ``x-`` are
extension keys and are accepted and ignored everywhere.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "DagConfig",
    "ExhaustConfig",
    "FailureConfig",
    "ResponsePart",
    "SlotConfig",
    "SlotValidationConfig",
    "SteerBackConfig",
    "TaskConfig",
    "ThenCall",
    "ValidateAgainstConfig",
]


def _drop_extension_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))}
    return data


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _strip_extensions(cls, data: Any) -> Any:
        return _drop_extension_keys(data)


class ResponsePart(BaseModel):
    """One rich response part (§8a). ``type`` selects the part; other keys depend on it.

    ``text``: ``{"type": "text", "text": ...}``; ``payload``: ``{"type": "payload", "data": {...}}``;
    ``audio``: ``{"type": "audio", "uri": ...}``; ``end_session``: ``{"type": "end_session", "reason": ...}``;
    ``transfer``: ``{"type": "transfer", ...}``. Extra keys are kept verbatim (they are passed to the host).
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["text", "payload", "audio", "end_session", "transfer"]


ResponseList = list[ResponsePart]


class ThenCall(_Model):
    """The dict form of ``on_exhaust.then``: a tool call with ``{slot}`` placeholders in its args."""

    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class ExhaustConfig(_Model):
    """``on_exhaust``: what to say and which tool to call when retries are used up (§5.3, §5b, §7.6)."""

    say: str | None = None
    then: str | ThenCall | None = None
    response: ResponseList | None = None
    channel_responses: dict[str, ResponseList] | None = None


class ValidateAgainstConfig(_Model):
    """Cross-slot validation (§6a.1): the setter's ``response_field`` must be one of the comma-separated
    options in the filled slot ``filled_slot``; on mismatch the slot error ``error_code`` is signalled."""

    response_field: str = "value"
    filled_slot: str
    error_code: str = "not_available"


class SlotValidationConfig(_Model):
    """``validation`` (§5b.1): error messages by code, retry bound and exhaustion."""

    errors: dict[str, str] = Field(default_factory=dict)
    error_responses: dict[str, ResponseList] | None = None
    channel_error_responses: dict[str, dict[str, ResponseList]] | None = None
    max_retries: Annotated[int, Field(ge=1)] | None = None
    on_exhaust: ExhaustConfig | None = None


class SlotConfig(_Model):
    """A slot (§2.1, §12.1, §12.3)."""

    name: str = Field(min_length=1)
    source: str | list[str] = "user"
    event_key: str | None = None
    setter: str | None = None
    setter_field: str | None = None
    ask: str | None = None
    message: str | None = None
    preempt: bool | None = None
    requires: list[str] = Field(default_factory=list)
    requires_readback: bool = False
    readback_fmt: str | dict[str, Any] | None = None
    condition: str | None = None
    hint: str | None = None
    label: str | None = None
    validate_against: ValidateAgainstConfig | None = None
    validation: SlotValidationConfig | None = None
    response: ResponseList | None = None
    channel_responses: dict[str, ResponseList] | None = None

    @property
    def sources(self) -> tuple[str, ...]:
        """The source normalised to a tuple in priority order (the spec's ``_normalize_sources``)."""
        return (self.source,) if isinstance(self.source, str) else tuple(self.source)


class FailureConfig(_Model):
    """``on_failure`` of a task (§5.1)."""

    retry_say: str | None = None
    retry_response: ResponseList | None = None
    channel_retry_response: dict[str, ResponseList] | None = None
    max_retries: Annotated[int, Field(ge=1)] = 1
    clear_slots: list[str] = Field(default_factory=list)
    on_exhaust: ExhaustConfig | None = None


class TaskConfig(_Model):
    """A task (§2.2, §12.4)."""

    name: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    inputs: list[str] = Field(default_factory=list)
    requires: list[str] = Field(default_factory=list)
    outputs: dict[str, str] = Field(default_factory=dict)
    success_check: str | None = None
    terminal: bool = False
    readback_inputs: bool = False
    then_say: str | None = None
    then_response: ResponseList | None = None
    channel_then_response: dict[str, ResponseList] | None = None
    condition: str | None = None
    on_failure: FailureConfig | None = None


class SteerBackConfig(_Model):
    """``steer_back`` (§7.6): the three-tier stall recovery. Defaults 2/4/6."""

    soft_after: Annotated[int, Field(ge=1)] = 2
    hard_after: Annotated[int, Field(ge=1)] = 4
    escalate_after: Annotated[int, Field(ge=1)] = 6
    on_exhaust: ExhaustConfig | None = None


class DagConfig(_Model):
    """The whole DAG config: what the original platform's ``{config_id}_dag`` tool returns."""

    slots: list[SlotConfig] = Field(default_factory=list)
    tasks: list[TaskConfig] = Field(default_factory=list)
    steer_back: SteerBackConfig | None = None
    confirm_transition_prefix: str | list[str] | None = None
    gate_slot: str | None = None
    config_id: str | None = None
