"""Leases (slotgraph.stores.leases): a holder that is done releases its lease even when the store's driver
swallows the cancellation of a renewal in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from slotgraph.stores import SQLiteStore
from slotgraph.stores.leases import hold_lease


def test_a_swallowed_cancellation_does_not_keep_a_finished_holders_lease_alive() -> None:
    """redis.asyncio can swallow a cancellation that arrives during a command; the renewer must still stop,
    or the lease is renewed forever and every other holder waits until its timeout."""

    async def scenario() -> int:
        renewing, released = asyncio.Event(), asyncio.Event()
        renewals = 0
        swallowed = False

        async def try_acquire() -> bool:
            return True

        async def renew() -> bool:
            nonlocal renewals, swallowed
            renewals += 1
            renewing.set()
            try:
                await asyncio.Event().wait()  # a renewal in flight when the holder finishes
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed = True  # the driver swallows the first cancellation and answers anyway
            return True

        async def release() -> None:
            released.set()

        async def holder() -> None:
            async with hold_lease(
                what="session 's'",
                try_acquire=try_acquire,
                renew=renew,
                release=release,
                ttl=0.03,
                timeout=1.0,
            ):
                await renewing.wait()

        holding = asyncio.create_task(holder())
        await asyncio.wait_for(released.wait(), 10)  # a renewer that went on would hold the release back
        await holding
        return renewals

    assert asyncio.run(scenario()) == 1


def test_an_ordinary_hold_starts_no_task(tmp_path: Path) -> None:
    """A hold shorter than the first renewal (every ordinary turn) starts no renewing task, and the turn's
    save frees the lease: a turn's lease costs no task of its own."""

    async def scenario() -> list[str]:
        store = SQLiteStore(tmp_path / "s.db", lock_ttl=600)
        await store.save("s", {"sm": {}, "history": [], "ended": False, "turns": 0}, 0)
        started: list[str] = []
        loop = asyncio.get_running_loop()

        def counting(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
            started.append(getattr(coro, "__qualname__", repr(coro)))
            return asyncio.Task(coro, loop=loop, **kwargs)

        loop.set_task_factory(counting)
        async with store.lock("s"):
            found = await store.load("s")
            assert found is not None
            await store.save("s", found[0], found[1])
        loop.set_task_factory(None)
        async with store.lock("s"):  # released: taken again at once
            pass
        await store.close()
        return started

    assert asyncio.run(scenario()) == []


def test_a_long_hold_is_renewed_and_stops_renewing_when_done() -> None:
    """The first renewal comes ttl/3 after the lease was taken, then every ttl/3; the renewing task has ended
    when the release runs."""

    async def scenario() -> tuple[int, int]:
        renewals, others_at_release = 0, -1
        renewed_twice = asyncio.Event()

        async def try_acquire() -> bool:
            return True

        async def renew() -> bool:
            nonlocal renewals
            renewals += 1
            if renewals == 2:
                renewed_twice.set()
            return True

        async def release() -> None:
            nonlocal others_at_release
            mine = {asyncio.current_task(), holding, main}
            others_at_release = len([t for t in asyncio.all_tasks() if t not in mine])

        async def holder() -> None:
            async with hold_lease(
                what="session 's'",
                try_acquire=try_acquire,
                renew=renew,
                release=release,
                ttl=0.03,
                timeout=1.0,
            ):
                await asyncio.wait_for(renewed_twice.wait(), 10)

        main = asyncio.current_task()
        holding = asyncio.create_task(holder())
        await holding
        return renewals, others_at_release

    renewals, others = asyncio.run(scenario())
    assert renewals >= 2 and others == 0
