"""The scenario format: typed models of a conversation test, validated at load, published as JSON Schema.

A scenario names an agent, the session's setup (``event_data``, ``channel``, a fixed clock ``now``, a
``seed``, environment knobs ``env``), the model that plays the LLM, and a list of turns — user text, a
platform event or injected variables — each with optional scripted model steps and expectations. Whole
conversation expectations (``expect``) and a simulated user (``user_sim``) are optional. Golden files of the
original platform are converted into the same models (:mod:`slotgraph.evals.golden`), so one runner and one
set of matchers serve both. See ``docs/evals.md``.
"""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "ConversationExpect",
    "Scenario",
    "ScriptStep",
    "ScriptToolCall",
    "TaskExpect",
    "TextExpect",
    "ToolCallExpect",
    "Turn",
    "TurnExpect",
    "UserSimulation",
    "scenario_json_schema",
]

Origin = Literal["model", "engine", "logic"]
Status = Literal["in_progress", "complete", "escalated", "ended"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScriptToolCall(_Strict):
    """A tool call the scripted model makes."""

    name: str = Field(description="The tool name.")
    args: dict[str, Any] = Field(default_factory=dict, description="The call's arguments.")


class ScriptStep(_Strict):
    """One scripted model response (a ScriptedStep): text and/or tool calls, with checks on the request."""

    text: str | None = Field(default=None, description="The text the model says.")
    tool_calls: list[ScriptToolCall] = Field(default_factory=list, description="Tool calls the model makes.")
    expect_tools: list[str] | None = Field(
        default=None, description="The exact set of visible tools for this call."
    )
    expect_hidden: list[str] = Field(default_factory=list, description="Tools that must be hidden.")
    expect_in_instruction: list[str] = Field(
        default_factory=list, description="Substrings the system instruction must contain."
    )
    label: str = Field(default="", description="A name for failure messages.")


class ToolCallExpect(_Strict):
    """An expected tool call of the turn: name, args as a subset, who made it, its result as a subset."""

    name: str = Field(description="The tool name.")
    args: dict[str, Any] | None = Field(
        default=None, description="A subset of the call's arguments (numbers compared by value)."
    )
    origin: Origin | None = Field(
        default=None,
        description="'model' (the LLM called it), 'engine' (a task fire...) or 'logic' (a rule or a prompt "
        "program).",
    )
    result: dict[str, Any] | None = Field(default=None, description="A subset of the tool's result.")


class TextExpect(_Strict):
    """Checks on the agent's text. ``contains``/``not_contains`` ignore case; ``regex`` does not."""

    contains: list[str] = Field(default_factory=list, description="Substrings the text must contain.")
    not_contains: list[str] = Field(default_factory=list, description="Substrings it must not contain.")
    regex: str | None = Field(
        default=None, description="A regular expression the text must match (re.search)."
    )
    equals: str | None = Field(default=None, description="The exact text.")

    @model_validator(mode="before")
    @classmethod
    def _listify(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for key in ("contains", "not_contains"):
                if isinstance(data.get(key), str):
                    data[key] = [data[key]]
        return data


class TurnExpect(_Strict):
    """What must hold after one turn."""

    tool_calls: list[ToolCallExpect] = Field(
        default_factory=list, description="Tool calls that must run in the turn (refused calls never ran)."
    )
    ordered: bool = Field(
        default=False, description="The expected tool calls must happen in the listed order."
    )
    only: bool = Field(default=False, description="No tool calls other than the listed ones may happen.")
    not_called: list[str] = Field(
        default_factory=list, description="Tools that must not run (a refused call did not run)."
    )
    refused: list[str] = Field(
        default_factory=list, description="Tools whose model calls were refused (hidden, unknown, executor)."
    )
    state: dict[str, Any] = Field(
        default_factory=dict,
        description="Dotted state paths (e.g. 'filled.party_size', 'status') → expected value (a subset).",
    )
    state_during: dict[str, Any] = Field(
        default_factory=dict,
        description="Like 'state', but holds at the end of the turn OR after any tool call in it.",
    )
    platform_matching: bool = Field(
        default=False,
        description="The original platform's golden rules: an expected {} (state or tool args) matches "
        "anything.",
    )
    transfer_to: str | None = Field(
        default=None,
        description="The conversation was handed over to this agent in the turn (a transfer out of the "
        "session naming it, or a multi-agent app's transfer to that agent).",
    )
    agent: str | None = Field(
        default=None,
        description="A multi-agent app: the agent the conversation is with after the turn (by name).",
    )
    transfer_requested: str | None = Field(
        default=None,
        description="A tool result of the turn asked for a transfer to this agent (its 'target_agent'), and "
        "the agent under test is that agent, so the conversation is already where the transfer leads.",
    )
    absent: list[str] = Field(default_factory=list, description="Dotted state paths that must not exist.")
    text: str | TextExpect | None = Field(
        default=None, description="A substring of the agent's text, or checks."
    )
    preempted: bool | None = Field(default=None, description="The model was not called at all this turn.")
    model_calls: int | None = Field(
        default=None, ge=0, description="The exact number of model calls this turn."
    )
    visible_tools: list[str] = Field(
        default_factory=list,
        description="Tools visible in the turn's first model call (the one answering the user).",
    )
    hidden_tools: list[str] = Field(
        default_factory=list, description="Tools hidden from the model in every model call of the turn."
    )
    ended: bool | None = Field(
        default=None, description="The session ended this turn (end_session or transfer)."
    )
    transfer: bool | None = Field(
        default=None, description="Handed over to a human: a transfer, or end_session with session_escalated."
    )
    refusals: int | None = Field(default=None, ge=0, description="The number of refused model tool calls.")
    payloads: list[dict[str, Any]] = Field(
        default_factory=list, description="Rich response parts expected (each a subset of a payload part)."
    )
    status: Status | None = Field(default=None, description="The session status after the turn.")
    variables: dict[str, Any] = Field(
        default_factory=dict,
        description="Dotted paths into the agent's session variables after the turn → expected value.",
    )
    topic_state: dict[str, Any] = Field(
        default_factory=dict,
        description="Dotted paths into the state of the agent's topics with their own DAG, topic id first "
        "(e.g. 'gift_cards.filled.amount') → expected value.",
    )
    rules: list[str] = Field(
        default_factory=list, description="Rules (by name) that must have fired, without failing, this turn."
    )
    guards: list[str] = Field(
        default_factory=list,
        description="Response guards (by name) that must have acted on the model's text this turn "
        "(replaced, redacted, regenerated or suppressed).",
    )
    instruction: str | TextExpect | None = Field(
        default=None,
        description="Checks on the agent's instruction (without the framework part) as the turn's last "
        "model call got it — #when sections, prompt programs and injected instructions rendered.",
    )


class Turn(_Strict):
    """One turn: user text, a platform event, or injected variables (applied before the turn is played)."""

    user: str | None = Field(default=None, description="What the user says.")
    event: str | None = Field(
        default=None, description="A platform event, e.g. 'welcome' (a turn without text)."
    )
    event_data: dict[str, Any] | None = Field(
        default=None, description="Event data merged in before this turn."
    )
    variables: dict[str, Any] | None = Field(
        default=None, description="Injected session variables; only 'event_data' is a session variable here."
    )
    model: list[ScriptStep] | None = Field(
        default=None, description="Scripted model responses for this turn (needs model: scripted)."
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Environment variables set from this turn on (tool knobs); an empty value unsets one.",
    )
    expect: TurnExpect = Field(default_factory=TurnExpect, description="What must hold after the turn.")
    note: str = Field(default="", description="Free text shown in reports.")

    @model_validator(mode="after")
    def _one_input(self) -> Turn:
        if self.user is not None and self.event is not None:
            raise ValueError("a turn has either 'user' text or an 'event', not both")
        if self.user is None and self.event is None and self.variables is None and self.event_data is None:
            raise ValueError("a turn needs 'user' text, an 'event', or 'variables'/'event_data' to inject")
        if self.variables is not None:
            unknown = sorted(set(self.variables) - {"event_data"})
            if unknown:
                raise ValueError(
                    f"cannot inject variables {unknown}: only 'event_data' is a session variable "
                    "(slot state is set through tools and events, not injected)"
                )
            if not isinstance(self.variables.get("event_data", {}), dict):
                raise ValueError("variables.event_data must be a mapping")
        return self

    @property
    def kind(self) -> Literal["user", "event", "variables"]:
        if self.user is not None:
            return "user"
        if self.event is not None:
            return "event"
        return "variables"

    def injected_event_data(self) -> dict[str, Any]:
        data: dict[str, Any] = dict((self.variables or {}).get("event_data") or {})
        data.update(self.event_data or {})
        return data


class TaskExpect(_Strict):
    """A task that fired during the conversation (by task name or executor tool), its args as a subset."""

    task: str | None = Field(default=None, description="The DAG task name, e.g. 'BookReservation'.")
    tool: str | None = Field(default=None, description="The executor tool name, e.g. 'book_reservation'.")
    args: dict[str, Any] | None = Field(default=None, description="A subset of the arguments it fired with.")

    @model_validator(mode="after")
    def _one_name(self) -> TaskExpect:
        if (self.task is None) == (self.tool is None):
            raise ValueError("give exactly one of 'task' (the DAG task name) or 'tool' (its executor)")
        return self


class ConversationExpect(_Strict):
    """What must hold at the end of the whole conversation."""

    status: Status | None = Field(default=None, description="The final session status.")
    tasks: list[TaskExpect] = Field(default_factory=list, description="Tasks that fired, with their args.")
    tool_calls: list[ToolCallExpect] = Field(
        default_factory=list,
        description="Tool calls that happened at some point (any origin; args as a subset, an empty or "
        "absent args matches any call).",
    )
    not_fired: list[str] = Field(default_factory=list, description="Task or tool names that never fired.")
    max_model_calls: int | None = Field(
        default=None, ge=0, description="An upper bound on model calls in total."
    )
    state: dict[str, Any] = Field(default_factory=dict, description="Dotted state paths → expected values.")
    ended: bool | None = Field(default=None, description="The session has ended.")


class UserSimulation(_Strict):
    """A simulated user: an LLM plays ``persona`` pursuing ``goal`` until done or ``max_turns``."""

    persona: str = Field(description="Who the user is and how they talk.")
    goal: str = Field(description="What the user wants to achieve; the scenario's 'expect' scores it.")
    max_turns: int = Field(default=12, ge=1, description="The user speaks at most this many times.")
    model: str | None = Field(
        default=None, description="The model playing the user (e.g. 'scripted:FILE.json')."
    )
    k: int = Field(default=1, ge=1, description="Repeated runs for pass^k.")
    opening: str | None = Field(
        default=None, description="The user's first message (else the model writes it)."
    )


class Scenario(_Strict):
    """A conversation test of one agent."""

    name: str | None = Field(default=None, description="The scenario's name (default: the file name).")
    description: str = Field(default="", description="What the scenario shows.")
    agent: str = Field(description="The agent directory or agent.yaml, relative to the scenario file.")
    model: str | None = Field(
        default=None,
        description="'scripted' (per-turn 'model' steps), 'replay' (the expected tool calls), 'offline', or "
        "a 'provider:model' spec. Default: scripted when a turn has steps, else the agent's model.",
    )
    event_data: dict[str, Any] = Field(default_factory=dict, description="The session's initial event data.")
    channel: str | None = Field(default=None, description="The session channel (e.g. 'voice').")
    variables: dict[str, Any] = Field(
        default_factory=dict, description="Initial values of the agent's variables (beat the defaults)."
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Caller facts the agent's expressions can read (e.g. a phone)."
    )
    now: datetime.datetime | None = Field(
        default=None, description="A fixed session clock, e.g. 2026-07-10T18:00:00."
    )
    seed: int | None = Field(default=0, description="The engine's seed (confirm-transition prefixes).")
    env: dict[str, str] = Field(
        default_factory=dict, description="Environment variables set while the scenario runs (tool knobs)."
    )
    tags: list[str] = Field(default_factory=list, description="Free labels, matched by -k.")
    turns: list[Turn] = Field(default_factory=list, description="The conversation, in order.")
    expect: ConversationExpect = Field(
        default_factory=ConversationExpect, description="Whole-conversation expectations."
    )
    user_sim: UserSimulation | None = Field(
        default=None, description="Play the user with an LLM instead of 'turns'."
    )

    @model_validator(mode="after")
    def _has_conversation(self) -> Scenario:
        if not self.turns and self.user_sim is None:
            raise ValueError("a scenario needs 'turns' (a scripted conversation) or 'user_sim'")
        if self.turns and self.user_sim is not None:
            raise ValueError("give either 'turns' or 'user_sim', not both")
        return self

    @property
    def has_script(self) -> bool:
        return any(turn.model is not None for turn in self.turns)


def scenario_json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (``slotgraph test --schema``)."""
    schema = Scenario.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Slotgraph scenario"
    return schema
