"""Whole-config validation, split by concern; :func:`validate_raw` runs every check in one pass.

- :mod:`.structure` — pydantic errors turned into located issues (unknown keys with did-you-mean, wrong
  types, missing fields);
- :mod:`.view` — a tolerant read-only view of the raw config that the other checks walk, so they still run
  on whatever is structurally usable when pydantic refuses part of it;
- :mod:`.references` — slots, tasks, sources, requires, cycles, gate_slot, clear_slots, validate_against;
- :mod:`.setters` — setters, setter_field, reserved and undefined tools;
- :mod:`.placeholders` — ``{slot}`` placeholders in every message and response part;
- :mod:`.expressions` — conditions and readback formatters;
- :mod:`.warnings` — suspicious but legal configs.
"""

from slotgraph.config.validation.run import validate_raw

__all__ = ["validate_raw"]
