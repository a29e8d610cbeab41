"""``slotgraph validate``'s cache: an unchanged config that passed is answered without validating it again.

Re-validating an unchanged app is what an editor hook or a pre-commit run does many times a day, and a full
validation costs two processes that each load pydantic (the validator and the tools probe, see
:mod:`slotgraph.cli.tool_checks`). So a *passing* result is stored, one entry per path argument, with what it
depended on, and :func:`answer_from_cache` (run by :func:`slotgraph.cli.main.main` before typer is imported)
prints it again when nothing it depended on changed. It imports only the standard library: a hit needs none
of pydantic, typer, rich or the probe process.

**What an entry depends on** is recorded while the path is validated, not guessed:

* every file opened for reading, in the validator and in the probe (``tools.py``, the modules and data files
  it reads at import), by the SHA-256 of its content, taken when it is opened; a file that could not be
  opened counts as absent, so creating it later is a change;
* every directory listed (the directories the import system scanned for ``tools.py``'s own imports), and
  the directory of every file read (so a ``tools.py`` or an ``app.yaml`` appearing beside ``dag.yaml`` or
  ``agent.yaml`` is a change), by its sorted names;
* the source of every module loaded in either process (Slotgraph itself, pydantic, the packages ``tools.py``
  imports, the standard library), by size and modification time, as Python's own bytecode cache does;
* and, in the entry's name: the entry format, Slotgraph's version, the Python version and executable, the
  working directory, ``PYTHONPATH`` and the path argument as given.

Files are observed with an audit hook (``sys.addaudithook``, events ``open``, ``os.listdir`` and
``os.scandir``). What it does not see: environment variables (other than ``PYTHONPATH``) or the time of day
read by ``tools.py`` at import, the network, files read by C code without Python's ``open``, and checks made
only with ``os.stat``/``os.path.exists`` outside the directories listed. ``--no-cache`` or
``SLOTGRAPH_NO_CACHE=1`` bypasses the cache (neither reading nor writing it).

The tools probe's output is kept the same way, per ``tools.py`` (:func:`store_probe`, :func:`cached_probe`),
when the module imported and every tool was built: a validation whose config changed but whose tools module
did not reuses it instead of starting the probe process.

Only passing results are stored (a failing path always runs again and prints its full errors); an
unreadable, corrupt or foreign entry is a miss, never an error. On a hit the output is byte-identical to the
run that stored it: the JSON document is rebuilt from the stored results, and the text is the stored plain
rendering when stdout is not a terminal (what rich prints there), else the stored rich markup printed by rich.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from slotgraph import __version__

__all__ = [
    "DISABLE_ENV",
    "VALIDATE_FLAGS",
    "Dependencies",
    "answer_from_cache",
    "cache_dir",
    "cache_enabled",
    "forget_inherited_recordings",
    "plain_arguments",
    "record_dependencies",
    "recording",
    "store",
]

FORMAT = 2
DISABLE_ENV = "SLOTGRAPH_NO_CACHE"
NO_CACHE_FLAG = "--no-cache"
_LARGE_FILE = 16 * 1024 * 1024  # bigger data files are keyed by size and modification time
_VOLATILE = ("/dev/", "/proc/", "/sys/")  # pseudo-files: never a config input


def cache_dir() -> Path | None:
    """``$XDG_CACHE_HOME/slotgraph/validate`` (``~/.cache/...`` when unset or relative), or ``None`` without a
    home directory."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and ignored
        home = os.path.expanduser("~")
        if home == "~":
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "slotgraph" / "validate"


def cache_enabled(*, no_cache: bool = False) -> bool:
    """False with ``--no-cache`` or a non-empty :data:`DISABLE_ENV`."""
    return not no_cache and not os.environ.get(DISABLE_ENV)


def _file_digest(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > _LARGE_FILE:
                return _stat_digest(path)
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return "-"


def _listing_digest(path: str) -> str:
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return "-"
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def _stat_digest(path: str) -> str:
    try:
        stat = os.stat(path)
    except OSError:
        return "-"
    return f"{stat.st_size}:{stat.st_mtime_ns}"


_DIGESTS = {"files": _file_digest, "listings": _listing_digest, "modules": _stat_digest}


@dataclass
class Dependencies:
    """What a validation depended on: ``{absolute path: digest}`` for each kind of :data:`_DIGESTS`."""

    files: dict[str, str] = field(default_factory=dict)
    listings: dict[str, str] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, dict[str, str]]:
        return {"files": self.files, "listings": self.listings, "modules": self.modules}

    def merge(self, other: Mapping[str, Any]) -> None:
        """Add another process's dependencies (the probe's); the first digest of a path is kept."""
        for kind, target in self.as_json().items():
            found = other.get(kind)
            if isinstance(found, Mapping):
                for path, digest in found.items():
                    if isinstance(path, str) and isinstance(digest, str):
                        target.setdefault(path, digest)

    def unchanged(self) -> bool:
        """True when every path still has its recorded digest."""
        return all(
            _DIGESTS[kind](path) == digest
            for kind, found in self.as_json().items()
            for path, digest in found.items()
        )


