"""Build script: the package metadata is in ``pyproject.toml``; this file only adds the compiled core.

Slotgraph's pure decision core (the expression language, the engine and the spec-compatible entry) is
plain, strictly typed Python. Where a C compiler is available the build also compiles those modules with
mypyc (https://mypyc.readthedocs.io), which turns the same typed source into C extension modules: the same
behaviour, several times less CPU per engine invocation (docs/performance.md, "The compiled core"). Where
no compiler is available the package installs as pure Python and behaves identically, only slower.

``SLOTGRAPH_COMPILE`` chooses:

* ``auto`` (default) — compile, and fall back to pure Python with a warning if compiling fails;
* ``1`` — compile, and fail the build if compiling fails (CI, release wheels);
* ``0`` — do not compile (pure Python).

An in-place build (an editable install, ``pip install -e .``) also writes ``src/slotgraph/_native.json``:
the compiled modules and a digest of each source. ``slotgraph/_native.py`` reads it at import and, if a
source was edited after the build, runs every compiled module from its source instead (a stale extension
never runs): ``make`` rebuilds them.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "src"
MANIFEST = SRC / "slotgraph" / "_native.json"

# The compiled modules: the pure core, which does no I/O and is checked by mypy --strict (the engine, the
# expression language, the compiled-config types it reads, the spec-compatible entry, the config's
# semantic checks and the config compiler), and the runtime's pure helpers that every turn runs (the
# framework tags and fencing, the instruction suffix, the JSON checks of tool values, the state copy).
# Keep this list and docs/performance.md ("The compiled core") in step.
COMPILED_PACKAGES = ("slotgraph/expr", "slotgraph/engine", "slotgraph/config/validation")
COMPILED_MODULES = (
    "slotgraph/adapters/cxas.py",
    "slotgraph/config/compile.py",
    "slotgraph/config/compiled.py",
    "slotgraph/config/conditions.py",
    "slotgraph/config/content.py",
    "slotgraph/config/extensions.py",
    "slotgraph/config/formatters.py",
    "slotgraph/fencing.py",
    "slotgraph/names.py",
    "slotgraph/runtime/instructions.py",
    "slotgraph/runtime/json_values.py",
    "slotgraph/runtime/state_copy.py",
)
# Left as Python: the error classes. Their stable ``code`` is a class attribute each subclass overrides and
# ``type(self).code`` reads, which a compiled class does not keep; raising is never on a hot path.
NOT_COMPILED = (
    "slotgraph/engine/errors.py",
    "slotgraph/expr/errors.py",
    # pydantic's errors turned into issues: it reads pydantic's model classes and only runs when the
    # engine's compilation finds the config structurally wrong (never on a hot path)
    "slotgraph/config/validation/structure.py",
)

# mypyc type-checks what it compiles; the project's own mypy settings (pyproject.toml) are for the
# developers' strict check, which `make typecheck` runs. The build only needs the types, and in pip's
# isolated build environment the runtime dependencies (pydantic, yaml) are absent: their imports become
# ``Any`` and errors in the modules the core imports from are not the build's business.
MYPY_FLAGS = (
    "--config-file=",  # no config file: not the developers' strict settings
    "--ignore-missing-imports",
    "--follow-imports=silent",
    "--python-version=3.11",
)


def compiled_sources() -> list[str]:
    """The source files to compile, relative to ``src`` (sorted: the build is reproducible)."""
    files: list[str] = []
    for package in COMPILED_PACKAGES:
        files += [str(path.relative_to(SRC)) for path in (SRC / package).rglob("*.py")]
    files += list(COMPILED_MODULES)
    return sorted(name for name in files if name not in NOT_COMPILED)


def mode() -> str:
    value = os.environ.get("SLOTGRAPH_COMPILE", "auto").strip().lower()
    if value not in ("auto", "1", "0"):
        sys.exit(f"SLOTGRAPH_COMPILE={value!r}: use auto (the default), 1 (compile or fail), 0 (pure Python)")
    return value


def native_extensions() -> list[Any]:
    """mypyc's extensions for the compiled modules (it type-checks them and writes their C code)."""
    from mypyc.build import mypycify

    here = Path.cwd()
    os.chdir(SRC)  # mypyc names modules by their paths: slotgraph/engine/... -> slotgraph.engine....
    try:
        return list(
            mypycify(
                [*MYPY_FLAGS, *compiled_sources()],
                opt_level="3",
                # one C file per module: half the build time of one large file, ~4% slower engine calls
                multi_file=True,
                target_dir=str(ROOT / "build" / "mypyc"),
                group_name="slotgraph_native",
            )
        )
    finally:
        os.chdir(here)


def write_manifest() -> None:
    """What an in-place build compiled, with a digest of each source (read by ``slotgraph._native``)."""
    modules = {}
    for name in compiled_sources():
        source = SRC / name
        data = source.read_bytes()
        stat = source.stat()
        module = name[: -len(".py")].replace("/", ".").removesuffix(".__init__")
        modules[module] = {
            "source": name,
            "package": name.endswith("/__init__.py"),
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
        }
    MANIFEST.write_text(json.dumps({"format": 1, "modules": modules}, indent=1, sort_keys=True) + "\n")


# A stand-in for the compiled modules: it tells setuptools that the distribution has extensions (so it runs
# build_ext and tags the wheel for the platform) without running mypyc while pip only reads the metadata.
# NativeBuildExt replaces it with mypyc's extensions when it builds.
PLACEHOLDER = Extension("slotgraph._native_placeholder", sources=[])


class NativeBuildExt(build_ext):
    """``build_ext`` that compiles the core with mypyc, or falls back to pure Python
    (``SLOTGRAPH_COMPILE=auto``, when mypyc or a C compiler is missing or fails)."""

    def initialize_options(self) -> None:
        super().initialize_options()
        self.parallel = os.cpu_count() or 1

    def finalize_options(self) -> None:
        # before build_ext's own finalisation, which prepares every extension it is given
        extensions = [ext for ext in self.distribution.ext_modules or [] if ext is not PLACEHOLDER]
        if mode() != "0":
            try:
                extensions += native_extensions()
            # mypyc missing, its code generation failing, or its type check, which exits (SystemExit)
            except (Exception, SystemExit) as exc:
                self._fall_back(exc)
        self.distribution.ext_modules = extensions
        super().finalize_options()

    def run(self) -> None:
        MANIFEST.unlink(missing_ok=True)
        if self.inplace:
            self._remove_leftovers()
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # a compiler missing or failing: any error of the C build
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            self._fall_back(exc)
            return
        if self.inplace:
            write_manifest()

    def _remove_leftovers(self) -> None:
        """Delete extension modules an earlier in-place build left in ``src`` that this build does not make
        (a module no longer compiled, or every one when the core is not compiled): Python would import them
        instead of their sources."""
        wanted = {Path(self.get_ext_fullpath(ext.name)).resolve() for ext in self.extensions}
        suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
        for path in SRC.rglob("*"):
            if path.name.endswith(suffixes) and path.resolve() not in wanted:
                path.unlink()

    def _fall_back(self, exc: BaseException) -> None:
        if mode() == "1":
            raise exc
        self.extensions = self.distribution.ext_modules = []
        print(f"slotgraph: the core was not compiled ({exc}); installing it as pure Python", file=sys.stderr)


setup(ext_modules=[PLACEHOLDER], cmdclass={"build_ext": NativeBuildExt})
