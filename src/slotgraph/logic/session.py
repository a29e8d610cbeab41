"""The logic layer as a host drives it: :class:`AgentLogic` (built once per agent) and :class:`LogicSession`.

A host (the runtime's turn loop, another adapter) does four things per turn and nothing else:

1. ``await logic.start_turn(user_text, sm)`` — fires ``session_start`` (first turn only), ``user_message``
   (when there is user text) and ``turn_start``;
2. before **every** model call, ``await logic.instruction(sm)`` — the instruction rebuilt against live state
   (``#when`` sections, tags, prompt programs) plus the instructions rules injected;
3. after every tool result, ``await logic.after_tool(name, result, sm)`` — fires ``tool_result``;
4. ``await logic.end_turn(sm)`` — fires ``turn_end``; then persists :meth:`LogicSession.record`.

Writes made outside the rules — the model's ``set_variables``, tool captures, background extraction — fire
the ``variable_changed`` rules at the next of these points (after the tool call that made them, else at the
end of the turn); prompt-program writes never do.

``sm`` is the slot-filling state; it is only read, to expose ``filled``, ``status`` and ``current_phase`` to
expressions. Every call returns the :class:`~slotgraph.logic.rules.RuleEffects` of the rules it fired.
Nothing here raises into the turn.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from slotgraph.config.logic import (
    ExtractionConfig,
    HandoffConfig,
    ResponseGuardConfig,
    RuleConfig,
    SafetyConfig,
    TopicConfig,
    VariableDeclaration,
)
from slotgraph.config.tool_logic import BuiltinToolSettings, ToolLogicConfig
from slotgraph.expr import extract_output_path
from slotgraph.logic.conditions import Judging, LogicJudge
from slotgraph.logic.errors import VariableWriteError
from slotgraph.logic.gates import CompiledToolLogic, ToolGates, compile_tool_logic
from slotgraph.logic.guards import (
    CompiledGuard,
    GuardedReply,
    GuardJudge,
    Regenerate,
    compile_guards,
    guard_reply,
)
from slotgraph.logic.handoff import CompiledDestination, HandoffOutcome, compile_handoff, start_consult
from slotgraph.logic.render import render_template
from slotgraph.logic.rules import CompiledRule, RuleEffects, RuleEngine, compile_rules
from slotgraph.logic.safety import SafetyClassifier
from slotgraph.logic.templates import Template, parse_template
from slotgraph.logic.tooling import ProgramBudget, RunCache, ToolInvoker
from slotgraph.logic.topics import (
    MAIN,
    TOPIC_VARIABLE,
    CompiledTopic,
    TopicManager,
    TopicMove,
    compile_topics,
)
from slotgraph.logic.variables import PUBLISH_SOURCE, SlotFillingFacts, VariableChange, VariableStore
from slotgraph.names import SET_VARIABLES

__all__ = ["RECORD_KEY", "AgentLogic", "LogicRecord", "LogicSession", "variables_snapshot"]

logger = logging.getLogger("slotgraph.logic")

_BLANK_LINES: Final = re.compile(r"\n[ \t]*(?:\n[ \t]*)+\n")
"""Lines left empty by statements and untaken sections collapse into one blank line."""

_OUTSIDE_WRITERS: Final = frozenset({SET_VARIABLES, "extraction"})
"""Write sources (besides ``capture:<tool>``) whose changes fire ``variable_changed`` rules after the call."""

RECORD_KEY: Final = "logic"
"""The key of the logic layer's part of a persisted session record."""


