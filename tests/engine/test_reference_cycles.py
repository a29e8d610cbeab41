"""Engine calls and dropped compiled DAGs leave nothing for the cyclic garbage collector.

Compiled (mypyc), a nested function and its environment refer to each other: a closure made per call is a
reference cycle, freed only when the collector runs. The engine's decision made one per call, and it held
the call's ``Activity`` and through it the whole compiled DAG, so a host compiling many configs (a fresh
config per call) kept each DAG alive until a collection, and the collector's passes over them grew with
the DAG (the cold path's growth benchmark). These tests run on the compiled core and on the sources.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from slotgraph.config import clear_compile_cache, compile_config
from slotgraph.engine import run_engine

from .bella import after_times, bella_raw


@pytest.fixture
def collector_paused() -> Iterator[None]:
    """The collector stopped (what it finds is counted by the test) and restored, debug flags included."""
    gc.collect()
    enabled, flags = gc.isenabled(), gc.get_debug()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def _collected() -> list[str]:
    """The type names of what a collection finds unreachable now (then freed: saved objects put back in
    ``gc.garbage``'s care would be found again by the next collection)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    found = [type(o).__name__ for o in gc.garbage]
    gc.garbage.clear()
    gc.set_debug(0)
    gc.collect()
    return found


@pytest.mark.usefixtures("collector_paused")
def test_engine_calls_leave_no_cyclic_garbage() -> None:
    dag = compile_config(bella_raw())
    states = [{}, after_times(), {"filled": {"welcome": True, "party_size": 4}}]
    for sm in states:  # warm: the first calls may fill the DAG's own caches
        run_engine(dag, sm, last_user_text="hi")
    _collected()
    for _ in range(10):
        for sm in states:
            run_engine(dag, sm, last_user_text="hi")
    assert _collected() == []


@pytest.mark.usefixtures("collector_paused")
def test_a_dropped_compiled_dag_is_freed_without_the_collector() -> None:
    raw = bella_raw()
    _collected()
    run_engine(compile_config(raw), after_times(), last_user_text="hi")
    clear_compile_cache()
    left = set(_collected())
    assert not left & {"CompiledDag", "CompiledSlot", "CompiledTask", "Activity"}
