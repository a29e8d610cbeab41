"""The booking in LangGraph, record design: the graph's state holds the details beside the messages, and
the tools read it (``InjectedState``) and write it by returning a ``Command`` that updates it
(https://langchain-ai.github.io/langgraph/how-tos/update-state-from-tools/); the graph and the
conversation as in :mod:`.langgraph_app`."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, tools_condition
from langgraph.types import Command

from . import recorded
from .langgraph_app import Chat
from .shared import end_session, instructions

__all__ = ["Chat", "build"]


class BookingState(MessagesState):
    details: dict[str, Any]


def build(model: BaseChatModel, today: datetime.date) -> Any:
    def record_details(
        state: Annotated[dict[str, Any], InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
        party_size: int | None = None,
        preferred_date: str | None = None,
        selected_time: str | None = None,
        guest_name: str | None = None,
        special_requests: str | None = None,
        large_party_phone: str | None = None,
    ) -> Command[Any]:
        details = dict(state.get("details") or {})
        result = recorded.record(
            details,
            today,
            party_size=party_size,
            preferred_date=preferred_date,
            selected_time=selected_time,
            guest_name=guest_name,
            special_requests=special_requests,
            large_party_phone=large_party_phone,
        )
        message = ToolMessage(json.dumps(result), tool_call_id=tool_call_id)
        return Command(update={"details": details, "messages": [message]})

    def find_available_times(state: Annotated[dict[str, Any], InjectedState]) -> dict[str, Any]:
        return recorded.find_times(state.get("details") or {})

    def book_reservation(state: Annotated[dict[str, Any], InjectedState]) -> dict[str, Any]:
        return recorded.book(state.get("details") or {})

    record_details.__doc__, find_available_times.__doc__ = recorded.RECORD_DOC, recorded.FIND_DOC
    book_reservation.__doc__ = recorded.BOOK_DOC
    tools: list[Callable[..., Any]] = [record_details, find_available_times, book_reservation, end_session]
    model_with_tools = model.bind_tools(tools)
    system = SystemMessage(instructions(today, "record"))

    async def call_model(state: BookingState) -> dict[str, Any]:
        return {"messages": [await model_with_tools.ainvoke([system, *state["messages"]])]}

    builder = StateGraph(BookingState)
    builder.add_node("agent", call_model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())
