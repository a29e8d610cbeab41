"""Model wrappers the runner puts around the model playing the LLM.

* :class:`RecordingModel` records every request and passes it on unchanged: the record of a turn that
  raised (a played turn's own record is its ``TurnResult.steps``).
* :class:`TurnScriptModel` plays the current turn's scripted steps with a fresh
  :class:`~slotgraph.runtime.ScriptedModel` per turn, so a failure points at its turn and unused steps are
  reported where they were left.
"""

from __future__ import annotations

from collections.abc import Sequence

from slotgraph.runtime import Model, ModelRequest, ModelResponse, ScriptedModel, ScriptedStep

__all__ = ["RecordingModel", "TurnScriptModel"]


class RecordingModel:
    """Passes every request to ``inner`` and keeps it in :attr:`requests` (one list per session)."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return await self.inner.generate(request)


class TurnScriptModel:
    """Plays the steps given to :meth:`begin_turn`; a call with no step left raises ScriptedModelError."""

    def __init__(self) -> None:
        self._current = ScriptedModel([])

    def begin_turn(self, steps: Sequence[ScriptedStep]) -> None:
        self._current = ScriptedModel(list(steps))

    def end_turn(self) -> None:
        """Raise ScriptedModelError when steps of the turn were not used."""
        self._current.assert_complete()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        return await self._current.generate(request)
