"""Locks held in a store as leases: acquire with bounded waiting, renew while held, release by token.

SQLite and Redis hold a session's lock as a row / key carrying a random token and an expiry. The holder
renews it every ``ttl / 3`` seconds while the turn runs, so a long turn keeps it; a holder that dies (SIGKILL,
power loss) stops renewing and the lease lapses after at most ``ttl`` seconds. Release deletes the lease only
if it still carries the holder's token, so a lapsed holder can never free a lock someone else now holds.

Waiting polls the store with a short exponential backoff (5 ms doubling to 100 ms) until ``timeout``, then
raises :class:`~slotgraph.runtime.errors.StoreLockTimeoutError`. A holder whose lease lapsed anyway (a
process paused for longer than the TTL) is still safe: the save is a compare-and-set on the version, so it
gets a conflict instead of overwriting the newer turn.

A store whose last write of a hold frees the lease too (a save: Redis's script deletes the lock key when it
still carries the token, SQLite's transaction deletes the lease row) does so through the
:class:`HeldLease` the hold yields: it stops the renewal first (:meth:`HeldLease.before_final_write`),
then marks the lease released, and the block's exit makes no release round trip of its own.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

from slotgraph.stores.errors import StoreLockTimeoutError
from slotgraph.stores.memory import LocalLocks

__all__ = [
    "DEFAULT_LOCK_TTL",
    "HeldLease",
    "finish_in_background",
    "hold_lease",
    "hold_session_lease",
    "new_token",
]

DEFAULT_LOCK_TTL = 30.0
"""Seconds a lease lives without renewal: how long a crashed holder blocks its session at most."""

_LOG = logging.getLogger("slotgraph.stores")


def new_token() -> str:
    return secrets.token_hex(16)


async def _renew_forever(renew: Callable[[], Awaitable[bool]], ttl: float, what: str, stop: _Renewal) -> None:
    """Renew now, then every ``ttl / 3``, until ``stop`` is stopped (and the task cancelled). A driver may
    swallow the cancellation that arrives while a renewal is in flight (redis.asyncio can), so ``stop`` is
    checked after every renewal too: a holder that is done never keeps its lease alive."""
    while not stop.stopped:
        try:
            still_ours = await renew()
        except Exception as problem:  # the next renewal may succeed; the lease has ttl/3*2 left
            _LOG.warning("renewing the lock of %s failed: %s", what, problem)
        else:
            if not still_ours and not stop.stopped:
                _LOG.warning(
                    "the lock of %s lapsed while held; the versioned save still guards the record", what
                )
                return
        if stop.stopped:
            return
        await asyncio.sleep(ttl / 3)


class _Renewal:
    """Renews a held lease every ``ttl / 3``. A timer starts the renewing task when the first renewal is due,
    so a hold shorter than that (every ordinary turn) creates no task at all."""

    __slots__ = ("_handle", "_loop", "_renew", "_ttl", "_what", "stopped", "task")

    def __init__(self, renew: Callable[[], Awaitable[bool]], ttl: float, what: str) -> None:
        self._loop = asyncio.get_running_loop()
        self._renew, self._ttl, self._what = renew, ttl, what
        self.stopped = False
        self.task: asyncio.Task[None] | None = None
        self._handle = self._loop.call_later(ttl / 3, self._due)

    def _due(self) -> None:
        if not self.stopped:
            self.task = self._loop.create_task(_renew_forever(self._renew, self._ttl, self._what, self))

    def stop(self) -> asyncio.Task[None] | None:
        """Stop renewing; the renewing task (cancelled) when one was started, to wait for."""
        self.stopped = True
        self._handle.cancel()
        if self.task is not None:
            self.task.cancel()
        return self.task


class HeldLease:
    """One held lease, for the store that holds it: its last write may release the lease itself.

    ``released`` is set by the store (:meth:`mark_released`) once a write freed the lease; the hold's exit
    then stops there instead of releasing it again.
    """

    __slots__ = ("_renewal", "released")

    def __init__(self, renewal: _Renewal) -> None:
        self._renewal = renewal
        self.released = False

    async def before_final_write(self) -> None:
        """Stop renewing, and wait for a renewal in flight: none may follow the write that frees the lease
        (it would find the lease gone and report it lapsed)."""
        renewer = self._renewal.stop()
        if renewer is not None:
            await asyncio.wait({renewer})

    def mark_released(self) -> None:
        """The lease was freed by the store's last write; the hold's exit makes no release."""
        self.released = True


@asynccontextmanager
async def hold_lease(
    *,
    what: str,
    try_acquire: Callable[[], Awaitable[bool]],
    renew: Callable[[], Awaitable[bool]],
    release: Callable[[], Awaitable[None]],
    ttl: float,
    timeout: float,
    deadline: float | None = None,
) -> AsyncIterator[HeldLease]:
    """Hold a lease for the ``async with`` block (it gets the :class:`HeldLease`). ``what`` names the session
    and store for messages.

    ``deadline`` (event-loop time) ends the wait; by default ``timeout`` seconds from now. A store passes the
    deadline it set before queueing on its process-local lock, so the whole wait is bounded by ``timeout``.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout if deadline is None else deadline
    delay = 0.005
    while not await try_acquire():
        left = deadline - loop.time()
        if left <= 0:
            raise StoreLockTimeoutError(
                f"{what} is busy: another turn (maybe in another process) held its lock for more than "
                f"{timeout:g}s; retry later, or raise lock_timeout in the store URL. A crashed holder's lock "
                f"lapses after lock_ttl ({ttl:g}s)"
            )
        await asyncio.sleep(min(delay, left))
        delay = min(delay * 2, 0.1)
    renewal = _Renewal(renew, ttl, what)
    held = HeldLease(renewal)
    try:
        yield held
    finally:
        renewer = renewal.stop()
        # a lease freed by the store's last write (its renewal stopped before that write) is not released
        if not held.released:
            await finish_in_background(_stop_and_release(renewer, release, what, ttl))


