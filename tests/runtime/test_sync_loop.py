"""The sync facade (``Session.send``) runs every turn on one long-lived event loop: run by the calling thread
itself while no other thread runs it, handed to the thread that does otherwise, and taken over by a
background thread while work is left on it after its caller's turn."""

from __future__ import annotations

import asyncio
import concurrent.futures
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
    UserMessage,
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


def _idle() -> None:
    """Wait until the background thread has left the loop (it does once no work is left on it)."""
    shared = sync_loop._current
    assert shared is not None and shared._idle.wait(30)


def test_sync_turns_run_on_the_calling_thread_on_one_long_lived_loop() -> None:
    model = WhereModel()
    session = toy_agent(model, Backend()).session(clock=clock)
    for text in ("one", "two"):  # (a 4th turn without progress would be steer-back's, without the model)
        session.send(text)
    other = threading.Thread(target=session.send, args=("three",), name="a-caller")
    other.start()
    other.join()
    threads = [thread for thread, _, _ in model.seen]
    loops = {loop for _, loop, _ in model.seen}
    assert threads == ["MainThread"] * 2 + ["a-caller"] and len(loops) == 1
    assert _loop_threads() == []  # nobody else was involved
    assert session.turns == 3


def test_a_turn_sent_while_another_thread_runs_the_loop_runs_there() -> None:
    """The second caller hands its turn to the thread running the loop (one loop: a session's lock holds)."""
    entered, release = threading.Event(), threading.Event()
    seen: list[tuple[str, int, str]] = []

    class SlowModel:
        async def generate(self, request: ModelRequest) -> ModelResponse:
            seen.append((threading.current_thread().name, id(asyncio.get_running_loop()), ""))
            entered.set()
            await asyncio.get_running_loop().run_in_executor(None, release.wait)
            return ModelResponse(text="slow")

    agent = toy_agent(WhereModel(seen), Backend())
    slow: list[str] = []
    first = threading.Thread(
        target=lambda: slow.append(agent.session(clock=clock, model=SlowModel()).send("one").text),
        name="first-caller",
    )
    first.start()
    assert entered.wait(30)
    try:
        assert agent.session(clock=clock).send("two").text == "echo two"
    finally:
        release.set()
        first.join()
    assert slow == ["slow"]
    assert [thread for thread, _, _ in seen] == ["first-caller", "first-caller"]
    assert len({loop for _, loop, _ in seen}) == 1


def test_a_turn_still_running_when_the_thread_running_the_loop_is_done_is_finished_in_the_background() -> (
    None
):
    """The first caller's turn ends while the second caller's (handed to it) waits: the background thread
    takes the loop over and finishes the second turn; once idle, callers run the loop themselves again."""
    first_entered, second_entered, first_returned = threading.Event(), threading.Event(), threading.Event()
    seen: list[str] = []

    class FirstModel:
        async def generate(self, request: ModelRequest) -> ModelResponse:
            first_entered.set()
            await asyncio.get_running_loop().run_in_executor(None, second_entered.wait)
            return ModelResponse(text="first")

    class SecondModel:
        async def generate(self, request: ModelRequest) -> ModelResponse:
            seen.append(threading.current_thread().name)
            second_entered.set()
            await asyncio.get_running_loop().run_in_executor(None, first_returned.wait)
            seen.append(threading.current_thread().name)
            return ModelResponse(text="second")

    agent = toy_agent(WhereModel(), Backend())
    results: dict[str, str] = {}

    def first_caller() -> None:
        results["first"] = agent.session(clock=clock, model=FirstModel()).send("one").text
        first_returned.set()

    first = threading.Thread(target=first_caller, name="first-caller")
    first.start()
    assert first_entered.wait(30)  # the first caller runs the loop: the second turn is handed to it
    results["second"] = agent.session(clock=clock, model=SecondModel()).send("two").text
    first.join()
    assert results == {"first": "first", "second": "second"}
    assert seen == ["first-caller", sync_loop.THREAD_NAME]
    _idle()
    model = WhereModel()
    agent.session(clock=clock, model=model).send("three")
    assert [thread for thread, _, _ in model.seen] == ["MainThread"]


def test_a_task_a_turn_leaves_running_goes_on_after_send_returns() -> None:
    """A background task (a background extraction, a tool's fire-and-forget job) is not frozen until the next
    send: the background thread runs the loop until it is done."""
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
    _idle()
    model = WhereModel()
    toy_agent(model, Backend()).session(clock=clock).send("next")
    assert [thread for thread, _, _ in model.seen] == ["MainThread"]


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
    """As when the loop had a thread of its own: the running turn is cancelled, its caller told so."""
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
    assert [type(err) for err in outcome] == [concurrent.futures.CancelledError]
    assert _loop_threads() == []


