"""The booking in Slotgraph: the agent directory ``examples/bella_notte`` (``agent.yaml`` and ``dag.yaml``,
counted beside this file; its ``tools.py`` is the backend every implementation shares), one session per
conversation."""

from __future__ import annotations

import datetime

from slotgraph import Agent, Model, Session

from .backend import EXAMPLE


def build(model: Model | str, today: datetime.date) -> Agent:
    return Agent.load(EXAMPLE, model=model)


class Chat:
    def __init__(self, agent: Agent, today: datetime.date) -> None:
        now = datetime.datetime.combine(today, datetime.time(12))
        self.session: Session = agent.session(clock=lambda: now, seed=0)  # pinned: replies compared

    async def send(self, text: str) -> str:
        return (await self.session.asend(text)).text
