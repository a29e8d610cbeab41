"""The booking in Google ADK, record design: the tools keep the details in the session's state through
``tool_context.state`` (https://google.github.io/adk-docs/sessions/state/, "Within a Tool"); the runner
and the conversation as in :mod:`.adk_app`."""

from __future__ import annotations

import datetime
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import InMemoryRunner
from google.adk.tools.tool_context import ToolContext

from . import recorded
from .adk_app import Chat
from .shared import end_session, instructions

__all__ = ["Chat", "build"]


def build(model: BaseLlm | str, today: datetime.date) -> InMemoryRunner:
    def record_details(
        tool_context: ToolContext,
        party_size: int | None = None,
        preferred_date: str | None = None,
        selected_time: str | None = None,
        guest_name: str | None = None,
        special_requests: str | None = None,
        large_party_phone: str | None = None,
    ) -> dict[str, Any]:
        return recorded.record(
            tool_context.state,
            today,
            party_size=party_size,
            preferred_date=preferred_date,
            selected_time=selected_time,
            guest_name=guest_name,
            special_requests=special_requests,
            large_party_phone=large_party_phone,
        )

    def find_available_times(tool_context: ToolContext) -> dict[str, Any]:
        return recorded.find_times(tool_context.state)

    def book_reservation(tool_context: ToolContext) -> dict[str, Any]:
        return recorded.book(tool_context.state)

    record_details.__doc__, find_available_times.__doc__ = recorded.RECORD_DOC, recorded.FIND_DOC
    book_reservation.__doc__ = recorded.BOOK_DOC
    agent = LlmAgent(
        name="bella_notte",
        model=model,
        instruction=instructions(today, "record"),
        tools=[record_details, find_available_times, book_reservation, end_session],
    )
    return InMemoryRunner(agent, app_name="bella_notte")
