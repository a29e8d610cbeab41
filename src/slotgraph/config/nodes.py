"""The DAG config's nodes, typed, exactly as the spec (and the original platform) writes them.

(Called *nodes*, not models, so that "model" in Slotgraph means only a language model.) These are the
*edge* types: pydantic v2, validating plain data loaded from YAML, JSON or a Python dict
(`raw_config`). Field names are the original platform's (docs/config.md#dag-config lists them). Nothing here
evaluates anything: conditions and formatters stay strings until :mod:`slotgraph.config.compile` turns them
into callables through :mod:`slotgraph.expr`.

Unknown keys are refused (``extra="forbid"``) so that a typo such as ``requires_readbak`` is reported with a
"did you mean" suggestion by the validator instead of being silently ignored. Keys starting with ``x-`` are
extension keys and are accepted and ignored everywhere.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic_core import to_jsonable_python

from slotgraph.config.extensions import drop_extension_keys

__all__ = [
    "BootstrapConfig",
    "DagConfig",
    "ExhaustConfig",
    "FailureConfig",
    "OnCompleteConfig",
    "ProgressStallConfig",
    "ReadbackRetryConfig",
    "ResponsePart",
    "SlotConfig",
    "SlotValidationConfig",
    "SteerBackConfig",
    "TaskConfig",
    "ThenCall",
    "ValidateAgainstConfig",
]


class _Node(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _strip_extensions(cls, data: Any) -> Any:
        return drop_extension_keys(data)


class ResponsePart(BaseModel):
    """One rich response part (docs/engine.md#rich-responses). ``type`` selects the part; other keys depend on
    it.

    ``text``: ``{"type": "text", "text": ...}``; ``payload``: ``{"type": "payload", "data": {...}}``;
    ``audio``: ``{"type": "audio", "uri": ...}``; ``end_session``: ``{"type": "end_session", "reason": ...}``;
    ``transfer``: ``{"type": "transfer", ...}``. Extra keys are kept verbatim (they are passed to the host).
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["text", "payload", "audio", "end_session", "transfer"]
    """The part type; other keys depend on it and are passed on verbatim."""

    @model_serializer(mode="wrap")
    def _as_json(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        """A part dumps as JSON data in either mode: the compiled config keeps parts as the host will send
        them (a YAML date in a payload is its ISO text), and :meth:`DagConfig.model_dump` gives the compiler
        that form directly."""
        data = handler(self)
        return data if info.mode_is_json() else to_jsonable_python(data)


ResponseList = list[ResponsePart]


def _channel_responses() -> Any:
    """``channel_responses`` (the original platform's spelling), also read as ``channel_response``: the
    platform builds every override name as ``channel_`` + the field name, so for ``response`` it writes
    ``channel_response``."""
    return Field(default=None, validation_alias=AliasChoices("channel_responses", "channel_response"))


class ThenCall(_Node):
    """The dict form of ``on_exhaust.then``: a tool call with ``{slot}`` placeholders in its args."""

    tool: str = Field(min_length=1)
    """The tool to call."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Arguments; string values may hold {slot} placeholders."""


class ExhaustConfig(_Node):
    """``on_exhaust``: what to say and which tool to call when retries are used up
    (docs/engine.md#task-results-retries-and-exhaustion)."""

    say: str | None = None
    """Text said when retries are used up; {slot} placeholders allowed."""
    then: str | ThenCall | None = None
    """A tool to call: its name (no args) or {tool, args}."""
    response: ResponseList | None = None
    channel_responses: dict[str, ResponseList] | None = _channel_responses()


class ValidateAgainstConfig(_Node):
    """Cross-slot validation (docs/engine.md#tool-result-routing): the setter's ``response_field`` must be one
    of the comma-separated options in the filled slot ``filled_slot``; on mismatch the slot error
    ``error_code`` is signalled."""

    response_field: str = "value"
    filled_slot: str
    error_code: str = "not_available"


class SlotValidationConfig(_Node):
    """``validation`` (docs/engine.md#slot-errors): error messages by code, retry bound and exhaustion."""

    errors: dict[str, str] = Field(default_factory=dict)
    error_responses: dict[str, ResponseList] | None = None
    channel_error_responses: dict[str, dict[str, ResponseList]] | None = None
    max_retries: Annotated[int, Field(ge=1)] | None = None
    on_exhaust: ExhaustConfig | None = None


class SlotConfig(_Node):
    """A slot (docs/config.md#slots)."""

    name: str = Field(min_length=1)
    """Unique slot name; the key in filled/pending."""
    source: str | list[str] = "user"
    """"user", "event", "announce" or "task:<TaskName>", or a list of them in priority order."""
    event_key: str | None = None
    """Key in event_data for event-sourced slots (default: the slot name)."""
    setter: str | None = None
    """Tool the model calls to set this slot (user slots)."""
    setter_field: str | None = None
    """Multi-slot setters: the tool parameter that maps to this slot."""
    ask: str | None = None
    """The question asked for this slot; {slot} placeholders allowed."""
    message: str | None = None
    """Announce slots: the text delivered; {slot} placeholders allowed."""
    preempt: bool | None = None
    """Announce delivery: verbatim (true, default) or guided through the model (false)."""
    requires: list[str] = Field(default_factory=list)
    """Slots that must be filled before this one is asked."""
    requires_readback: bool = False
    """Keep the value pending until the user confirms it."""
    readback_fmt: str | dict[str, Any] | None = None
    """"date", "time", {type: prefix|plural|none_sub, ...} or a lambda string."""
    condition: str | None = None
    """Lambda string or expression; the slot is active only when it is true."""
    hint: str | None = None
    """Short description shown with the setter in the tool-selection guide."""
    label: str | None = None
    validate_against: ValidateAgainstConfig | None = None
    """Cross-slot check of the setter result against a filled slot."""
    accept_early: bool = False
    """Keep a value the user gives before the slot can be asked (its ``requires`` unmet) as a candidate: the
    setter stays visible, and the value is validated and read back once the slot becomes askable."""
    changeable: bool | None = None
    """The user may change the confirmed value (its setter stays visible once filled); downstream task
    results are recomputed. Default: the DAG's ``changeable`` for user slots."""
    validation: SlotValidationConfig | None = None
    """Error messages by code, retry bound and exhaustion."""
    response: ResponseList | None = None
    """Rich response parts shown with the question (docs/engine.md#rich-responses)."""
    channel_responses: dict[str, ResponseList] | None = _channel_responses()
    """Per-channel overrides of ``response`` (also spelled ``channel_response``, as the platform does)."""

    @property
    def sources(self) -> tuple[str, ...]:
        """The source normalised to a tuple in priority order (the spec's ``_normalize_sources``)."""
        return (self.source,) if isinstance(self.source, str) else tuple(self.source)


class FailureConfig(_Node):
    """``on_failure`` of a task (docs/engine.md#task-results-retries-and-exhaustion)."""

    retry_say: str | None = None
    """Said after a failure that will be retried."""
    retry_response: ResponseList | None = None
    channel_retry_response: dict[str, ResponseList] | None = None
    max_retries: Annotated[int, Field(ge=1)] = 1
    """Failures allowed before on_exhaust."""
    clear_slots: list[str] = Field(default_factory=list)
    """Slots cleared on failure so they are asked again."""
    on_exhaust: ExhaustConfig | None = None


class OnCompleteConfig(_Node):
    """``on_complete`` of a terminal task (platform key): loop back instead of finishing."""

    clear_slots: list[str] = Field(default_factory=list)
    """Slots that leave ``filled`` when the terminal task succeeds; all task results are cleared too."""


class TaskConfig(_Node):
    """A task (docs/config.md#tasks)."""

    name: str = Field(min_length=1)
    """Unique task name."""
    tool: str = Field(min_length=1)
    """The executor tool the engine calls."""
    inputs: list[str] = Field(default_factory=list)
    """Slots that must be filled; passed to the tool as arguments."""
    requires: list[str] = Field(default_factory=list)
    """Slots that must be filled; not passed (gates)."""
    outputs: dict[str, str] = Field(default_factory=dict)
    """{result_key: slot}: result values copied into task-sourced slots."""
    success_check: str | None = None
    """Result key that is truthy on success."""
    terminal: bool = False
    """Success ends the conversation."""
    readback_inputs: bool = False
    parallel: bool = False
    """May fire together with the other ``parallel`` tasks that become ready at the same moment and do not
    depend on each other (one engine decision, several calls, run concurrently). Terminal tasks never do."""
    readback_together: bool = False
    """With ``readback_inputs``: the grouped readback is confirmed as a whole — a partial confirmation (some
    values confirmed, others corrected) keeps every grouped value pending until all are confirmed together."""
    then_say: str | None = None
    """Said on success; {slot} placeholders allowed."""
    then_response: ResponseList | None = None
    channel_then_response: dict[str, ResponseList] | None = None
    condition: str | None = None
    """Lambda string or expression; the task fires only when it is true."""
    on_failure: FailureConfig | None = None
    """Retry and escalation configuration."""
    on_complete: OnCompleteConfig | None = None
    """Terminal tasks: on success, clear these slots and every task result and start over (a loop)."""


class SteerBackConfig(_Node):
    """``steer_back`` (docs/engine.md#steer-back): the three-tier stall recovery. Defaults 2/4/6."""

    soft_after: Annotated[int, Field(ge=1)] = 2
    """Stalled user turns before a steer-back hint to the model."""
    hard_after: Annotated[int, Field(ge=1)] = 4
    """Stalled user turns before the engine asks the next question itself."""
    escalate_after: Annotated[int, Field(ge=1)] = 6
    """Stalled user turns before on_exhaust fires."""
    on_exhaust: ExhaustConfig | None = None


class BootstrapConfig(_Node):
    """``bootstrap`` (platform key): a routing tool's stored value opens the flow."""

    tool: str = Field(min_length=1)
    """The routing tool; when it returns ``stored``, its ``value`` is written to ``filled[slot]``."""
    slot: str = Field(min_length=1)
    """Where the routing value goes (usually the ``gate_slot``)."""
    reset_on_complete: bool = False
    """A later call after ``complete``/``escalated`` restarts the flow."""
    welcome_slot: str | None = None
    """Only checked by the platform's validator (it must name a slot)."""


class ReadbackRetryConfig(_Node):
    """``readback_retry`` (legacy): cleared pending values after stalled readbacks, then escalated."""

    max_retries: Annotated[int, Field(ge=1)] = 2
    on_exhaust: ExhaustConfig | None = None


class ProgressStallConfig(_Node):
    """``progress_stall`` (legacy): escalated after ``max_turns`` user turns without progress."""

    max_turns: Annotated[int, Field(ge=1)] = 8
    on_exhaust: ExhaustConfig | None = None


class DagConfig(_Node):
    """The whole DAG config: what the original platform's ``{config_id}_dag`` tool returns."""

    slots: list[SlotConfig] = Field(default_factory=list)
    """The slots, in question order."""
    tasks: list[TaskConfig] = Field(default_factory=list)
    """The tasks, in firing priority order."""
    steer_back: SteerBackConfig | None = None
    """Three-tier stall recovery (defaults 2/4/6)."""
    confirm_transition_prefix: str | list[str] | None = None
    """Prefixes for the question after a confirmed readback."""
    gate_slot: str | None = None
    """The engine is skipped until this slot is filled (it may be written by another agent's tool)."""
    config_id: str | None = None
    readback_response: ResponseList | None = None
    """Response parts attached to every readback prompt (e.g. yes/no chips); placeholders from filled and
    pending values."""
    channel_readback_response: dict[str, ResponseList] | None = None
    """Per-channel overrides of ``readback_response``."""
    event_mappings: dict[str, dict[str, Any]] | None = None
    """``{platform event name: {event_data key: value}}`` merged into ``event_data`` before event pre-fill
    when ``event_data.ia_event_name`` names an entry."""
    bootstrap: BootstrapConfig | None = None
    """The routing tool whose stored value opens this flow (multi-agent apps)."""
    readback_retry: ReadbackRetryConfig | None = None
    """Legacy readback-stall detector; ``steer_back`` replaced it (see docs/migration.md)."""
    progress_stall: ProgressStallConfig | None = None
    """Legacy no-progress escalation; translated into ``steer_back`` when that is absent."""
    changeable: bool = False
    """Default of every user slot's ``changeable``: confirmed values may be changed later (see
    docs/engine.md "Changing a confirmed value")."""
