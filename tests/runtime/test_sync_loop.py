"""The sync facade (``Session.send``) runs every turn on one long-lived event loop that a background thread
runs: the caller's context travels with the turn, work left on the loop goes on, Ctrl-C cancels the turn."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from slotgraph.runtime import (
    Agent,
    InMemoryStore,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    ScriptedStep,
    SessionError,
    call,
    sync_loop,
)

from .toy_agent import Backend, clock, toy_agent, toy_dag

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="none")


class WhereModel:
    """Answers with the text it was sent and notes where it ran: the thread, the loop, a context variable."""

    def __init__(self, seen: list[tuple[str, int, str]] | None = None) -> None:
        self.seen: list[tuple[str, int, str]] = [] if seen is None else seen

    async def generate(self, request: ModelRequest) -> ModelResponse:
        loop = asyncio.get_running_loop()
        self.seen.append((threading.current_thread().name, id(loop), REQUEST_ID.get()))
        last = request.messages[-1]
        return ModelResponse(text=f"echo {getattr(last, 'text', '')}")


@pytest.fixture(autouse=True)
def fresh_loop() -> Iterator[None]:
    """Each test starts without a facade loop and leaves none behind."""
    sync_loop.shutdown()
    yield
    sync_loop.shutdown()


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """Python's own SIGINT handler (``KeyboardInterrupt``) for the test, whatever the process inherited: a
    shell that starts a command in the background makes it ignore SIGINT, and Python then installs no
    handler, so an interrupt test would wait for a KeyboardInterrupt that never comes."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _loop_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == sync_loop.THREAD_NAME]


async def _until_cancelled(cancelled: threading.Event, started: threading.Event | None = None) -> None:
    """Wait forever (``started`` set first); note the cancellation that ends the wait in ``cancelled``."""
    if started is not None:
        started.set()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancelled.set()
        raise


def test_a_task_a_turn_leaves_running_goes_on_after_send_returns() -> None:
    """A background task (a background extraction, a tool's fire-and-forget job) is not frozen until the next
    send: the loop's thread runs it."""
    go, finished = threading.Event(), threading.Event()
    ran_on: list[str] = []

    async def leave_a_task() -> None:
        async def job() -> None:
            await asyncio.get_running_loop().run_in_executor(None, go.wait)
            ran_on.append(threading.current_thread().name)
            finished.set()

        asyncio.get_running_loop().create_task(job())

    sync_loop.run_sync(leave_a_task())
    go.set()
    assert finished.wait(30)
    assert ran_on == [sync_loop.THREAD_NAME]
    model = WhereModel()
    toy_agent(model, Backend()).session(clock=clock).send("next")
    assert [thread for thread, _, _ in model.seen] == [sync_loop.THREAD_NAME]


def test_the_callers_context_variables_reach_the_turn() -> None:
    model = WhereModel()
    session = toy_agent(model, Backend()).session(clock=clock)
    token = REQUEST_ID.set("req-7")
    try:
        session.send("hi")
    finally:
        REQUEST_ID.reset(token)
    session.send("again")
    assert [value for _, _, value in model.seen] == ["req-7", "none"]


def test_one_session_sent_to_from_several_threads_plays_every_turn_once() -> None:
    """Threads sharing a store and a session id: the turns queue behind the session's lock, none is lost."""
    store = InMemoryStore()
    agent = toy_agent(WhereModel(), Backend())
    texts = [f"message {n}" for n in range(8)]
    errors: list[BaseException] = []
    start = threading.Barrier(len(texts))

    def send(text: str) -> None:
        session = agent.session(session_id="shared", store=store, clock=clock, model=WhereModel())
        start.wait()
        try:
            session.send(text)
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=send, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    found = asyncio.run(store.load("shared"))
    assert found is not None
    record, version = found
    assert record["turns"] == len(texts) and version == len(texts)
    said = sorted(m["text"] for m in record["history"] if m["kind"] == "user")
    assert said == sorted(texts)


