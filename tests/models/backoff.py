"""The retry settings of a hosted model under test: delays recorded instead of slept, jitter fixed."""

from __future__ import annotations

from typing import Any

from slotgraph.models.retry import RetryPolicy

__all__ = ["Sleeps", "retrying"]


class Sleeps:
    """An injected sleep that records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def retrying(sleeps: Sleeps, retries: int, *, random: float = 0.5) -> dict[str, Any]:
    """A model's ``retry``/``sleep``/``random`` arguments: ``retries`` retries of the default policy (0.5 s
    base, jitter up to 50%), the delays recorded in ``sleeps``, the random draw always ``random``."""
    return {
        "retry": RetryPolicy(max_retries=retries, base_delay=0.5, jitter=0.5),
        "sleep": sleeps,
        "random": lambda: random,
    }