_active: list[Dependencies] = []
_ignored: tuple[str, ...] = ()
_hook_installed = False
_in_hook = False


def _reads(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str):
        return "+" in mode or not any(letter in mode for letter in "wax")
    return isinstance(flags, int) and flags & os.O_ACCMODE != os.O_WRONLY


def _audit(event: str, args: tuple[Any, ...]) -> None:
    global _in_hook
    if not _active or _in_hook or event not in ("open", "os.listdir", "os.scandir"):
        return
    target = args[0] if args else None
    if target is None and event != "open":
        target = "."  # os.listdir() lists the working directory
    if isinstance(target, int) or target is None:
        return  # a file descriptor: its path was recorded when it was opened
    try:
        path = os.path.abspath(os.fsdecode(target))
    except (TypeError, ValueError):
        return
    if path.startswith(_VOLATILE) or path.endswith(".pyc"):  # compiled code is covered by its module's source
        return
    if path.startswith(_ignored):  # the cache's own entries (the probe's, read inside a validation)
        return
    _in_hook = True
    try:
        if event == "open":
            if _reads(args[1], args[2]):
                digest = None
                for deps in _active:
                    if path not in deps.files:
                        digest = digest or _file_digest(path)
                        deps.files[path] = digest
        else:
            digest = None
            for deps in _active:
                if path not in deps.listings:
                    digest = digest or _listing_digest(path)
                    deps.listings[path] = digest
    finally:
        _in_hook = False


def _loaded_module_files() -> Iterator[str]:
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            yield os.path.abspath(file)


@contextmanager
def recording() -> Iterator[Dependencies]:
    """Record what the code run inside depends on (files read, directories listed, then every loaded
    module). Recordings nest: an inner one's events also reach the outer ones."""
    global _hook_installed, _ignored
    own = cache_dir()
    _ignored = (os.path.join(os.path.abspath(own), ""),) if own is not None else ()
    if not _hook_installed:
        sys.addaudithook(_audit)  # an audit hook cannot be removed: one per process, idle outside recordings
        _hook_installed = True
    deps = Dependencies()
    _active.append(deps)
    try:
        yield deps
    finally:
        _active.remove(deps)
        for file in list(deps.files):  # a file appearing beside one read (tools.py next to dag.yaml)
            directory = os.path.dirname(file)
            if directory not in deps.listings:
                deps.listings[directory] = _listing_digest(directory)
        for file in _loaded_module_files():
            if file not in deps.modules:
                deps.modules[file] = _stat_digest(file)


def forget_inherited_recordings() -> None:
    """In a child forked inside a recording (the tools probe, :func:`slotgraph.cli.tool_probe.run_forked`):
    drop the parent's recordings, which the child's copy of this module still holds; the child records for
    itself and sends what it read back to the parent."""
    _active.clear()


def record_dependencies(found: Any) -> None:
    """Add another process's dependencies (the JSON of :meth:`Dependencies.as_json`) to the active
    recordings; nothing when none is active."""
    if isinstance(found, Mapping):
        for deps in _active:
            deps.merge(found)


def recording_active() -> bool:
    """True inside :func:`recording`: a validation whose result may be stored (not ``--no-cache``)."""
    return bool(_active)


def _entry_file(directory: Path, kind: str, argument: str) -> Path:
    material = [
        FORMAT,
        kind,
        __version__,
        sys.version,
        sys.executable,
        os.getcwd(),
        os.environ.get("PYTHONPATH", ""),
        argument,
    ]
    name = hashlib.sha256(json.dumps(material).encode("utf-8", "surrogateescape")).hexdigest()
    return directory / f"{name}.json"