def test_distinct_sessions_from_several_threads_run_side_by_side() -> None:
    agent = toy_agent(WhereModel(), Backend())
    results: dict[int, list[str]] = {}
    seen: list[tuple[str, int, str]] = []

    def converse(n: int) -> None:
        session = agent.session(clock=clock, model=WhereModel(seen))
        results[n] = [session.send(f"{n}-{k}").text for k in range(2)]

    threads = [threading.Thread(target=converse, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: [f"echo {n}-{k}" for k in range(2)] for n in range(6)}
    assert len({loop for _, loop, _ in seen}) == 1 and len(_loop_threads()) <= 1


def test_a_session_without_a_store_refuses_a_second_concurrent_turn_from_another_thread() -> None:
    entered, release = threading.Event(), threading.Event()

    class SlowModel:
        async def generate(self, request: ModelRequest) -> ModelResponse:
            entered.set()
            await asyncio.get_running_loop().run_in_executor(None, release.wait)
            return ModelResponse(text="done")

    session = toy_agent(SlowModel(), Backend()).session(clock=clock)
    first: list[str] = []
    thread = threading.Thread(target=lambda: first.append(session.send("one").text))
    thread.start()
    assert entered.wait(30)
    with pytest.raises(SessionError, match="a turn is already running"):
        session.send("two")
    release.set()
    thread.join()
    assert first == ["done"] and session.turns == 1


def test_shutdown_closes_the_loop_and_the_next_send_makes_a_new_one() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def note_the_loop() -> None:
        loops.append(asyncio.get_running_loop())

    sync_loop.run_sync(note_the_loop())
    sync_loop.shutdown()
    assert loops[0].is_closed()
    sync_loop.run_sync(note_the_loop())
    assert loops[1] is not loops[0] and not loops[1].is_closed()


def test_shutdown_from_another_thread_cancels_the_turn_a_caller_runs() -> None:
    """The running turn is cancelled, its caller told so."""
    entered, cancelled = threading.Event(), threading.Event()
    outcome: list[BaseException] = []

    def caller() -> None:
        try:
            sync_loop.run_sync(_until_cancelled(cancelled, entered))
        except BaseException as err:  # reported below
            outcome.append(err)

    thread = threading.Thread(target=caller, name="loop-runner")
    thread.start()
    assert entered.wait(30)
    sync_loop.shutdown()
    thread.join(30)
    assert not thread.is_alive() and cancelled.is_set()
    assert [type(err) for err in outcome] == [asyncio.CancelledError]
    assert _loop_threads() == []


def test_shutdown_cancels_work_left_on_the_loop() -> None:
    """A task a turn left running (e.g. a background job) is cancelled, not abandoned, at shutdown."""
    cancelled = threading.Event()

    async def leave_a_task() -> None:
        asyncio.get_running_loop().create_task(_until_cancelled(cancelled))
        await asyncio.sleep(0)

    sync_loop.run_sync(leave_a_task())
    sync_loop.shutdown()
    assert cancelled.is_set() and _loop_threads() == []


def test_an_exception_of_the_turn_reaches_the_caller_and_the_loop_keeps_serving() -> None:
    async def fails() -> None:
        raise LookupError("boom")

    with pytest.raises(LookupError, match="boom"):
        sync_loop.run_sync(fails())
    session = toy_agent(ScriptedModel([ScriptedStep(text="still here")]), Backend()).session(clock=clock)
    assert session.send("hi").text == "still here"


def _interrupted_turn_is_cancelled(interrupt: Callable[[], Any], *, handed_over: bool = False) -> None:
    """A turn that calls ``interrupt`` (awaiting it if it returns an awaitable), then waits: ``run_sync`` (in
    the main thread) raises KeyboardInterrupt and the turn's coroutine is cancelled, as ``asyncio.run``
    cancels its task. With ``handed_over`` another thread's turn is running on the loop meanwhile."""
    cancelled = threading.Event()

    async def interrupted() -> None:
        pending = interrupt()
        try:
            if pending is not None:
                await pending
        except asyncio.CancelledError:
            cancelled.set()
            raise
        await _until_cancelled(cancelled)

    assert threading.current_thread() is threading.main_thread()
    with _loop_run_by_another_thread() if handed_over else contextlib.nullcontext():
        with pytest.raises(KeyboardInterrupt):
            sync_loop.run_sync(interrupted())
        assert cancelled.wait(30)


@contextlib.contextmanager
def _loop_run_by_another_thread() -> Iterator[None]:
    """Another thread's turn on the loop, busy until the block ends."""
    entered, release = threading.Event(), threading.Event()

    async def busy() -> None:
        entered.set()
        await asyncio.get_running_loop().run_in_executor(None, release.wait)

    runner = threading.Thread(target=sync_loop.run_sync, args=(busy(),), name="loop-runner")
    runner.start()
    assert entered.wait(30)
    try:
        yield
    finally:
        release.set()
        runner.join()


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_while_the_main_thread_waits_for_its_turn_cancels_the_turn() -> None:
    """Ctrl-C sent to the process while the main thread waits for its turn."""
    _interrupted_turn_is_cancelled(lambda: os.kill(os.getpid(), signal.SIGINT))


@pytest.mark.usefixtures("python_sigint")
def test_ctrl_c_during_a_turn_keeps_the_last_completed_turn_and_the_session_goes_on() -> None:
    """Ctrl-C while the model answers: the turn is not saved, the next ``send`` plays on the saved state."""

    class InterruptedOnce:
        def __init__(self) -> None:
            self.calls = 0

        async def generate(self, request: ModelRequest) -> ModelResponse:
            self.calls += 1
            if self.calls == 2:
                os.kill(os.getpid(), signal.SIGINT)
                await asyncio.Event().wait()
            return ModelResponse(text=f"answer {self.calls}")

    store = InMemoryStore()
    model = InterruptedOnce()
    session = toy_agent(model, Backend()).session(session_id="s", store=store, clock=clock)
    assert session.send("one").text == "answer 1"
    with pytest.raises(KeyboardInterrupt):
        session.send("two")
    found = asyncio.run(store.load("s"))
    assert found is not None and found[0]["turns"] == 1
    assert session.send("three").text == "answer 3"
    found = asyncio.run(store.load("s"))
    assert found is not None and found[0]["turns"] == 2
    said = [m["text"] for m in found[0]["history"] if m["kind"] == "user"]
    assert said == ["one", "three"]


@pytest.mark.usefixtures("python_sigint")
def test_a_second_interrupt_raises_at_once() -> None:
    """A turn that goes on after the first Ctrl-C's cancellation: the second one stops the caller at once."""
    survived_the_first: list[bool] = []

    async def stubborn() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            survived_the_first.append(True)
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.Event().wait()

    with pytest.raises(KeyboardInterrupt):
        sync_loop.run_sync(stubborn())
    assert survived_the_first == [True]


def test_a_handler_of_the_programs_own_is_left_alone() -> None:
    """A program handling SIGINT itself keeps its handler while its turn runs; the turn is not cancelled."""
    calls: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:

        async def interrupted() -> str:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(0)
            return "finished"

        assert sync_loop.run_sync(interrupted()) == "finished"
    finally:
        signal.signal(signal.SIGINT, previous)
    assert calls == [signal.SIGINT]


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_while_another_threads_turn_runs_too_cancels_only_the_callers_turn() -> None:
    """Ctrl-C sent to the process while the main thread waits for its turn and another thread's runs."""
    _interrupted_turn_is_cancelled(lambda: os.kill(os.getpid(), signal.SIGINT), handed_over=True)


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_delivered_to_the_thread_running_the_loop_still_reaches_the_waiting_caller() -> None:
    """The kernel may deliver the signal to the loop's thread: Python runs the handler in the main thread,
    which must not sleep through it in an untimed wait (only a signal to its own thread wakes it)."""
    _interrupted_turn_is_cancelled(
        lambda: signal.pthread_kill(threading.get_ident(), signal.SIGINT), handed_over=True
    )


def test_sync_tools_of_turns_sent_from_many_threads_run_side_by_side() -> None:
    """Eight threads, each turn running a sync tool that waits for all eight: they must run at once (a pool
    of asyncio's default size, six workers on two cores, would leave two waiting until the barrier breaks)."""
    parties = 8
    barrier = threading.Barrier(parties, timeout=20)

    def rendezvous() -> dict[str, Any]:
        """Wait until every turn's tool is running."""
        return {"arrived": barrier.wait()}

    backend = Backend()
    results: list[str] = []
    errors: list[BaseException] = []

    def converse() -> None:
        model = ScriptedModel([ScriptedStep(tool_calls=(call("rendezvous"),)), ScriptedStep(text="met")])
        agent = Agent.from_config(
            toy_dag(), tools=[*backend.tools(), rendezvous], instruction="Host.", model=model, name="toy"
        )
        try:
            results.append(agent.session(clock=clock).send("hello").text)
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=converse) for _ in range(parties)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and results == ["met"] * parties and not barrier.broken
