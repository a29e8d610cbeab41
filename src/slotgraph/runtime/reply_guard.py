"""The runtime's side of response guards: the judge, the regeneration call, and where the reply is guarded.

:func:`guarded_text` runs the agent's guards (:mod:`slotgraph.logic.guards`) on the model's text *before*
it becomes a :class:`~slotgraph.runtime.events.TextEvent`, so the event sink — the SSE stream, the chat
terminal — and the conversation history only ever get what the guards released. A rejected draft never
enters the history: a regeneration asks the model again with the same conversation plus the guard's
feedback in the system instruction, and no tools (only the text is regenerated; tool calls of the original
response still run). The judge of an ``llm`` check is one tool-less model call: the guard's ``model``
(resolved once per turn) or, by default, the agent's model. Judge and regeneration calls add to the turn's
token usage; regenerations also count as model calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from slotgraph.models.protocol import AssistantText, Model, ModelRequest, ModelResponse, UserMessage
from slotgraph.runtime.model_resolution import resolve_model

__all__ = ["ModelJudge", "regeneration_request"]


@dataclass(slots=True)
class ModelJudge:
    """The LLM judge (:class:`~slotgraph.logic.conditions.LogicJudge`) and the safety classifier
    (:class:`~slotgraph.logic.safety.SafetyClassifier`) over models: ``default`` unless a check names one."""

    default: Model
    responses: list[ModelResponse] = field(default_factory=list)
    """Every judge response of the turn (the turn adds their usage)."""
    on_response: Callable[[ModelResponse], None] | None = None
    """Called with every response as it arrives (a caller that adds the usage at once)."""
    _models: dict[str, Model] = field(default_factory=dict)

    async def __call__(self, *, system: str, text: str, model: str | None) -> str:
        request = ModelRequest(
            system_instruction=system, messages=(UserMessage(text),), metadata={"judge": True}
        )
        return await self._ask(self._backend(model), request)

    async def classify(self, *, user: str, text: str, model: str) -> str:
        """A :class:`~slotgraph.logic.safety.SafetyClassifier`: the conversation as a Llama Guard-style model
        reads it — the person's latest message and the agent's text, no system instruction (the server's
        chat template builds the classification prompt), no tools."""
        messages = (UserMessage(user or "(no message)"), AssistantText(text))
        request = ModelRequest(system_instruction="", messages=messages, metadata={"safety": True})
        return await self._ask(self._backend(model), request)

    def _backend(self, model: str | None) -> Model:
        if model is None:
            return self.default
        if model not in self._models:
            self._models[model] = resolve_model(model)
        return self._models[model]

    async def _ask(self, backend: Model, request: ModelRequest) -> str:
        response = await backend.generate(request)
        self.responses.append(response)
        if self.on_response is not None:
            self.on_response(response)
        return response.text if isinstance(response.text, str) else ""


def regeneration_request(request: ModelRequest, feedback: str) -> ModelRequest:
    """``request`` again, with the guard's feedback appended to the instruction and no tools."""
    return ModelRequest(
        system_instruction=f"{request.system_instruction}\n\n<response_guard>\n{feedback}\n</response_guard>",
        messages=request.messages,
        tools=(),
        metadata={**request.metadata, "regeneration": True},
    )
