"""Turning a model spec string into a :class:`~slotgraph.runtime.model.Model` — the single seam for backends.

Backends (``"provider:model"``) arrive with the models issue. Until then :func:`resolve_model` builds only
``"scripted:FILE.json"`` (a :class:`~slotgraph.runtime.testing.ScriptedModel` playing a JSON list of steps);
anything else raises :class:`~slotgraph.runtime.errors.ModelNotAvailableError` saying what to do instead.
"""

from __future__ import annotations

from slotgraph.runtime.errors import ModelNotAvailableError
from slotgraph.runtime.model import Model
from slotgraph.runtime.testing import ScriptedModel

__all__ = ["resolve_model"]


def resolve_model(spec: str) -> Model:
    """Build the model a spec string names."""
    provider, _, rest = spec.partition(":")
    if provider == "scripted":
        if not rest:
            raise ModelNotAvailableError(
                "model 'scripted' needs a script file: use 'scripted:FILE.json' (a JSON list of steps)"
            )
        return ScriptedModel.from_file(rest)
    raise ModelNotAvailableError(
        f"model {spec!r} is not available: model backends arrive with the models issue; pass a Model object "
        "(e.g. Agent.load(path, model=ScriptedModel([...]))) or use 'scripted:FILE.json'"
    )
