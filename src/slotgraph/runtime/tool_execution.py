"""Running one tool call — or refusing it — and routing its result into the state
(docs/engine.md#tool-result-routing).

Calls from the **model** are checked first, in this order, and refused (never executed) when:

- ``session_ended``: the session already ended this turn;
- ``unknown_tool``: no tool of that name exists;
- ``executor``: the tool is a task executor — tasks run only through the engine's ``function_call``;
- ``hidden_tool``: the engine hid the tool for this call (refused *by the DAG*);
- ``gate_closed``: the tool's ``available_when`` gate is closed (refused *by the gate*);
- ``bad_arguments``: the arguments do not match the tool's schema.

With agent logic, a :class:`~slotgraph.runtime.tool_gates.GateLayer` then *prepares* every model and logic
call before it runs — waiting for background extraction when the tool binds an extracted variable, the gate
again, bound arguments, the ending-summary requirement, the full schema — then the tool's execution
contracts (:mod:`~slotgraph.runtime.contracts`: an idempotency key reserved in the store's ledger, a
receipt read) decide whether it runs, replays its original result or is refused; the result's captures
are written afterwards. A gated tool's ``progress_message`` is said right before it runs (a
:class:`~slotgraph.runtime.events.TextEvent` with ``origin="logic"``).

A refusal is a tool result the model can read (``{"error": true, "refused": ..., "message": ...}``), a
:class:`~slotgraph.runtime.events.RefusalEvent`, and a warning on the ``slotgraph.runtime`` logger.

Calls from the **engine** (task fires, auto-confirm, ``on_exhaust.then``) skip the visibility checks. A tool
that raises never crashes the turn: an executor's exception becomes ``{"success": False, "error": "<Exc>:
msg"}`` routed to the engine like any task failure (so its retries apply); any other tool's exception becomes
a failed result ``{"error": true, "failed": true, ...}`` the model can read, and the state is left as it was.

A tool's result is made JSON before it is routed (:func:`~slotgraph.runtime.json_values.tool_result_json`:
dates become ISO strings, tuples and sets lists), so the state stays storable; a result that cannot be
(an object, ``nan``) fails the call like an exception would, with an ``InvalidResult: <path> ...`` error.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from time import perf_counter
from typing import Any, Literal, TypeVar

from slotgraph.config.compiled import CompiledDag
from slotgraph.config.limits import LimitsConfig
from slotgraph.models.protocol import ToolCall, ToolSchema
from slotgraph.names import START_CONSULT
from slotgraph.runtime.builtin_tools import (
    CONFIRM_PENDING,
    END_SESSION,
    ESCALATE,
    READBACK_TOOLS,
    REJECT_PENDING,
    readback_result,
)
from slotgraph.runtime.contracts import Admission, Contracts
from slotgraph.runtime.engine_port import Engine
from slotgraph.runtime.errors import SlotgraphRuntimeError
from slotgraph.runtime.events import (
    AgentTransferEvent,
    EndSessionEvent,
    ErrorEvent,
    Event,
    RefusalEvent,
    RefusalReason,
    RefusedBy,
    StateSnapshotEvent,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    TransferEvent,
)
from slotgraph.runtime.executions import Attempt, Executions
from slotgraph.runtime.fencing import fence_value
from slotgraph.runtime.json_values import tool_result_json
from slotgraph.runtime.loop_watch import watch_loop
from slotgraph.runtime.state_copy import StateSnapshot
from slotgraph.runtime.tool_gates import GateDecision, GateLayer
from slotgraph.runtime.tool_threads import CallClock, ToolBusy, call_clock, reset_call_clock
from slotgraph.runtime.tools import Abandoned, Tool, ToolContext, ToolRegistry
from slotgraph.stores.ledger import ExecutionLedger

__all__ = ["ToolOutcome", "ToolRaised", "ToolRunner", "raised", "refusal_result", "tool_code"]

logger = logging.getLogger("slotgraph.runtime")

_T = TypeVar("_T")


def refusal_result(reason: RefusalReason, message: str) -> dict[str, Any]:
    """The tool result a refused call gets: the model reads it and can act on it."""
    return {"error": True, "refused": reason, "message": message}


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one call did: its result (for the model), the new state, the events, and what it ended."""

    result: Any
    sm: dict[str, Any]
    events: tuple[Event, ...]
    refused: bool = False
    ended: bool = False
    transfer: str | None = None
    """The agent of the app this call's result hands the conversation to (its ``target_agent``)."""
    halted: bool = False
    """The call's outcome is unknown (an interrupted executor attempt nobody can settle): the turn stops."""
    replayed: bool = False
    """An execution contract replayed the original result of a repeated write (nothing ran); its
    ``tool_result`` rules do not fire again."""


