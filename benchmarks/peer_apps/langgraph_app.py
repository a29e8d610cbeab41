"""The booking in LangGraph: the Graph API's tool-calling agent (a model node, a ``ToolNode``,
``tools_condition``) compiled with a checkpointer, one thread per conversation
(https://docs.langchain.com/oss/python/langgraph/quickstart, .../persistence)."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from .booking import make_tools
from .shared import instructions


def build(model: BaseChatModel, today: datetime.date) -> Any:
    tools = make_tools(today)
    model_with_tools = model.bind_tools(tools)
    system = SystemMessage(instructions(today))

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model_with_tools.ainvoke([system, *state["messages"]])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", call_model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())


class Chat:
    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.config = {"configurable": {"thread_id": str(uuid.uuid4())}}

    async def send(self, text: str) -> str:
        state = await self.graph.ainvoke({"messages": [HumanMessage(text)]}, self.config)
        return str(state["messages"][-1].content)
