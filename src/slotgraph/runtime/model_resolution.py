"""Turning a model spec string into a :class:`~slotgraph.models.Model` — the single seam for backends.

:func:`resolve_model` delegates to :mod:`slotgraph.models.registry` (imported inside the function, so the
runtime loads no backend until a spec is resolved): ``"offline"``, ``"scripted:FILE.json"``,
``"openai:gpt-4o-mini"``, ``"openai-compatible:http://localhost:8080/v1#qwen2.5"``,
``"gemini:gemini-2.5-flash"`` and whatever plugins registered. A spec that cannot be built raises a
:class:`~slotgraph.runtime.errors.ModelNotAvailableError` (a
:class:`~slotgraph.models.errors.ModelSpecError`) saying what is wrong and how to fix it.
"""

from __future__ import annotations

from slotgraph.models.protocol import Model

__all__ = ["resolve_model"]


def resolve_model(spec: str) -> Model:
    """Build the model a ``"provider:model"`` spec string names (see ``docs/models.md``)."""
    from slotgraph.models.registry import resolve

    return resolve(spec)