@dataclass(frozen=True, slots=True)
class AgentLogic:
    """An agent's logic, compiled once: declarations, the instruction template and the rules."""

    declarations: tuple[VariableDeclaration, ...] = ()
    template: Template = field(default_factory=lambda: parse_template(""))
    rules: tuple[CompiledRule, ...] = ()
    budget: ProgramBudget = field(default_factory=ProgramBudget)
    tool_logic: Mapping[str, CompiledToolLogic] = field(default_factory=dict)
    """The ``tool_logic:`` gates and contracts, by tool name."""
    builtin_tools: BuiltinToolSettings = field(default_factory=BuiltinToolSettings)
    """Settings of the built-in tools (``end_session``: ``require_summary``, ``params_fields``)."""
    guards: tuple[CompiledGuard, ...] = ()
    topics: tuple[CompiledTopic, ...] = ()
    extraction: ExtractionConfig | None = None
    """Background extraction of the variables declared ``extraction: true``."""
    safety: SafetyConfig | None = None
    """The safety classifier and profiles guards and tool settings check against."""
    handoff: tuple[CompiledDestination, ...] = ()
    """The warm hand-off destinations (``handoff:``) of ``start_consult``, with their routing rules."""

    @classmethod
    def build(
        cls,
        instruction: str = "",
        variables: Sequence[VariableDeclaration] = (),
        rules: Sequence[RuleConfig] = (),
        *,
        budget: ProgramBudget | None = None,
        tool_logic: Mapping[str, ToolLogicConfig] | None = None,
        builtin_tools: BuiltinToolSettings | None = None,
        guards: Sequence[ResponseGuardConfig] = (),
        topics: Sequence[TopicConfig] = (),
        extraction: ExtractionConfig | None = None,
        safety: SafetyConfig | None = None,
        handoff: HandoffConfig | None = None,
    ) -> AgentLogic:
        """Compile an agent's logic (run :func:`slotgraph.logic.validation.logic_issues` first for errors
        with locations; here a bad rule expression raises ExpressionSyntaxError)."""
        return cls(
            tuple(variables),
            parse_template(instruction),
            compile_rules(rules),
            budget or ProgramBudget(),
            compile_tool_logic(tool_logic or {}, safety),
            builtin_tools or BuiltinToolSettings(),
            compile_guards(guards, safety),
            compile_topics(topics),
            extraction,
            safety,
            compile_handoff(handoff),
        )

    @property
    def active(self) -> bool:
        """Whether the agent uses the logic layer at all (else the instruction is used verbatim)."""
        return bool(
            self.declarations
            or self.rules
            or self.template.has_logic
            or self.tool_logic
            or self.builtin_tools.end_session.require_summary
            or bool(self.builtin_tools.end_session.params_fields)
            or self.guards
            or self.topics
            or self.handoff
        )

    @property
    def extracted(self) -> frozenset[str]:
        """The variables background extraction fills (declared ``extraction: true``, with an extractor)."""
        if self.extraction is None:
            return frozenset()
        return frozenset(d.name for d in self.declarations if d.extraction)

    @property
    def maintained(self) -> dict[str, Any]:
        """The variables the logic layer's capabilities maintain, with the value a session starts with:
        ``current_topic`` (``""``, the main conversation) for an agent with topics or ``transition`` rules."""
        moves = any(action.kind == "transition" for rule in self.rules for action in rule.actions)
        return {TOPIC_VARIABLE: MAIN} if self.topics or moves else {}

    @property
    def mutable_variables(self) -> tuple[VariableDeclaration, ...]:
        """The declarations the model may write (through ``set_variables``): not linked, not published, not
        maintained by a capability of the logic layer."""
        maintained = self.maintained
        return tuple(d for d in self.declarations if d.writable and d.name not in maintained)