@dataclass(frozen=True, slots=True)
class ToolRunner:
    """Runs tool calls for one session."""

    dag: CompiledDag
    registry: ToolRegistry
    engine: Engine
    session_id: str
    channel: str | None
    clock_now: datetime
    extra_context: Mapping[str, Any] = field(default_factory=dict)
    agent_name: str = ""
    """The session's agent: a routing tool's ``target_agent`` naming another agent hands the session over."""
    executions: Executions | None = None
    """Numbers task-executor attempts and records them in the ledger (None: executors run without keys)."""
    ledger: ExecutionLedger | None = None
    """Where execution contracts reserve idempotency keys (the session store's ledger)."""
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    """Tool timeouts (``limits:`` in agent.yaml)."""
    gates: GateLayer | None = None
    """The session's gate layer (agents with logic): gates, bound arguments, captures, ``set_variables``."""
    team: frozenset[str] = frozenset()
    """The agents of a multi-agent app: any successful tool result whose ``target_agent`` names another of
    them hands the conversation over within the turn (``ToolOutcome.transfer``), not out of the session."""

    def offered(self, visible: tuple[str, ...]) -> tuple[str, ...]:
        """The DAG-visible tools whose gate is open: the tools the model is offered."""
        return visible if self.gates is None else self.gates.offered(visible)

    def schemas(self, visible: tuple[str, ...]) -> tuple[ToolSchema, ...]:
        """What the model is offered: the DAG-visible tools whose gate is open, as the model sees them."""
        if self.gates is None:
            return self.registry.schemas(visible)
        return self.gates.schemas(self.registry, visible)

    def context(self, sm: Mapping[str, Any]) -> ToolContext:
        """What a tool may know of the session (a read-only copy of ``sm``)."""
        return self._context(sm)

    def _context_for(
        self, tool: Tool, sm: Mapping[str, Any], idempotency_key: str | None = None
    ) -> ToolContext | None:
        """The context ``tool`` is called with: None for one that reads none (:attr:`Tool.needs_context`;
        building it costs a :class:`ToolContext` and a state snapshot per call)."""
        return self._context(sm, idempotency_key) if tool.needs_context else None

    def _context(self, sm: Mapping[str, Any], idempotency_key: str | None = None) -> ToolContext:
        return ToolContext(
            self.clock_now,
            self.clock_now.date(),
            StateSnapshot(sm),
            self.channel,
            self.session_id,
            idempotency_key,
        )

    def refuse(self, call: ToolCall, reason: RefusalReason, message: str, sm: dict[str, Any]) -> ToolOutcome:
        """Refuse a model call (it is not run): the model reads ``message``."""
        return self._refuse(call, reason, message, sm)

    def _refuse(
        self,
        call: ToolCall,
        reason: RefusalReason,
        message: str,
        sm: dict[str, Any],
        *,
        by: RefusedBy = "runtime",
        origin: Literal["model", "engine", "logic"] = "model",
    ) -> ToolOutcome:
        logger.warning(
            "refused %s tool call %s(%s) (by the %s): %s — %s",
            origin,
            call.name,
            dict(call.args),
            by,
            reason,
            message,
        )
        result = refusal_result(reason, message)
        events: tuple[Event, ...] = (
            ToolCallEvent(call.id, call.name, dict(call.args), origin),
            RefusalEvent(call.id, call.name, dict(call.args), reason, message, by),
            ToolResultEvent(call.id, call.name, result, failed=True),
        )
        return ToolOutcome(result, sm, events, refused=True)

    def check_model_call(
        self,
        call: ToolCall,
        visible: Collection[str],
        sm: dict[str, Any],
        *,
        ended: bool,
        args_problem: str | None = None,
    ) -> ToolOutcome | None:
        """A refusal for a model call that must not run, else None.

        ``args_problem`` says what was wrong with the arguments the model sent (not a JSON object) when the
        caller had to replace them; the call is then refused as ``bad_arguments`` with that message.
        """
        tool = self.registry.get(call.name)
        if ended:
            return self._refuse(call, "session_ended", "The session has ended; no more tools can run.", sm)
        if tool is None:
            names = ", ".join(sorted(visible)) or "none"
            return self._refuse(
                call,
                "unknown_tool",
                f"There is no tool named {call.name!r}. Tools you can call now: {names}.",
                sm,
            )
        if call.name in self.dag.executor_tasks:
            return self._refuse(
                call,
                "executor",
                f"{call.name} runs automatically when its information is complete; do not call it. "
                "Continue the conversation instead.",
                sm,
            )
        if call.name not in visible:
            return self._refuse(
                call,
                "hidden_tool",
                f"{call.name} is not available right now. Follow the current instructions and use only the "
                "tools you are given.",
                sm,
                by="dag",
            )
        if self.gates is not None:
            closed = self.gates.closed_before_run(call.name)
            if closed is not None:
                return self._refuse(call, closed.reason, closed.message, sm, by=closed.by)
            if args_problem is None:
                return None  # the gate layer prepares (binds, then checks) the arguments in run()
        problem = args_problem
        if problem is None:
            _, problem = tool.check_args(call.args)
        if problem is not None:
            return self._refuse(
                call,
                "bad_arguments",
                f"Invalid arguments for {call.name}: {problem}. Call it again with "
                "arguments that match its schema.",
                sm,
            )
        return None

    async def run(
        self, call: ToolCall, sm: dict[str, Any], *, origin: Literal["model", "engine", "logic"]
    ) -> ToolOutcome:
        """Execute an (already admitted) call and route its result through the engine's ``after_tool``."""
        events: list[Event] = [ToolCallEvent(call.id, call.name, dict(call.args), origin)]
        if call.name in READBACK_TOOLS:
            return self._run_readback(call, sm, events)
        tool = self.registry.get(call.name)
        is_executor = call.name in self.dag.executor_tasks
        if tool is None:  # only reachable for engine calls: a config naming a tool the agent lacks
            message = f"the engine called {call.name!r}, which is not a tool of this agent"
            logger.error("%s", message)
            result: Any = {"success": False, "error": f"UnknownTool: {message}"}
            return self._finish(call, sm, events, result, failed=True, route=is_executor)
        admission: Admission | None = None
        if self.gates is not None and origin != "engine":
            gated = await self._gated(call, tool, sm, events, origin)
            if isinstance(gated, ToolOutcome):
                return gated
            call, admission = gated
            args: dict[str, Any] | None = dict(call.args)
            problem: str | None = None
        else:
            args, problem = tool.check_args(call.args)
        if args is None:
            logger.error("engine call %s has invalid arguments: %s", call.name, problem)
            result = {"success": False, "error": f"InvalidArguments: {problem}"}
            return self._finish(call, sm, events, result, failed=True, route=is_executor)
        if is_executor and self.executions is not None:
            return await self._run_attempt(call, tool, args, sm, events, self.executions)
        started = perf_counter()
        done = await self._invoke(call, tool, args, sm, is_executor, None)
        took = (perf_counter() - started) * 1000
        assert not isinstance(done, _Overdue)  # only a call with an idempotency key is kept running
        result, failed = done
        if admission is not None and failed and admission.reserved and isinstance(result, dict):
            result["message"] = str(result.get("message", "")) + (
                " It had already started, so its outcome is not confirmed: it may or may not have happened. "
                "Do not try again; tell the person it will be checked."
            )
        elif admission is not None and not failed:
            await admission.confirm(result)
        if not failed and self.gates is not None and origin != "engine":
            self.gates.capture(call.name, result)
        route = is_executor or not failed
        return self._finish(call, sm, events, result, failed=failed, route=route, duration_ms=took)

    async def _run_attempt(
        self,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        sm: dict[str, Any],
        events: list[Event],
        executions: Executions,
    ) -> ToolOutcome:
        """A task executor's call as one ledger-recorded attempt (see :mod:`slotgraph.runtime.executions`)."""
        attempt = await executions.begin(call.name, args)
        if attempt.action == "reuse":
            assert attempt.entry is not None
            result = attempt.entry.result
            executions.settle(attempt)
            return self._finish(call, sm, events, result, failed=_is_failure(result), route=True)
        if attempt.action == "ask":
            work = tool.abandoned.get(attempt.key)
            if (
                work is not None and not work.done()
            ):  # still running in this process: ask nothing, send nothing
                return self._pending(call, sm, events, attempt.key, "is still running")
            if work is not None:
                del tool.abandoned[attempt.key]
                if not work.cancelled():  # it returned after its turn stopped waiting: its result is known
                    result = _late_result(call.name, work)
                    await executions.finish(attempt, result)
                    return self._finish(call, sm, events, result, failed=_is_failure(result), route=True)
            known = await self._asked(call, tool, attempt.key)
            if known is _UNKNOWN:
                return self._pending(call, sm, events, attempt.key, "could not be checked yet")
            if isinstance(known, tuple):
                result, failed = known
                await executions.finish(attempt, result)
                return self._finish(call, sm, events, result, failed=failed, route=True)
            if tool.status_hook is None and not tool.takes_idempotency_key:
                return self._unconfirmed(call, sm, events, attempt.key)
            # the hook says the key never took effect, or the executor deduplicates by key: run it
        started = perf_counter()
        done = await self._invoke(
            call,
            tool,
            args,
            sm,
            True,
            attempt.key,
            keep=lambda work: self._record_late(tool, attempt, executions, work),
        )
        took = (perf_counter() - started) * 1000
        if isinstance(done, _Overdue):  # the call goes on: its result is recorded when it returns
            return self._pending(call, sm, events, attempt.key, f"did not answer within {done.seconds:g}s")
        result, failed = done
        await executions.finish(attempt, result)
        return self._finish(call, sm, events, result, failed=failed, route=True, duration_ms=took)

    def _record_late(self, tool: Tool, attempt: Attempt, executions: Executions, work: Abandoned) -> None:
        """Keep an attempt abandoned at its timeout in ``tool.abandoned`` and record its result in the ledger
        when it returns, so the next access reuses it (in any process; this one reuses it even if the
        recording cannot run, e.g. its event loop has closed)."""
        tool.abandoned[attempt.key] = work
        loop = asyncio.get_running_loop()
        recordings: set[asyncio.Task[None]] = set()

        async def record() -> None:
            if (
                work.cancelled()
            ):  # an async executor cancelled after all (its loop shut down): outcome unknown
                return
            try:
                await executions.record(attempt, _late_result(tool.name, work))
            except Exception:
                logger.exception(
                    "session %s: could not record the late result of %s", self.session_id, attempt.key
                )
                return
            if tool.abandoned.get(attempt.key) is work:
                del tool.abandoned[attempt.key]
            logger.warning(
                "session %s: %s returned after its timeout; its result is recorded under %s and routed on "
                "the session's next message",
                self.session_id,
                tool.name,
                attempt.key,
            )

        def returned(_: object) -> None:
            task = loop.create_task(record())
            recordings.add(task)  # a strong reference until it is done
            task.add_done_callback(recordings.discard)

        def from_any_thread(done: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: the next access records it
                loop.call_soon_threadsafe(returned, done)

        work.add_done_callback(from_any_thread)

    async def _asked(self, call: ToolCall, tool: Tool, key: str) -> tuple[Any, bool] | object | None:
        """The status hook's answer for an interrupted attempt: its result, None (no hook, or the key never
        took effect) or :data:`_UNKNOWN` (the hook raised or did not answer in time: ask again later)."""
        if tool.status_hook is None:
            return None
        try:
            hook = tool_code(tool.ask_status(key))
            found = await asyncio.wait_for(hook, self.limits.timeout_for(call.name))
        except Exception:
            logger.exception("the status hook of %s raised or did not answer for %s", call.name, key)
            return _UNKNOWN
        if found is None:
            return None
        try:
            return tool_result_json(found), _is_failure(found)
        except TypeError as problem:
            return {"success": False, "error": f"InvalidResult: {problem}"}, True

    def _pending(
        self, call: ToolCall, sm: dict[str, Any], events: list[Event], key: str, why: str
    ) -> ToolOutcome:
        """An attempt that may still take effect (it outlived its timeout, or its status hook could not say):
        not failed, not retried; the turn stops and the person is told it cannot be confirmed yet."""
        message = (
            f"{call.name} {why}; its outcome (idempotency key {key!r}) is not known yet, so it is neither "
            "failed nor run again: its result is recorded when it returns, or its status hook is asked on "
            "the next message"
        )
        logger.warning("session %s: %s", self.session_id, message)
        result = {"success": False, "pending": True, "idempotency_key": key, "error": f"Pending: {message}"}
        events.append(ToolResultEvent(call.id, call.name, result, failed=True))
        events.append(TextEvent(PENDING_REPLY, origin="engine"))
        events.append(ErrorEvent("execution_pending", message))
        return ToolOutcome(result, sm, tuple(events), halted=True)

    def _unconfirmed(self, call: ToolCall, sm: dict[str, Any], events: list[Event], key: str) -> ToolOutcome:
        """An attempt whose outcome nobody can tell: the person hears something human, the operator's
        instructions go to the log and the ``execution_unconfirmed`` error."""
        message = (
            f"{call.name} was started by an interrupted turn (idempotency key {key!r}) and its outcome is "
            "unknown; it is not run again. Settle it in the session store's ledger: `slotgraph executions "
            f"settle {key} --result JSON` (what the backend did) or `--not-performed` (release it to run "
            "again), with --store naming the store; or give the executor an idempotency_status hook or an "
            "idempotency_key parameter"
        )
        logger.error("session %s: %s", self.session_id, message)
        result = {
            "success": False,
            "unconfirmed": True,
            "idempotency_key": key,
            "error": f"Unconfirmed: {message}",
        }
        events.append(ToolResultEvent(call.id, call.name, result, failed=True))
        events.append(TextEvent(UNCONFIRMED_REPLY, origin="engine"))
        events.append(ErrorEvent("execution_unconfirmed", message))
        return ToolOutcome(result, sm, tuple(events), halted=True)

    async def _invoke(
        self,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        sm: dict[str, Any],
        is_executor: bool,
        key: str | None,
        *,
        keep: Callable[[Abandoned], None] | None = None,
    ) -> tuple[Any, bool] | _Overdue:
        """Call the tool: ``(its JSON result, False)``, or ``(a failed result, True)`` when it raised, did not
        answer in time or returned something JSON cannot carry (an executor's failure is routed; another
        tool's is for the model to read).

        The timeout runs from the moment the call runs (a sync tool may first wait for one of its threads:
        :mod:`slotgraph.runtime.tool_threads`). A call past it is cancelled if it is an ``async def``
        function (a thread cannot be) — unless the caller keeps it with ``keep`` (an executor attempt with an
        idempotency key, whose outcome is unknown): ``keep`` gets what runs it, and the result is
        :class:`_Overdue`. When the turn itself is cancelled, a call running in a thread (which goes on
        anyway) is handed to ``keep`` too; an ``async def`` one is cancelled."""
        timeout = self.limits.timeout_for(call.name)
        context = self._context_for(tool, sm, key)
        if inspect.iscoroutinefunction(tool.fn):  # it runs on the loop: a watchdog names it if it blocks
            watch_loop(asyncio.get_running_loop()).note(tool.name, getattr(tool.fn, "__code__", None))
        task: asyncio.Future[Any] | None = None
        clock = CallClock(None, timeout, self.limits.tool_queue_timeout)
        try:
            async with asyncio.timeout(timeout) as deadline:
                clock.deadline = deadline
                token = call_clock(clock)
                try:  # a task of its own, which the timeout cannot cancel (shielded): the caller decides
                    task = asyncio.ensure_future(tool_code(tool.invoke(args, context)))
                finally:
                    reset_call_clock(token)
                result = await asyncio.shield(task)
        except TimeoutError:
            assert task is not None
            if not deadline.expired():
                logger.exception("tool %s raised", call.name)
                return _failure(call.name, "TimeoutError: the tool raised TimeoutError", is_executor), True
            in_thread = clock.work is not None and not clock.work.done()
            if in_thread:
                assert clock.work is not None
                tool.threads.overdue(clock.work)
            if keep is not None:
                keep(clock.work if in_thread and clock.work is not None else task)
                return _Overdue(timeout)
            task.cancel()
            logger.error("tool %s did not answer within %gs; the call counts as failed", call.name, timeout)
            error = f"Timeout: {call.name} did not answer within {timeout:g}s"
            return _failure(call.name, error, is_executor), True
        except asyncio.CancelledError:  # the turn's own cancellation
            if task is not None and keep is not None and clock.work is not None and not clock.work.done():
                keep(clock.work)  # a thread cannot be stopped: its result is still recorded when it returns
            elif task is not None:
                task.cancel()
            raise
        except ToolBusy as err:
            logger.error("%s", err)
            return _failure(call.name, str(err), is_executor), True
        except Exception as err:
            logger.exception("tool %s raised", call.name)
            return _failure(call.name, raised(err), is_executor), True
        return _json_result(call.name, result, is_executor)

    async def _gated(
        self,
        call: ToolCall,
        tool: Tool,
        sm: dict[str, Any],
        events: list[Event],
        origin: Literal["model", "engine", "logic"],
    ) -> ToolOutcome | tuple[ToolCall, Admission | None]:
        """A model or logic call through the gate layer: a refusal, a replay or ``set_variables``' result
        (an outcome), or the call with its final arguments and its contract admission, ready to run."""
        assert self.gates is not None
        decision = await self.gates.settle(call.name)
        if decision is not None:
            return self._refuse(call, decision.reason, decision.message, sm, by=decision.by, origin=origin)
        prepared, decision = self.gates.prepare(tool, call.args, origin=origin)
        if decision is not None:
            return self._refuse(call, decision.reason, decision.message, sm, by=decision.by, origin=origin)
        assert prepared is not None
        if prepared != dict(call.args):  # the call as it runs: with its bound arguments
            call = ToolCall(call.id, call.name, prepared)
            events[0] = ToolCallEvent(call.id, call.name, dict(prepared), origin)
        decision = await self.gates.unsafe(call.name, prepared)
        if decision is not None:
            return self._refuse(call, decision.reason, decision.message, sm, by=decision.by, origin=origin)
        if self.gates.routes(call.name):
            built = await self.gates.run_builtin(call.name, prepared, sm, team=self.team)
            if isinstance(built, GateDecision):  # a hand-off its routing rule refused
                return self._refuse(call, built.reason, built.message, sm, by=built.by, origin=origin)
            saved, made = built
            events.extend(made)
            return self._finish(call, sm, events, saved, failed=False, route=False)
        admission: Admission | None = None
        idempotency, receipt = self.gates.contracts_of(call.name)
        if idempotency is not None or receipt is not None:
            contracts = Contracts(
                self.ledger,
                session_id=self.session_id,
                agent_name=self.agent_name,
                read_records=lambda reader: self._read(reader, prepared, sm),
            )
            admission = await contracts.admit(call.name, prepared, idempotency=idempotency, receipt=receipt)
            if admission.reason is not None:
                reason, message = admission.reason, admission.message
                return self._refuse(call, reason, message, sm, by="contract", origin=origin)
            if admission.replayed:
                self.gates.capture(call.name, admission.replay)
                replay = admission.replay
                return self._finish(call, sm, events, replay, failed=False, route=True, replayed=True)
        progress = self.gates.progress(call.name)
        if progress:
            events.append(TextEvent(progress, origin="logic"))
        return call, admission

    async def _read(self, reader: str, write: Mapping[str, Any], sm: dict[str, Any]) -> Any:
        """Run a receipt's status reader with the write's final arguments it names (never anything else)."""
        tool = self.registry.get(reader)
        if tool is None:
            raise LookupError(f"no reader tool {reader!r}")
        names = tool.schema.parameters.get("properties") or {}
        args, problem = tool.check_args({k: v for k, v in write.items() if k in names})
        if args is None:
            raise ValueError(f"the reader {reader} cannot be called with the write's arguments: {problem}")
        return tool_result_json(await tool_code(tool.invoke(args, self._context_for(tool, sm))))

    def _run_readback(self, call: ToolCall, sm: dict[str, Any], events: list[Event]) -> ToolOutcome:
        assert call.name in (CONFIRM_PENDING, REJECT_PENDING)
        slots = call.args.get("slots") if isinstance(call.args, Mapping) else None
        named = [str(slot) for slot in slots] if isinstance(slots, list) and slots else None
        result, new_sm = readback_result(self.engine, self.dag, call.name, sm, named)
        events.append(ToolResultEvent(call.id, call.name, result))
        events.append(StateSnapshotEvent(StateSnapshot(new_sm), call.name))
        return ToolOutcome(result, new_sm, tuple(events))

    def _team_target(self, result: Any) -> str | None:
        """The other agent of the app a result asks for (its ``target_agent``), if any."""
        target = result.get("target_agent") if self.team and isinstance(result, Mapping) else None
        if isinstance(target, str) and target in self.team and target != self.agent_name:
            return target
        return None

    def _hands_to_person(self, name: str, result: Any) -> bool:
        """A warm hand-off (``start_consult``) to a person: the host connects them with the context."""
        return (
            name == START_CONSULT
            and self.gates is not None
            and self.gates.routes(name)
            and isinstance(result, Mapping)
            and isinstance(result.get("context"), Mapping)
            and result["context"].get("kind") == "human"
        )

    def _routes_away(self, name: str, result: Any) -> bool:
        """The config's ``bootstrap`` routing tool asked for another agent (its result's ``target_agent``):
        this session hands the conversation over to it, as the platform's host does."""
        boot = self.dag.bootstrap
        if boot is None or name != boot.tool or not isinstance(result, Mapping):
            return False
        target = result.get("target_agent")
        return isinstance(target, str) and bool(target) and target != self.agent_name

    def _finish(
        self,
        call: ToolCall,
        sm: dict[str, Any],
        events: list[Event],
        result: Any,
        *,
        failed: bool,
        route: bool,
        replayed: bool = False,
        duration_ms: float | None = None,
    ) -> ToolOutcome:
        events.append(ToolResultEvent(call.id, call.name, result, failed=failed, duration_ms=duration_ms))
        if self.gates is not None:  # capability-published variables follow every result of their tools
            self.gates.publish(call.name, result)
        new_sm = (  # values from outside are fenced before they can reach an instruction (runtime.fencing)
            self.engine.after_tool(self.dag, sm, call.name, fence_value(dict(call.args)), fence_value(result))
            if route
            else sm
        )
        events.append(StateSnapshotEvent(StateSnapshot(new_sm), call.name))
        ended = False
        if not failed and call.name == END_SESSION:
            res = result if isinstance(result, Mapping) else {}
            reason = str(res.get("reason", call.args.get("reason", "")))
            escalated = bool(res.get("session_escalated", call.args.get("session_escalated", False)))
            summary = res.get("summary", call.args.get("summary"))
            params = res.get("params", call.args.get("params"))
            events.append(
                EndSessionEvent(
                    reason,
                    escalated,
                    summary if isinstance(summary, str) else None,
                    dict(params) if isinstance(params, Mapping) else None,
                )
            )
            ended = True
        elif not failed and call.name == ESCALATE:
            res = result if isinstance(result, Mapping) else {}
            events.append(TransferEvent(str(res.get("reason", call.args.get("reason", ""))), dict(call.args)))
            ended = True
        elif not failed and self._hands_to_person(call.name, result):
            context = dict(result["context"])
            events.append(TransferEvent(str(context.get("reason", "")), context))
            ended = True
        elif not failed and (target := self._team_target(result)) is not None:
            events.append(AgentTransferEvent(self.agent_name, target, call.name))
            return ToolOutcome(result, new_sm, tuple(events), transfer=target, replayed=replayed)
        elif not failed and self._routes_away(call.name, result):
            assert isinstance(result, Mapping)
            target = str(result["target_agent"])
            events.append(TransferEvent(f"transfer to {target}", {"agent": target, "tool": call.name}))
            ended = True
        return ToolOutcome(result, new_sm, tuple(events), ended=ended, replayed=replayed)


class ToolRaised(SlotgraphRuntimeError):
    """A tool's own code raised a :class:`BaseException` that is not an :class:`Exception` — ``SystemExit``,
    ``KeyboardInterrupt``, a ``CancelledError`` that is not the turn's own cancellation: carried as an
    ordinary exception, so it fails the call like any other and never leaves the turn (in the server, it
    would stop the event loop and the whole process with it)."""

    code = "tool_raised"

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
        self.error = error


async def tool_code(awaitable: Awaitable[_T]) -> _T:
    """Await a tool's own code (its function, its status hook, a receipt reader): what it raises is the
    call's failure and never the process's — a ``BaseException`` that is not an ``Exception`` comes out as
    :class:`ToolRaised`. Only the turn's own cancellation (its task is being cancelled: a client that left,
    a stopping server, a timeout) goes through as ``CancelledError``."""
    try:
        return await awaitable
    except Exception:
        raise
    except asyncio.CancelledError as err:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        raise ToolRaised(err) from err
    except GeneratorExit:  # the coroutine is being closed (its task was dropped): it must end, not go on
        raise
    except BaseException as err:
        raise ToolRaised(err) from err


def raised(err: BaseException) -> str:
    """What a failed call's result says it raised: ``"<ExceptionType>: message"``."""
    if isinstance(err, ToolRaised):
        return str(err)
    return f"{type(err).__name__}: {err}"


PENDING_REPLY = (
    "This is taking longer than usual, so I can't confirm it yet. Please don't try again: write to me in a "
    "moment and I'll tell you how it went."
)
"""What the person is told while an executor's outcome is not known yet (``execution_pending``)."""
UNCONFIRMED_REPLY = (
    "I couldn't confirm whether that went through, so I won't try it again on my own. It is being checked; "
    "please don't try it again in the meantime."
)
"""What the person is told while an executor's outcome waits for an operator (``execution_unconfirmed``)."""

_UNKNOWN = object()
"""A status hook's answer when it raised or did not answer in time (see ``ToolRunner._asked``)."""


@dataclass(frozen=True, slots=True)
class _Overdue:
    """A kept call past its timeout of ``seconds``, still running (its caller has what runs it)."""

    seconds: float


def _json_result(name: str, result: Any, is_executor: bool) -> tuple[Any, bool]:
    """``(result as JSON, False)``, or a failure when JSON cannot carry it."""
    try:
        return tool_result_json(result), False
    except TypeError as problem:
        logger.error(
            "tool %s returned a value JSON cannot carry (%s); make it return str, int, float, bool, "
            "None, lists or dicts with string keys — the call counts as failed",
            name,
            problem,
        )
        return _failure(name, f"InvalidResult: {problem}", is_executor), True


def _late_result(name: str, work: Abandoned) -> Any:
    """The routed result of an abandoned executor call that returned (``work`` is done, not cancelled)."""
    error = work.exception()
    if error is not None:
        return _failure(name, raised(error), True)
    return _json_result(name, work.result(), True)[0]


def _failure(name: str, error: str, is_executor: bool) -> dict[str, Any]:
    """The result of a failed call: an executor's is routed to the engine (its retries apply), another
    tool's is for the model to read."""
    if is_executor:
        return {"success": False, "error": error}
    return {"error": True, "failed": True, "message": f"The tool {name} failed ({error})."}


def _is_failure(result: Any) -> bool:
    return isinstance(result, Mapping) and (result.get("success") is False or result.get("failed") is True)
