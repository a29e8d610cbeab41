"""The wall clock that tool code reads, moved to a test's day (``--today``, ``today:``, a scenario's ``now``).

The runtime takes the session's time from the session clock (``agent.session(clock=...)``), but tools
written for the original platform call ``datetime.date.today()`` and ``datetime.datetime.now()``
themselves: a golden recorded months ago gives dates that are now in the past, and a setter that refuses
past dates refuses them. :func:`wall_clock_at` moves the process's wall clock to the test's moment for the
duration of a ``with`` block, using `time-machine <https://github.com/adamchainz/time-machine>`_, so that
tool code sees the day the golden was written for.

The clock keeps **ticking** from that moment (``tick=True``) rather than standing still, and only the wall
clock moves: ``time.monotonic()`` and ``time.perf_counter()`` are untouched, so the runtime's tool
timeouts and asyncio's timers (monotonic) behave as always, and the store's lock leases, written and
read with ``time.time()`` inside the same block, still expire after their time-to-live. A stopped clock
would keep a lease from ever expiring and a wait for "a later time" from ever ending.

The move is process-wide while the block runs (time-machine patches the clock functions, not one
thread), which is what a test run or a terminal chat wants; never use it in a server handling other
sessions, and do not point a chat with ``--today`` at a store that a live server writes (its leases are
stamped with the real time).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["moment_of", "wall_clock_at"]


def moment_of(day: datetime.date) -> datetime.datetime:
    """The moment a test dated ``day`` runs at: noon that day (as the session clock of goldens)."""
    return datetime.datetime.combine(day, datetime.time(12, 0))


@contextmanager
def wall_clock_at(now: datetime.datetime | None) -> Iterator[None]:
    """Run the block with the wall clock moved to ``now`` (ticking on from there); ``None``: the real clock.

    A naive ``now`` is local time (so ``datetime.date.today()`` is ``now.date()``), as the session clock
    reads it.
    """
    if now is None:
        yield
        return
    import time_machine  # only runs that move the clock pay for the import

    destination = now if now.tzinfo is not None else now.astimezone()
    with time_machine.travel(destination, tick=True):
        yield
