"""Compatibility re-export: :class:`ScriptedModel` lives in :mod:`slotgraph.models.scripted`.

Import it from there (or from :mod:`slotgraph.runtime` / :mod:`slotgraph`); this module only keeps older
imports working.
"""

from slotgraph.models.scripted import (
    ScriptedModel,
    ScriptedStep,
    call,
    estimate_prompt_tokens,
    render_request,
)

__all__ = ["ScriptedModel", "ScriptedStep", "call", "estimate_prompt_tokens", "render_request"]
