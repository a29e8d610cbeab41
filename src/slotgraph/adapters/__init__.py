"""Adapters that plug the Slotgraph engine into other hosts.

* :mod:`slotgraph.adapters.cxas` — the spec-compatible entry: ``slot_filling_engine``, ``after_tool``,
  ``confirm_pending``, ``reject_pending`` and ``fill_slots`` with the original platform's plain-dict
  interface.
"""
