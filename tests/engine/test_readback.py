"""The readback sentence (§7.1–7.2)."""

from __future__ import annotations

from slotgraph.engine import build_readback

from .toy import toy_dag


def test_spec_example_batched_in_declaration_order() -> None:
    dag = toy_dag()
    pending = {"date": "2026-07-15", "num_guests": 4}
    assert build_readback(dag, pending) == "Just to confirm — 4 guests, on July 15th. Is that correct?"


def test_single_value_and_singular_formatter() -> None:
    assert build_readback(toy_dag(), {"num_guests": 1}) == "Just to confirm — 1 guest. Is that correct?"


def test_unknown_slot_reads_back_as_text_after_known_ones() -> None:
    text = build_readback(toy_dag(), {"zeta": "z", "name": "Chen"})
    assert text == "Just to confirm — Chen, z. Is that correct?"
