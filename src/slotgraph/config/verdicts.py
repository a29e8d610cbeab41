"""Validation verdicts kept on disk, with the compiled plan: a config validated once is neither validated nor
parsed into typed nodes again by a later process.

:func:`~slotgraph.config.compile_config` validates a config fully before compiling it — structure, references,
placeholders, expressions, advisories — then builds its typed nodes (pydantic) and compiles those: most of the
cost of the first engine call for a config, and, in a fresh process, the import of pydantic and the node
classes (~150 ms). A long-lived process pays it once (compiled configs are cached by content). A host that
starts a fresh process for every tool call pays it on every call; for such hosts the *verdict* "this exact
config passed validation" can be kept on disk, opt-in, together with the config's *plan*: the normalised
config the compiler builds from (every field under its own name, defaults filled in, response parts as JSON
data — ``DagConfig.model_dump()``), written with :mod:`marshal`. A later process finds the verdict, reads the
plan and compiles from it directly: no semantic checks, no typed nodes, no pydantic import.

**Opting in.** Set ``SLOTGRAPH_VERDICT_DIR`` to a directory (created if missing), or call
:func:`configure_verdict_dir` (``None`` turns it off again; the call wins over the variable).

**What a verdict is.** One file per config that passed, named by its *key*: the sha256 of the Slotgraph
version, the plan's format and the config's content key (the compile cache's, see
:mod:`slotgraph.config.content`). The file holds the key itself, a newline and the plan. So a verdict is found
only for the very same content validated by the very same Slotgraph version; a config that differs in one
character, or a new Slotgraph release (whose checks may be stricter), has no verdict and is validated again.
A file that does not start with its key (truncated, edited, garbage) is not trusted; one whose plan cannot
be read back or compiled is reported with a warning and ignored, and the config is validated and its file
written again. A config holding a value :mod:`marshal` cannot write (a YAML date in a tool call's ``args``)
gets a verdict without a plan: a later process skips its checks but builds its typed nodes. Only passing
verdicts are stored: a config with errors is always validated, and its errors are exactly those of a run
without verdicts.

**Trust.** Whoever can write into the directory can make Slotgraph compile a config they choose in place of
the one it was given (conditions and templates still go through the safe expression language: nothing in a
plan is executed as code): give it the permissions of the code itself (writable only by the service's
user). A development checkout that changes validation or compilation code without changing the version
should not reuse an old directory.

**Failures.** The verdicts are an optimisation: a directory that cannot be created, read or written means
validating as if there were none, with one warning on the ``slotgraph.config`` logger naming the directory and
the reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
from typing import Any, Final

from slotgraph import __version__

__all__ = [
    "PLAN_FORMAT",
    "VERDICT_DIR_ENV",
    "PlanError",
    "VerdictDir",
    "configure_verdict_dir",
    "decode_plan",
    "encode_plan",
    "verdict_dir",
]

VERDICT_DIR_ENV: Final = "SLOTGRAPH_VERDICT_DIR"
PLAN_FORMAT: Final = 1
"""The plan's layout (the normalised config's fields as the compiler reads them); part of every key, so a
plan written for another layout is never read."""
_MARSHAL_VERSION: Final = 4
_READ_CHUNK: Final = 1 << 16
_LOGGER: Final = logging.getLogger("slotgraph.config")
_UNSET: Final = object()


class PlanError(ValueError):
    """A plan on disk that cannot be read back (see the module docstring: it is ignored, never fatal)."""


def encode_plan(normalised: dict[str, Any]) -> bytes:
    """The plan of a normalised config: its :mod:`marshal` bytes, or ``b""`` when it holds a value marshal
    cannot write (the verdict is then kept without a plan)."""
    try:
        return marshal.dumps(normalised, _MARSHAL_VERSION)
    except ValueError:
        return b""


def decode_plan(blob: bytes) -> dict[str, Any]:
    """The normalised config a plan holds; :class:`PlanError` when the bytes are not one."""
    try:
        plan = marshal.loads(blob)
    except (EOFError, ValueError, TypeError) as problem:
        raise PlanError(f"not a plan ({problem})") from problem
    if type(plan) is not dict:
        raise PlanError(f"not a plan (a {type(plan).__name__})")
    return plan


class VerdictDir:
    """The verdicts in one directory (see the module docstring)."""

    __slots__ = ("_warned", "path")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._warned = False

    @staticmethod
    def key(content_key: str) -> str:
        """The verdict key of a config with this content key, under this Slotgraph version and plan format."""
        return hashlib.sha256(
            f"slotgraph {__version__}\0plan {PLAN_FORMAT}\0{content_key}".encode()
        ).hexdigest()

    def read(self, key: str) -> bytes | None:
        """The plan kept with a trustworthy verdict for ``key`` (``b""``: a verdict without a plan), or
        None when there is no such verdict."""
        try:
            fd = os.open(os.path.join(self.path, key), os.O_RDONLY)
        except FileNotFoundError:
            return None
        except OSError as err:
            self._warn("read", err)
            return None
        try:
            chunks = [os.read(fd, _READ_CHUNK)]
            while len(chunks[-1]) == _READ_CHUNK:
                chunks.append(os.read(fd, _READ_CHUNK))
        except OSError as err:
            self._warn("read", err)
            return None
        finally:
            os.close(fd)
        content = b"".join(chunks) if len(chunks) > 1 else chunks[0]
        head = key.encode() + b"\n"
        if not content.startswith(head):
            return None
        return content[len(head) :]

    def record(self, key: str, plan: bytes = b"") -> None:
        """Store the verdict for ``key`` with ``plan`` (atomically: a reader sees no file or the whole
        file)."""
        import tempfile  # only a process that validates writes verdicts; one that reads plans never needs it

        try:
            os.makedirs(self.path, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".verdict-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(key.encode() + b"\n" + plan)
                os.replace(tmp, os.path.join(self.path, key))
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
        except OSError as err:
            self._warn("write", err)

    def reject(self, key: str, problem: Exception) -> None:
        """Report a verdict whose plan cannot be used: ``problem`` is why (a :class:`PlanError` when it could
        not be read back, whatever building it raised otherwise). The caller validates the config again and
        records a new verdict over it."""
        why = (
            str(problem)
            if isinstance(problem, PlanError)
            else f"cannot be built: {type(problem).__name__}: {problem}"
        )
        _LOGGER.warning(
            "ignoring the compiled plan in %s (%s): validating the config again; the file is rewritten",
            os.path.join(self.path, key),
            why,
        )

    def _warn(self, action: str, err: BaseException) -> None:
        if not self._warned:
            self._warned = True
            _LOGGER.warning(
                "cannot %s validation verdicts in %s (%s): configs are validated on every compilation; "
                "fix the directory's permissions or unset %s",
                action,
                self.path,
                err,
                VERDICT_DIR_ENV,
            )


_configured: object = _UNSET
_from_env: tuple[str, VerdictDir] | None = None


def configure_verdict_dir(path: str | os.PathLike[str] | None) -> None:
    """Keep verdicts in ``path`` (``None``: keep none), whatever ``SLOTGRAPH_VERDICT_DIR`` says."""
    global _configured
    _configured = None if path is None else VerdictDir(path)


def verdict_dir() -> VerdictDir | None:
    """Where verdicts are kept now: :func:`configure_verdict_dir`'s choice, else ``SLOTGRAPH_VERDICT_DIR``."""
    global _from_env
    if _configured is not _UNSET:
        return _configured if isinstance(_configured, VerdictDir) else None
    value = os.environ.get(VERDICT_DIR_ENV)
    if not value:
        return None
    if _from_env is None or _from_env[0] != value:
        _from_env = (value, VerdictDir(value))
    return _from_env[1]