@dataclass(frozen=True, slots=True)
class LogicRecord:
    """What the logic layer persists with a session (under :data:`RECORD_KEY`)."""

    variables: Mapping[str, Any] = field(default_factory=dict)
    injected: tuple[str, ...] = ()
    started: bool = False
    topic_stack: tuple[str, ...] = ()
    """Where ``__return__`` goes back to, innermost last (``""`` is the main conversation)."""
    unextracted: tuple[str, ...] = ()
    """Caller messages whose background extraction had not succeeded when the turn was saved: the next
    extraction reads them again (so a gate never binds a value older than what the caller said)."""
    topic_states: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The slot-filling state of every topic with its own DAG that the conversation has entered, by topic
    id: kept while the conversation is elsewhere, found again on re-entry."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "variables": dict(self.variables),
            "injected": list(self.injected),
            "started": self.started,
        }
        if self.topic_stack:
            data["topic_stack"] = list(self.topic_stack)
        if self.unextracted:
            data["unextracted"] = list(self.unextracted)
        if self.topic_states:
            data["topic_states"] = {topic: dict(state) for topic, state in self.topic_states.items()}
        return data

    @classmethod
    def from_json(cls, data: Any) -> LogicRecord:
        """Read a stored record; a malformed part is dropped, never guessed (``ValueError`` says what)."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ValueError(f"'{RECORD_KEY}' must be an object, got {type(data).__name__}")
        variables = data.get("variables", {})
        injected = data.get("injected", [])
        started = data.get("started", False)
        unextracted = data.get("unextracted", [])
        if not isinstance(unextracted, list) or not all(isinstance(i, str) for i in unextracted):
            raise ValueError(f"'{RECORD_KEY}.unextracted' must be a list of strings")
        if not isinstance(variables, Mapping):
            raise ValueError(f"'{RECORD_KEY}.variables' must be an object, got {type(variables).__name__}")
        if not isinstance(injected, list) or not all(isinstance(i, str) for i in injected):
            raise ValueError(f"'{RECORD_KEY}.injected' must be a list of strings")
        if not isinstance(started, bool):
            raise ValueError(f"'{RECORD_KEY}.started' must be a boolean")
        stack = data.get("topic_stack", [])
        if not isinstance(stack, list) or not all(isinstance(t, str) for t in stack):
            raise ValueError(f"'{RECORD_KEY}.topic_stack' must be a list of strings")
        states = data.get("topic_states", {})
        if not isinstance(states, Mapping) or not all(
            isinstance(t, str) and isinstance(v, Mapping) for t, v in states.items()
        ):
            raise ValueError(f"'{RECORD_KEY}.topic_states' must be an object of topic id → state object")
        topic_states = {topic: dict(state) for topic, state in states.items()}
        return cls(dict(variables), tuple(injected), started, tuple(stack), tuple(unextracted), topic_states)


class LogicSession:
    """One session's logic: its variable store, rules, injected instructions and run cache."""

    def __init__(
        self,
        logic: AgentLogic,
        record: LogicRecord | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        initial_variables: Mapping[str, Any] | None = None,
        invoker: ToolInvoker | None = None,
        cache: RunCache | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        record = record or LogicRecord()
        self.logic = logic
        self.store = VariableStore(logic.declarations, record.variables, metadata=metadata)
        self.seed_problems = self.store.seed(initial_variables if not record.started else None)
        for name, initial in logic.maintained.items():
            self.store.maintain(name, initial)
        self.started = record.started
        self.unextracted: tuple[str, ...] = record.unextracted
        """Messages background extraction has yet to read (the host keeps it current)."""
        self.injected: list[str] = list(record.injected)
        self._delivered = 0
        self.cache = cache if cache is not None else RunCache(clock=clock)
        self.clock = clock
        self.topic_states: dict[str, Mapping[str, Any]] = dict(record.topic_states)
        """The state of every topic with its own DAG the conversation entered (the host keeps it)."""
        self.judging = Judging()
        """The judge of the conditions an LLM decides (bound per turn) and the person's latest message."""
        self.topics: TopicManager | None = None
        """The agent's topics (``current_topic`` and the return stack); None when it has none."""
        if logic.topics:
            self.topics = TopicManager(
                {t.id: t for t in logic.topics}, self.store, list(record.topic_stack), self.judging
            )
        self.rules = RuleEngine(logic.rules, self.store, invoker, topics=self.topics, judging=self.judging)
        self.rules.moved = self.moved_text
        self._outside_writes: list[VariableChange] = []
        self.store.subscribe(self._note_write)
        self.gates = ToolGates(logic.tool_logic, self.store, self.judging)
        """The ``tool_logic:`` gates over this session's variables."""
        self._publishers: dict[str, list[VariableDeclaration]] = {}
        for declaration in logic.declarations:
            for tool in declaration.published_by.tools if declaration.published_by is not None else ():
                self._publishers.setdefault(tool, []).append(declaration)
        self.warnings: list[str] = []

    def bind_tools(
        self,
        invoker: ToolInvoker | None,
        judge: LogicJudge | None = None,
        classifier: SafetyClassifier | None = None,
    ) -> None:
        """Use ``invoker`` for ``{{run}}`` statements and rule actions from now on (the host's tool path),
        ``judge`` for the conditions an LLM decides (rules, tool gates, topics, hand-offs) and ``classifier``
        for safety checks (guards, tool settings)."""
        self.rules.invoker = invoker
        self.judging.judge = judge
        self.judging.classifier = classifier

    def _sync(self, sm: Mapping[str, Any]) -> None:
        self.store.facts = SlotFillingFacts.from_state(sm)

    def _apply(self, effects: RuleEffects) -> RuleEffects:
        self.injected.extend(effects.instructions)
        return effects

    async def start_turn(self, user_text: str, sm: Mapping[str, Any]) -> RuleEffects:
        """Fire ``session_start`` (first turn), ``user_message`` (with user text) and ``turn_start``."""
        self._sync(sm)
        self._delivered = 0
        self.judging.message = user_text
        await self.gates.judge_turn()
        effects = RuleEffects()
        if not self.started:
            self.started = True
            effects.extend(self._apply(await self.rules.fire("session_start")))
        if user_text and not effects.ended:
            effects.extend(self._apply(await self.rules.fire("user_message")))
        if not effects.ended:
            effects.extend(self._apply(await self.rules.fire("turn_start")))
        if not effects.ended:
            effects.extend(await self.variables_changed(sm))
        return effects

    def _note_write(self, change: VariableChange) -> None:
        if change.source in _OUTSIDE_WRITERS or change.source.startswith(("capture:", PUBLISH_SOURCE)):
            self._outside_writes.append(change)

    def publish(self, tool: str, result: Any) -> list[str]:
        """Write the variables ``tool`` publishes from its ``result`` (every result of the tool: success or
        failure, model, rule or engine call). A result without the path, or with a value that is not one of
        the variable's states, changes nothing; what was refused is returned (one line each) and logged."""
        problems: list[str] = []
        for declaration in self._publishers.get(tool, ()):
            spec = declaration.published_by
            assert spec is not None
            value = extract_output_path(result, spec.path)
            if value is None:
                continue
            if spec.values is not None and value not in spec.values:
                logger.info("%s: %r is not a state of %s; not published", tool, value, declaration.name)
                continue
            try:
                self.store.set(declaration.name, value, source=f"{PUBLISH_SOURCE}{tool}")
            except VariableWriteError as err:
                logger.warning("%s: publishing %s refused: %s", tool, declaration.name, err)
                problems.append(f"{declaration.name}: {err}")
        return problems

    async def variables_changed(self, sm: Mapping[str, Any]) -> RuleEffects:
        """Fire the ``variable_changed`` rules of the writes made since the last call by the model
        (``set_variables``), tool captures and background extraction."""
        self._sync(sm)
        changes, self._outside_writes = self._outside_writes, []
        return self._apply(await self.rules.fire_changes(changes)) if changes else RuleEffects()

    async def after_tool(self, name: str, result: Any, sm: Mapping[str, Any]) -> RuleEffects:
        """Fire the ``tool_result`` rules of tool ``name``, then the ``variable_changed`` rules of the
        variables the call wrote (``set_variables``, captures, extraction it waited for)."""
        self._sync(sm)
        effects = self._apply(await self.rules.fire("tool_result", tool=name, result=result))
        effects.extend(await self.variables_changed(sm))
        return effects

    async def end_turn(self, sm: Mapping[str, Any]) -> RuleEffects:
        """Fire ``turn_end``, then check the active topic's ``return_when``; instructions a model call got
        this turn are dropped, newer ones kept."""
        self._sync(sm)
        del self.injected[: self._delivered]
        self._delivered = 0
        effects = await self.variables_changed(sm)
        effects.extend(self._apply(await self.rules.fire("turn_end")))
        move = await self.topics.return_due() if self.topics is not None else None
        if move is not None:
            effects.events.append(move.event)
            self.injected.append(await self.moved_text(move))
        return effects

    async def consult(self, args: Mapping[str, Any], sm: Mapping[str, Any]) -> HandoffOutcome:
        """The model's ``start_consult``: the destination's routing rule checked (fail open), and the context
        the receiver gets."""
        self._sync(sm)
        return await start_consult(
            self.logic.handoff, args, self.store, self.judging, self.store.facts.filled
        )

    async def transition(self, topic: str, sm: Mapping[str, Any]) -> tuple[TopicMove, str]:
        """The model's ``transition_topic``: the move, and the resolved instructions it leads to (empty when
        refused)."""
        self._sync(sm)
        if self.topics is None:
            raise ValueError("this agent has no topics")
        move = await self.topics.move(topic, via="model")
        return move, (await self.prompt_text() if move.ok else "")

    async def prompt_text(self) -> str:
        """The active prompt — the active topic's instructions, else the main instruction — rendered against
        the live variables (resolved: ``#when`` taken, ``{{name}}`` filled, statements run and consumed)."""
        rendered = await render_template(
            self._template(),
            self.store,
            invoker=self.rules.invoker,
            budget=self.logic.budget,
            cache=self.cache,
            clock=self.clock,
        )
        self.warnings.extend(rendered.warnings)
        return _BLANK_LINES.sub("\n\n", rendered.text).strip()

    async def moved_text(self, move: TopicMove) -> str:
        """The one instruction a rule-initiated move or an automatic return delivers: worded as a
        replacement of the prompt, with the resolved instructions of where the conversation is now."""
        where = move.event.to_topic or "the main conversation"
        return (
            f"The conversation has moved to {where}. From now on follow these instructions instead of "
            f"earlier ones:\n{await self.prompt_text()}"
        )

    def _template(self) -> Template:
        topic = self.topics.active() if self.topics is not None else None
        if topic is not None and topic.template is not None:
            return topic.template
        return self.logic.template

    async def instruction(self, sm: Mapping[str, Any]) -> str:
        """The instruction for the next model call, rendered against live state, plus injected ones. While a
        topic with instructions is active, its instructions replace the main ones (prompt takeover)."""
        self._sync(sm)
        rendered = await render_template(
            self._template(),
            self.store,
            invoker=self.rules.invoker,
            budget=self.logic.budget,
            cache=self.cache,
            clock=self.clock,
        )
        self.warnings.extend(rendered.warnings)
        self._delivered = len(self.injected)
        text = _BLANK_LINES.sub("\n\n", rendered.text).strip()
        if self.injected:
            joined = "\n".join(f"- {line}" for line in self.injected)
            text = f"{text}\n\n<injected_instructions>\n{joined}\n</injected_instructions>".strip()
        return text

    async def guard(
        self,
        text: str,
        sm: Mapping[str, Any],
        *,
        judge: GuardJudge | None = None,
        regenerate: Regenerate | None = None,
    ) -> GuardedReply:
        """``text`` checked by the agent's response guards (see :mod:`slotgraph.logic.guards`)."""
        if not self.logic.guards:
            return GuardedReply(text)
        self._sync(sm)
        return await guard_reply(
            text,
            self.logic.guards,
            self.condition_variables(),
            judge=judge,
            regenerate=regenerate,
            classifier=self.judging.classifier,
            user=self.judging.message,
        )

    def condition_variables(self) -> dict[str, Any]:
        """What DAG slot and task conditions may read besides the filled slots: session metadata, then the
        variables (declared, linked, and every other one set)."""
        return {**self.store.metadata, **self.store.snapshot()}

    def record(self) -> LogicRecord:
        stack = tuple(self.topics.stack) if self.topics is not None else ()
        return LogicRecord(
            self.store.values(),
            tuple(self.injected),
            self.started,
            stack,
            self.unextracted,
            dict(self.topic_states),
        )


def variables_snapshot(
    logic: AgentLogic,
    record: LogicRecord,
    sm: Mapping[str, Any],
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The variables of a stored session as a reader sees them (linked ones resolved against ``sm``)."""
    store = VariableStore(logic.declarations, record.variables, metadata=metadata)
    if not record.started:
        store.seed()
    for name, initial in logic.maintained.items():
        store.maintain(name, initial)
    store.facts = SlotFillingFacts.from_state(sm)
    return store.snapshot()