def _write(kind: str, argument: str, dependencies: Mapping[str, Any], payload: Mapping[str, Any]) -> None:
    """Store one entry (atomically: a reader sees the old entry or the new one); a cache that cannot be
    written is skipped."""
    directory = cache_dir()
    if directory is None:
        return
    entry = {**payload, "format": FORMAT, "dependencies": dependencies}
    target = _entry_file(directory, kind, argument)
    temporary = target.with_name(f"{target.stem}.{os.getpid()}.tmp")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _read(kind: str, argument: str, well_formed: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The stored entry when it is ``well_formed`` and nothing it depended on changed, else ``None``."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        entry = json.loads(_entry_file(directory, kind, argument).read_text(encoding="utf-8"))
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or not well_formed(entry):
            return None
        deps = Dependencies()
        deps.merge(entry["dependencies"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return entry if deps.unchanged() else None


def store(
    path_argument: str, deps: Dependencies, result: Mapping[str, Any], lines: Sequence[str], plain: str
) -> None:
    """Keep a passing result of ``path_argument`` (``str`` of the path as the command shows it): its JSON
    form, its rich markup lines and their plain rendering."""
    payload = {"result": dict(result), "lines": list(lines), "plain": plain}
    _write("validate", path_argument, deps.as_json(), payload)


def _passing_result(entry: dict[str, Any]) -> bool:
    result, lines, plain = entry["result"], entry["lines"], entry["plain"]
    return (
        isinstance(result, dict)
        and result.get("status") == "valid"
        and isinstance(plain, str)
        and isinstance(lines, list)
        and all(isinstance(line, str) for line in lines)
    )


def _clean_probe(entry: dict[str, Any]) -> bool:
    probe = entry["probe"]
    return (
        isinstance(probe, dict)
        and probe.get("import_error") is None
        and isinstance(probe.get("tools"), list)
        and all(isinstance(tool, dict) and not tool.get("error") for tool in probe["tools"])
    )


def store_probe(tools_path: str, probe: Mapping[str, Any]) -> None:
    """Keep the tools probe's output for ``tools_path`` (absolute) when the module imported and every tool
    was built: with its ``dependencies``, it is valid until the module or anything it read changes."""
    found = {key: value for key, value in probe.items() if key != "dependencies"}
    entry = {"probe": found}
    if isinstance(probe.get("dependencies"), Mapping) and _clean_probe(entry):
        _write("probe", tools_path, probe["dependencies"], entry)


def cached_probe(tools_path: str) -> dict[str, Any] | None:
    """The stored probe output for ``tools_path`` (with its ``dependencies``), when nothing it read changed:
    a config edited with its tools module unchanged does not start the probe process again."""
    entry = _read("probe", tools_path, _clean_probe)
    if entry is None:
        return None
    return {**entry["probe"], "dependencies": entry["dependencies"]}


def _plain_stdout() -> bool:
    """True when rich would print plain text on stdout: not a terminal, and not forced to act as one."""
    if "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ:
        return False
    try:
        return not sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _utf8_stdout() -> bool:
    encoding = getattr(sys.stdout, "encoding", None) or ""
    return encoding.lower().replace("-", "").replace("_", "") == "utf8"


VALIDATE_FLAGS: Final = frozenset({"--json", NO_CACHE_FLAG})
"""The flags of ``validate``'s plain argument forms (:func:`plain_arguments`)."""


def plain_arguments(args: Sequence[str]) -> tuple[list[str], set[str]] | None:
    """``(paths, flags)`` when ``validate``'s arguments are paths and :data:`VALIDATE_FLAGS` only, with at
    least one path; else ``None`` (``--help``, ``--``, an option typer reports, no path: typer parses)."""
    paths: list[str] = []
    flags: set[str] = set()
    for arg in args:
        if arg in VALIDATE_FLAGS:
            flags.add(arg)
        elif not arg or arg.startswith("-"):
            return None
        else:
            paths.append(arg)
    return (paths, flags) if paths else None


def _parse(args: Sequence[str]) -> tuple[list[str], bool] | None:
    """``(paths, --json)`` for the plain forms of ``validate``'s arguments without ``--no-cache``, else
    ``None``."""
    parsed = plain_arguments(args)
    if parsed is None or NO_CACHE_FLAG in parsed[1]:
        return None
    paths, flags = parsed
    return paths, "--json" in flags


def answer_from_cache(args: Sequence[str]) -> int | None:
    """``validate``'s fast path (:data:`slotgraph.cli.main.FastPath`): print the stored results and return 0
    when every path is a hit; ``None`` (validate normally) on a miss, a disabled cache or other arguments."""
    parsed = _parse(args)
    if parsed is None or not cache_enabled() or not _utf8_stdout():
        return None
    paths, json_output = parsed
    entries = []
    for path in paths:
        entry = _read("validate", str(Path(path)), _passing_result)
        if entry is None:
            return None
        entries.append(entry)
    if json_output:
        document = {"ok": True, "exit_code": 0, "results": [entry["result"] for entry in entries]}
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    elif _plain_stdout():
        sys.stdout.write("".join(entry["plain"] for entry in entries))
    else:
        from slotgraph.cli.output import stdout_console

        console = stdout_console()
        for entry in entries:
            for line in entry["lines"]:
                console.print(line)
    sys.stdout.flush()
    return 0
