"""The sync facade (``Session.send``) runs every turn on one long-lived event loop in a background thread."""

from __future__ import annotations

import asyncio
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
    UserMessage,
    call,
    sync_loop,
)

from .toy_agent import Backend, clock, toy_agent, toy_dag

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="none")


class WhereModel:
    """Answers with the text it was sent and notes where it ran: the thread, the loop, a context variable."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, str]] = []

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


def test_every_sync_turn_runs_on_one_long_lived_loop_thread() -> None:
    model = WhereModel()
    session = toy_agent(model, Backend()).session(clock=clock)
    for text in ("one", "two", "three"):
        session.send(text)
    threads = {thread for thread, _, _ in model.seen}
    loops = {loop for _, loop, _ in model.seen}
    assert threads == {sync_loop.THREAD_NAME} and len(loops) == 1
    assert len(_loop_threads()) == 1
    assert session.turns == 3


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
    said = sorted(m.text for m in record["history"] if isinstance(m, UserMessage))
    assert said == sorted(texts)


def test_distinct_sessions_from_several_threads_run_side_by_side() -> None:
    agent = toy_agent(WhereModel(), Backend())
    results: dict[int, list[str]] = {}

    def converse(n: int) -> None:
        session = agent.session(clock=clock, model=WhereModel())
        results[n] = [session.send(f"{n}-{k}").text for k in range(2)]

    threads = [threading.Thread(target=converse, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: [f"echo {n}-{k}" for k in range(2)] for n in range(6)}
    assert len(_loop_threads()) == 1


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


def test_shutdown_stops_the_loop_thread_and_the_next_send_starts_a_new_one() -> None:
    model = WhereModel()
    session = toy_agent(model, Backend()).session(clock=clock)
    session.send("one")
    (thread,) = _loop_threads()
    sync_loop.shutdown()
    assert not thread.is_alive() and _loop_threads() == []
    session.send("two")
    (new,) = _loop_threads()
    assert new is not thread and new.is_alive() and session.turns == 2


def test_shutdown_cancels_work_left_on_the_loop() -> None:
    """A task a turn left running (e.g. a background job) is cancelled, not abandoned, at shutdown."""
    cancelled = threading.Event()

    async def leave_a_task() -> None:
        async def forever() -> None:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

        asyncio.get_running_loop().create_task(forever())
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


def _interrupted_turn_is_cancelled(interrupt: Callable[[], None]) -> None:
    """A turn that calls ``interrupt`` on the loop's thread, then waits: ``run_sync`` (in the main thread)
    raises KeyboardInterrupt and the turn's coroutine is cancelled, as ``asyncio.run`` cancels its task."""
    cancelled = threading.Event()

    async def interrupted() -> None:
        interrupt()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    assert threading.current_thread() is threading.main_thread()
    with pytest.raises(KeyboardInterrupt):
        sync_loop.run_sync(interrupted())
    assert cancelled.wait(30)


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_while_the_caller_waits_cancels_the_turn() -> None:
    """Ctrl-C sent to the process while the calling thread (the main thread here) waits."""
    _interrupted_turn_is_cancelled(lambda: os.kill(os.getpid(), signal.SIGINT))


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_delivered_to_another_thread_still_reaches_the_waiting_caller() -> None:
    """The kernel delivers a process's SIGINT to any of its threads: here the loop's own. Python runs the
    handler in the main thread, which must not sleep through it in an untimed wait (an untimed wait is
    woken only by a signal delivered to its own thread: the caller blocked for good)."""
    _interrupted_turn_is_cancelled(lambda: signal.pthread_kill(threading.get_ident(), signal.SIGINT))


def test_an_interrupt_that_lands_before_the_caller_holds_the_future_still_cancels_the_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The signal of the test above is handled in the main thread at its next bytecode, which on a loaded
    machine can be right after the coroutine started and before ``run_sync`` held anything to cancel it
    through: the coroutine must still be cancelled on its loop (it was closed from the waiting thread while
    its task was running it, so it never saw the cancellation, and the test above failed now and then)."""
    started, cancelled = threading.Event(), threading.Event()
    submit = sync_loop._LoopThread.submit

    def submit_then_interrupt(self: Any, coro: Any, future: Any) -> None:
        submit(self, coro, future)
        assert started.wait(30)
        raise KeyboardInterrupt  # as the signal handler raises it, before control is back in run_sync

    async def running() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    monkeypatch.setattr(sync_loop._LoopThread, "submit", submit_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        sync_loop.run_sync(running())
    assert cancelled.wait(30)


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
