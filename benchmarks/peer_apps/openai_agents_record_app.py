"""The booking in the OpenAI Agents SDK, record design: the details live in the run's context object, which
the tools receive as ``RunContextWrapper`` (https://openai.github.io/openai-agents-python/context/; the
SDK's customer-service example keeps its booking details so); the conversation as in
:mod:`.openai_agents_app`, its details handed to every run."""

from __future__ import annotations

import datetime
from typing import Any

from agents import (
    Agent,
    Model,
    RunConfig,
    RunContextWrapper,
    Runner,
    Tool,
    TResponseInputItem,
    function_tool,
)

from . import recorded
from .shared import end_session, instructions

Details = dict[str, Any]


def build(model: Model | str, today: datetime.date) -> Agent[Details]:
    def record_details(
        wrapper: RunContextWrapper[Details],
        party_size: int | None = None,
        preferred_date: str | None = None,
        selected_time: str | None = None,
        guest_name: str | None = None,
        special_requests: str | None = None,
        large_party_phone: str | None = None,
    ) -> dict[str, Any]:
        return recorded.record(
            wrapper.context,
            today,
            party_size=party_size,
            preferred_date=preferred_date,
            selected_time=selected_time,
            guest_name=guest_name,
            special_requests=special_requests,
            large_party_phone=large_party_phone,
        )

    def find_available_times(wrapper: RunContextWrapper[Details]) -> dict[str, Any]:
        return recorded.find_times(wrapper.context)

    def book_reservation(wrapper: RunContextWrapper[Details]) -> dict[str, Any]:
        return recorded.book(wrapper.context)

    record_details.__doc__, find_available_times.__doc__ = recorded.RECORD_DOC, recorded.FIND_DOC
    book_reservation.__doc__ = recorded.BOOK_DOC
    tools: list[Tool] = [
        function_tool(tool) for tool in (record_details, find_available_times, book_reservation, end_session)
    ]
    return Agent(
        name="Bella Notte host", instructions=instructions(today, "record"), model=model, tools=tools
    )


class Chat:
    def __init__(self, agent: Agent[Details]) -> None:
        self.agent = agent
        self.history: list[TResponseInputItem] = []
        self.details: Details = {}
        self.config = RunConfig(tracing_disabled=True)  # a model that is not OpenAI's: no trace export

    async def send(self, text: str) -> str:
        self.history.append({"role": "user", "content": text})
        result = await Runner.run(self.agent, self.history, context=self.details, run_config=self.config)
        self.history = result.to_input_list()
        return str(result.final_output)