@asynccontextmanager
async def hold_session_lease(
    locks: LocalLocks,
    session_id: str,
    *,
    what: str,
    try_acquire: Callable[[], Awaitable[bool]],
    renew: Callable[[], Awaitable[bool]],
    release: Callable[[], Awaitable[None]],
    ttl: float,
    timeout: float,
    on_exit: Callable[[], object],
) -> AsyncIterator[HeldLease]:
    """A store's session lock: the process-local lock of ``session_id`` (turns of this process queue there),
    then the store's lease (:func:`hold_lease`), the whole wait bounded by ``timeout`` from now. ``on_exit``
    runs however the block ends, the wait included (a store forgets what ``try_acquire`` prefetched)."""
    deadline = asyncio.get_running_loop().time() + timeout
    async with locks.hold(session_id):
        try:
            async with hold_lease(
                what=what,
                try_acquire=try_acquire,
                renew=renew,
                release=release,
                ttl=ttl,
                timeout=timeout,
                deadline=deadline,
            ) as held:
                yield held
        finally:
            on_exit()


async def _stop_and_release(
    renewer: asyncio.Task[None] | None, release: Callable[[], Awaitable[None]], what: str, ttl: float
) -> None:
    try:
        if renewer is not None:
            await asyncio.wait({renewer})
    finally:
        try:
            await release()
        except Exception as problem:  # the lease lapses by itself after ttl
            _LOG.warning("releasing the lock of %s failed (it lapses after %gs): %s", what, ttl, problem)


_FINISHING: set[asyncio.Task[None]] = set()


async def finish_in_background(job: Coroutine[Any, Any, None]) -> None:
    """Run ``job`` (a lock release) to its end even if the caller is cancelled meanwhile.

    A cancelled turn (a client that went away, a server shutting down) must still free its session: the
    caller waits for the release, but a second cancellation only stops the waiting — the release goes on,
    so the lock is free within a round trip instead of after ``lock_ttl``."""
    task = asyncio.ensure_future(job)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        _FINISHING.add(task)
        task.add_done_callback(_FINISHING.discard)
        raise
