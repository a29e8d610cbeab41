"""Which of Slotgraph's modules run compiled, and the guard that never lets a stale compiled module run.

Where a C compiler is available, the build compiles the pure core (the expression language, the engine,
the spec-compatible entry and the compiled-config types) with mypyc into C extension modules that sit next
to their sources (``setup.py``; docs/performance.md, "The compiled core"). Python imports an extension
module in preference to the source beside it, so an edited source would silently keep running its old
compiled code. This module, imported first by ``slotgraph/__init__.py``, prevents that:

* an in-place build (an editable install) leaves ``_native.json``: the compiled modules and, for each, the
  size, modification time and SHA-256 of the source it was compiled from. If any source differs (its size
  and time first, then its digest), **every** compiled module is imported from its source instead — the
  compiled modules call each other directly, so mixing old compiled code with a new source is never safe —
  and a warning on the ``slotgraph`` logger says which file and how to rebuild (``make``, or
  ``pip install -e .``);
* ``SLOTGRAPH_PURE_PYTHON=1`` imports every compiled module from its source (debugging, and the test
  run that checks the pure-Python code behaves the same);
* an installed wheel has no ``_native.json`` and is used as built.

:func:`status` says what is in use (``slotgraph --version`` prints it). Checking costs one ``stat`` when
there is no manifest, and about fifty when there is one.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Final, NamedTuple

__all__ = ["PURE_ENV", "NativeStatus", "install_guard", "status"]

PURE_ENV: Final = "SLOTGRAPH_PURE_PYTHON"
PACKAGE_DIR: Final = Path(__file__).resolve().parent
MANIFEST: Final = PACKAGE_DIR / "_native.json"
_TRUE: Final = frozenset({"1", "true", "yes", "on"})


class NativeStatus(NamedTuple):
    """What :func:`status` reports."""

    compiled: bool
    """True when the compiled modules are the ones imported."""
    reason: str
    """Why, in words (printed by ``slotgraph --version``)."""
    stale: tuple[str, ...] = ()
    """Sources edited since the build (their compiled modules are not used)."""


class _SourceFinder:
    """A meta path finder that imports the named modules from their ``.py`` sources."""

    def __init__(self, sources: dict[str, tuple[Path, bool]]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        entry = self.sources.get(fullname)
        if entry is None:
            return None
        source, is_package = entry
        return importlib.util.spec_from_file_location(
            fullname, source, submodule_search_locations=[str(source.parent)] if is_package else None
        )


_STATE: dict[str, NativeStatus] = {}  # set once, by install_guard (the import of the package)


def _read_manifest(path: Path) -> dict[str, dict[str, Any]] | None:
    import json  # only in a development checkout (an installed wheel has no manifest)

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        modules = data["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return modules if isinstance(modules, dict) else None


def _digest(path: Path) -> str | None:
    import hashlib  # only when a source's size or time changed

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def stale_sources(modules: dict[str, dict[str, Any]], package_dir: Path) -> list[str]:
    """The sources (relative to ``src``) that differ from what the manifest says was compiled."""
    root = package_dir.parent
    stale = []
    for entry in modules.values():
        source = root / str(entry.get("source", ""))
        try:
            info = source.stat()
        except OSError:
            stale.append(str(entry.get("source")))
            continue
        if info.st_size == entry.get("size") and info.st_mtime_ns == entry.get("mtime_ns"):
            continue
        if info.st_size != entry.get("size") or _digest(source) != entry.get("sha256"):
            stale.append(str(entry.get("source")))
    return stale


def _extension_path(source: Path) -> Path | None:
    stem = source.parent if source.name == "__init__.py" else source.with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = stem / f"__init__{suffix}" if source.name == "__init__.py" else Path(f"{stem}{suffix}")
        if candidate.exists():
            return candidate
    return None


def _compiled_modules(package_dir: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the package that has an extension module beside its source (no manifest: a wheel)."""
    found: dict[str, tuple[Path, bool]] = {}
    for source in package_dir.rglob("*.py"):
        if _extension_path(source) is None:
            continue
        parts = source.relative_to(package_dir.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        found[name] = (source, is_package)
    return found


def _sources_of(modules: dict[str, dict[str, Any]], package_dir: Path) -> dict[str, tuple[Path, bool]]:
    root = package_dir.parent
    return {name: (root / str(item["source"]), bool(item.get("package"))) for name, item in modules.items()}


def install_guard(package_dir: Path = PACKAGE_DIR, environ: Any = None) -> NativeStatus:
    """Decide, once per process, whether the compiled modules may be imported (see the module docstring);
    if not, put a finder in front of ``sys.meta_path`` that imports their sources. Returns the status."""
    if "status" in _STATE and package_dir == PACKAGE_DIR:
        return _STATE["status"]
    env = os.environ if environ is None else environ
    manifest_path = package_dir / MANIFEST.name
    modules = _read_manifest(manifest_path) if manifest_path.exists() else None
    pure = str(env.get(PURE_ENV, "")).strip().lower() in _TRUE
    result: NativeStatus
    if pure:
        sources = _sources_of(modules, package_dir) if modules else _compiled_modules(package_dir)
        if sources:
            sys.meta_path.insert(0, _SourceFinder(sources))
        result = NativeStatus(False, f"pure Python ({PURE_ENV}=1)")
    elif modules is None:
        built = _extension_path(package_dir / "engine" / "pipeline.py") is not None
        result = NativeStatus(built, "compiled" if built else "pure Python (not compiled at install)")
    else:
        stale = stale_sources(modules, package_dir)
        if stale:
            sys.meta_path.insert(0, _SourceFinder(_sources_of(modules, package_dir)))
            import logging

            logging.getLogger("slotgraph").warning(
                "slotgraph: %s changed since the core was compiled; running the pure-Python core. "
                "Rebuild with `make` (or `pip install -e .`).",
                ", ".join(stale[:3]) + (f" and {len(stale) - 3} more" if len(stale) > 3 else ""),
            )
            result = NativeStatus(False, "pure Python (sources edited since the build)", tuple(stale))
        else:
            sources = _sources_of(modules, package_dir)
            built = all(_extension_path(source) is not None for source, _ in sources.values())
            result = NativeStatus(built, "compiled" if built else "pure Python (compiled modules missing)")
    if package_dir == PACKAGE_DIR:
        _STATE["status"] = result
    return result


def status() -> NativeStatus:
    """Whether the compiled core is in use in this process, and why."""
    return install_guard()


def needs_rebuild(package_dir: Path = PACKAGE_DIR) -> list[str]:
    """What an in-place build would have to do again: the sources edited since it ran, the compiled modules
    missing beside their sources, and extension modules it did not make (left by an earlier build: Python
    would import them). Empty without a manifest: nothing was built in place."""
    modules = _read_manifest(package_dir / MANIFEST.name)
    if modules is None:
        return []
    sources = _sources_of(modules, package_dir)
    missing = [
        str(entry["source"])
        for (source, _), entry in zip(sources.values(), modules.values(), strict=True)
        if _extension_path(source) is None
    ]
    leftovers = [
        str(source.relative_to(package_dir.parent))
        for name, (source, _) in _compiled_modules(package_dir).items()
        if name not in sources
    ]
    return sorted(set(stale_sources(modules, package_dir)) | set(missing) | set(leftovers))


def main(args: list[str]) -> int:
    """Print the status; with ``["--check"]``, exit 1 when an in-place build is out of date (the Makefile's
    ``native`` target runs it and rebuilds then)."""
    if args == ["--check"]:
        outdated = needs_rebuild()
        for source in outdated:
            print(f"compiled core out of date: {source}")
        return 1 if outdated else 0
    print(status().reason)
    return 0
