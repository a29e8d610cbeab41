"""The compiled core (setup.py, slotgraph/_native.py): a stale compiled module never runs, the pure-Python
sources can be forced, and CI tests the compiled build it ships."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import slotgraph._native as native
from slotgraph._native import PURE_ENV, install_guard, needs_rebuild, stale_sources

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = native.importlib.machinery.EXTENSION_SUFFIXES[0]


def _package(tmp_path: Path, name: str = "fakepkg") -> Path:
    """A package with one module whose "extension" beside it is not loadable: importing it through the
    normal machinery fails, so an import that succeeds came from the source."""
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("WHERE = 'source'\n")
    (package / f"mod{SUFFIX}").write_bytes(b"not a shared object")
    return package


def _manifest(package: Path, *sources: str) -> None:
    modules = {}
    for source in sources:
        path = package.parent / source
        data = path.read_bytes()
        modules[source[:-3].replace("/", ".")] = {
            "source": source,
            "package": False,
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
            "mtime_ns": path.stat().st_mtime_ns,
        }
    (package / "_native.json").write_text(json.dumps({"format": 1, "modules": modules}))


def _import_mod(tmp_path: Path, package: Path) -> str:
    """Import ``<package>.mod`` in a child process with the guard applied to ``package``."""
    code = (
        "import sys, pathlib; sys.path.insert(0, sys.argv[1]);"
        "import slotgraph._native as n;"
        "status = n.install_guard(pathlib.Path(sys.argv[2]));"
        f"import {package.name}.mod as m; print(status.compiled, status.reason, m.WHERE)"
    )
    env = {key: value for key, value in os.environ.items() if key != PURE_ENV}
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), str(package)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return done.stdout + done.stderr


def test_an_unchanged_build_is_used(tmp_path: Path) -> None:
    package = _package(tmp_path)
    _manifest(package, "fakepkg/mod.py")
    assert stale_sources(json.loads((package / "_native.json").read_text())["modules"], package) == []
    assert needs_rebuild(package) == []
    output = _import_mod(tmp_path, package)
    # the guard let the extension through: importing it fails (it is garbage), which proves the point
    assert "ImportError" in output, output


def test_an_edited_source_is_imported_instead_of_its_stale_extension(tmp_path: Path) -> None:
    package = _package(tmp_path)
    _manifest(package, "fakepkg/mod.py")
    (package / "mod.py").write_text("WHERE = 'edited source'\n")
    assert needs_rebuild(package) == ["fakepkg/mod.py"]
    output = _import_mod(tmp_path, package)
    assert "False pure Python (sources edited since the build) edited source" in output, output
    assert "fakepkg/mod.py changed since the core was compiled" in output  # the warning names the file


def test_a_touched_but_unchanged_source_keeps_the_build(tmp_path: Path) -> None:
    package = _package(tmp_path)
    _manifest(package, "fakepkg/mod.py")
    later = (package / "mod.py").stat().st_mtime + 100
    os.utime(package / "mod.py", (later, later))  # what a git checkout does: same content, new time
    assert needs_rebuild(package) == []


def test_a_missing_extension_needs_a_rebuild(tmp_path: Path) -> None:
    package = _package(tmp_path)
    _manifest(package, "fakepkg/mod.py")
    (package / f"mod{SUFFIX}").unlink()
    assert needs_rebuild(package) == ["fakepkg/mod.py"]


def test_pure_python_can_be_forced(tmp_path: Path) -> None:
    package = _package(tmp_path)
    finders = list(sys.meta_path)
    try:
        status = install_guard(package, environ={PURE_ENV: "1"})
        assert not status.compiled and PURE_ENV in status.reason
        found = sys.meta_path[0].find_spec("fakepkg.mod")  # type: ignore[union-attr]
        assert found is not None and found.origin == str(package / "mod.py")
    finally:
        sys.meta_path[:] = finders


def test_without_a_manifest_nothing_needs_a_rebuild(tmp_path: Path) -> None:
    """An installed wheel, or an install left uncompiled (SLOTGRAPH_COMPILE=0): nothing to rebuild."""
    assert needs_rebuild(_package(tmp_path)) == []


def test_the_pure_python_switch_reaches_the_engine() -> None:
    env = {**os.environ, PURE_ENV: "1"}
    done = subprocess.run(
        [sys.executable, "-c", "import slotgraph.engine.pipeline as p; print(p.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert done.stdout.strip().endswith("pipeline.py")


def test_version_says_which_core_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "slotgraph", "version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[1] == f"core: {native.status().reason}"


def test_ci_tests_the_compiled_core() -> None:
    """CI builds with a C compiler: its tests must run the compiled modules, not fall back silently."""
    status = native.status()
    if os.environ.get(PURE_ENV):
        pytest.skip(f"{PURE_ENV} is set: this run tests the pure-Python sources")
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes") and not status.compiled:
        pytest.skip(f"the core is not compiled here ({status.reason}); `make native` builds it")
    assert status.compiled, status.reason
    import slotgraph.engine.pipeline as pipeline

    assert not pipeline.__file__.endswith(".py"), pipeline.__file__


def test_an_extension_the_build_did_not_make_needs_a_rebuild(tmp_path: Path) -> None:
    """An extension module left by an earlier build of a module no longer compiled would shadow its source."""
    package = _package(tmp_path)
    (package / "other.py").write_text("")
    (package / f"other{SUFFIX}").write_bytes(b"left by an earlier build")
    _manifest(package, "fakepkg/mod.py")
    assert needs_rebuild(package) == ["fakepkg/other.py"]