def test_a_caller_running_the_loop_puts_the_signal_handling_back() -> None:
    """The main thread's SIGINT handler and wake-up fd are the program's again once its turn is done."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        session = toy_agent(WhereModel(), Backend()).session(clock=clock)
        session.send("one")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.set_wakeup_fd(-1) == -1
        own = signal.signal(signal.SIGINT, lambda signum, frame: None)
        del own
        handler = signal.getsignal(signal.SIGINT)
        session.send("two")
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)


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
    cancels its task. With ``handed_over`` another thread runs the loop (the main thread waits for it)."""
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
    """The shared loop run by a thread of the test's, busy with a turn until the block ends."""
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
def test_an_interrupt_while_the_main_thread_runs_the_loop_cancels_the_turn() -> None:
    """Ctrl-C sent to the process while the main thread runs its own turn."""
    _interrupted_turn_is_cancelled(lambda: os.kill(os.getpid(), signal.SIGINT))


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_delivered_to_another_thread_wakes_the_main_thread_waiting_in_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kernel delivers a process's SIGINT to any of its threads: here a tool's, once the loop in the
    main thread waits in ``select`` for that tool. The loop must wake at once (the signal's wake-up fd)
    rather than when the tool returns: the tool waits until the test releases it, 30 s at most."""
    release, waiting = threading.Event(), threading.Event()
    woken_by_the_test: list[bool] = []
    selector = sync_loop._shared_loop().loop._selector  # type: ignore[attr-defined]
    select = selector.select

    def noted_select(timeout: float | None = None) -> Any:
        if timeout is None:  # nothing scheduled: the loop waits for the tool
            waiting.set()
        return select(timeout)

    monkeypatch.setattr(selector, "select", noted_select)

    def tool() -> None:
        assert waiting.wait(30)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        woken_by_the_test.append(release.wait(30))

    try:
        _interrupted_turn_is_cancelled(lambda: asyncio.get_running_loop().run_in_executor(None, tool))
    finally:
        release.set()
    sync_loop.shutdown()  # joins the default executor: the tool has returned
    assert woken_by_the_test == [True]


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
    said = [m.text for m in found[0]["history"] if isinstance(m, UserMessage)]
    assert said == ["one", "three"]


class _NoReaders(asyncio.SelectorEventLoop):
    """A loop that cannot watch file descriptors, as Windows' proactor loop."""

    def add_reader(self, fd: Any, callback: Any, *args: Any) -> None:
        raise NotImplementedError


@pytest.mark.usefixtures("python_sigint")
def test_a_loop_without_readers_serves_and_ctrl_c_still_cancels(monkeypatch: pytest.MonkeyPatch) -> None:
    """No wake-up fd there: the facade works, and SIGINT to the main thread still cancels the turn."""
    monkeypatch.setattr(asyncio, "new_event_loop", _NoReaders)

    async def answer() -> str:
        return "served"

    assert sync_loop.run_sync(answer()) == "served"
    _interrupted_turn_is_cancelled(lambda: os.kill(os.getpid(), signal.SIGINT))
    assert signal.set_wakeup_fd(-1) == -1


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
def test_an_interrupt_while_the_caller_waits_for_another_threads_loop_cancels_the_turn() -> None:
    """Ctrl-C sent to the process while the main thread waits for its turn, run by another thread."""
    _interrupted_turn_is_cancelled(lambda: os.kill(os.getpid(), signal.SIGINT), handed_over=True)


@pytest.mark.usefixtures("python_sigint")
def test_an_interrupt_delivered_to_the_thread_running_the_loop_still_reaches_the_waiting_caller() -> None:
    """Python runs the handler in the main thread, which must not sleep through it in an untimed wait (an
    untimed wait is woken only by a signal delivered to its own thread: the caller blocked for good)."""
    _interrupted_turn_is_cancelled(
        lambda: signal.pthread_kill(threading.get_ident(), signal.SIGINT), handed_over=True
    )


def test_an_interrupt_that_lands_before_the_caller_waits_still_cancels_the_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The signal of the test above is handled in the main thread at its next bytecode, which on a loaded
    machine can be right after the coroutine started and before the caller waits for it: the coroutine must
    still be cancelled on its loop (closing it from the waiting thread while its task runs it would leave it
    running without ever seeing the cancellation)."""
    started, cancelled = threading.Event(), threading.Event()

    def interrupted_wait(self: Any) -> Any:
        assert started.wait(30)
        raise KeyboardInterrupt  # as the signal handler raises it, before the caller waits

    with _loop_run_by_another_thread():
        monkeypatch.setattr(sync_loop._Outcome, "result", interrupted_wait)
        with pytest.raises(KeyboardInterrupt):
            sync_loop.run_sync(_until_cancelled(cancelled, started))
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
