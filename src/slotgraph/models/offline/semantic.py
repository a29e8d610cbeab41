"""Semantic matching of a user's words against option descriptions, with static word embeddings.

"I'd like to book a table" shares no word with ``ReserveRestaurant`` or "Reserve a table at a restaurant"
beyond "table"; a static embedding model places the two sentences close anyway. The model is `wordllama`_
(``l2_supercat``, 256 dimensions): its weights and tokenizer ship inside the wheel, so it loads from the
installed package with downloads disabled — nothing is fetched at run time. Loading takes a few hundred
milliseconds once per process (lazily, on the first described choice); a comparison takes well under a
millisecond.

.. _wordllama: https://github.com/dleemiller/WordLlama
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Embedder", "embedder", "similarities"]


class Embedder(Protocol):
    """What the matcher needs of a model: cosine similarities of a query with each candidate."""

    def similarity(self, query: str, candidates: Sequence[str]) -> list[float]: ...


def _import_quietly() -> Any:
    """Import wordllama without letting it configure the application's logging.

    wordllama calls ``logging.basicConfig(level=INFO)`` at import time, which would make every library's
    INFO records print. ``basicConfig`` does nothing when the root logger already has a handler, so one is
    lent for the duration of the import.
    """
    root = logging.getLogger()
    placeholder = logging.NullHandler()
    root.addHandler(placeholder)
    try:
        import wordllama
    except ImportError as exc:  # pragma: no cover - wordllama is a core dependency
        raise ImportError(
            "the offline model's semantic matching needs wordllama: pip install 'wordllama==0.4.0.post1'"
        ) from exc
    finally:
        root.removeHandler(placeholder)
    return wordllama


class _WordLlama:
    def __init__(self) -> None:
        wordllama = _import_quietly()
        WordLlama = wordllama.WordLlama
        # The wheel ships the weights under wordllama/weights/ and the tokenizer under wordllama/tokenizers/;
        # its loader looks for the tokenizer under <cache_dir>/tokenizers/, so the package directory itself
        # is the cache directory. disable_download turns a missing file into an error instead of a fetch.
        package = Path(wordllama.__file__).resolve().parent
        self._model: Any = WordLlama.load(cache_dir=package, disable_download=True)

    def similarity(self, query: str, candidates: Sequence[str]) -> list[float]:
        vectors = self._model.embed([query, *candidates], norm=True)
        return [float(x) for x in vectors[1:] @ vectors[0]]


_LOCK = threading.Lock()


@functools.cache
def _load() -> Embedder:
    with _LOCK:
        return _WordLlama()


def embedder() -> Embedder:
    """The embedding model, loaded once per process on first use and read-only after (a lazily loaded
    constant: nothing it answers is kept)."""
    return _load()


def similarities(query: str, candidates: Sequence[str]) -> list[float]:
    """Cosine similarity of ``query`` with each candidate, in order."""
    if not candidates:
        return []
    return embedder().similarity(query, candidates)
