"""Leases (slotgraph.stores.leases): a holder that is done releases its lease even when the store's driver
swallows the cancellation of a renewal in flight."""

from __future__ import annotations

import asyncio

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
