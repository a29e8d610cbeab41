"""The booking in the OpenAI Agents SDK: an ``Agent`` with function tools, run by ``Runner.run``; the
conversation goes on with ``result.to_input_list()``
(https://openai.github.io/openai-agents-python/running_agents/#manual-conversation-management)."""

from __future__ import annotations

import datetime

from agents import Agent, Model, RunConfig, Runner, Tool, TResponseInputItem, function_tool

from .booking import make_tools
from .shared import instructions


def build(model: Model | str, today: datetime.date) -> Agent[None]:
    tools: list[Tool] = [function_tool(tool) for tool in make_tools(today)]
    return Agent(name="Bella Notte host", instructions=instructions(today), model=model, tools=tools)


class Chat:
    def __init__(self, agent: Agent[None]) -> None:
        self.agent = agent
        self.history: list[TResponseInputItem] = []
        self.config = RunConfig(tracing_disabled=True)  # a model that is not OpenAI's: no trace export

    async def send(self, text: str) -> str:
        self.history.append({"role": "user", "content": text})
        result = await Runner.run(self.agent, self.history, run_config=self.config)
        self.history = result.to_input_list()
        return str(result.final_output)
