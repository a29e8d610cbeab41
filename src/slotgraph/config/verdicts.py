"""Validation verdicts kept on disk: a config validated once is not validated again by a later process.

:func:`~slotgraph.config.compile_config` validates a config fully before compiling it — structure, references,
placeholders, expressions, advisories — which is most of the cost of the first engine call for a config. A
long-lived process pays it once (compiled configs are cached by content). A host that starts a fresh process
for every tool call pays it on every call; for such hosts the *verdict* "this exact config passed validation"
can be kept on disk, opt-in, and the semantic checks are then skipped for a config that passed before.

**Opting in.** Set ``SLOTGRAPH_VERDICT_DIR`` to a directory (created if missing), or call
:func:`configure_verdict_dir` (``None`` turns it off again; the call wins over the variable).

**What a verdict is.** One file per config that passed, named by its *key*: the sha256 of the Slotgraph
version and the config's content key (the compile cache's, see :mod:`slotgraph.config.content`). The file
holds the key itself. So a verdict is found only for the very same content validated by the very same
Slotgraph version; a config that differs in one character, or a new Slotgraph release (whose checks may be
stricter), has no verdict and is validated again. A file whose content is not its key (truncated, edited,
garbage) is not trusted. Only passing verdicts are stored: a config with errors is always validated, and its
errors are exactly those of a run without verdicts. The structural check (the typed config nodes) runs on
every compilation either way.

**Trust.** Whoever can write into the directory can make Slotgraph skip the semantic checks of a config they
choose: give it the permissions of the code itself (writable only by the service's user). A development
checkout that changes validation code without changing the version should not reuse an old directory.

**Failures.** The verdicts are an optimisation: a directory that cannot be created, read or written means
validating as if there were none, with one warning on the ``slotgraph.config`` logger naming the directory and
the reason.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Final

from slotgraph import __version__

__all__ = ["VERDICT_DIR_ENV", "VerdictDir", "configure_verdict_dir", "verdict_dir"]

VERDICT_DIR_ENV: Final = "SLOTGRAPH_VERDICT_DIR"
_LOGGER: Final = logging.getLogger("slotgraph.config")
_UNSET: Final = object()


class VerdictDir:
    """The verdicts in one directory (see the module docstring)."""

    __slots__ = ("_warned", "path")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._warned = False

    @staticmethod
    def key(content_key: str) -> str:
        """The verdict key of a config with this content key, under this Slotgraph version."""
        return hashlib.sha256(f"slotgraph {__version__}\0{content_key}".encode()).hexdigest()

    def passed(self, key: str) -> bool:
        """Whether a trustworthy verdict for ``key`` is on disk."""
        try:
            fd = os.open(os.path.join(self.path, key), os.O_RDONLY)
        except FileNotFoundError:
            return False
        except OSError as err:
            self._warn("read", err)
            return False
        try:
            return os.read(fd, len(key) + 1) == key.encode()
        except OSError as err:
            self._warn("read", err)
            return False
        finally:
            os.close(fd)

    def record(self, key: str) -> None:
        """Store the verdict for ``key`` (atomically: a reader sees no file or the whole file)."""
        try:
            os.makedirs(self.path, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".verdict-")
            try:
                with os.fdopen(fd, "w", encoding="ascii") as out:
                    out.write(key)
                os.replace(tmp, os.path.join(self.path, key))
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as err:
            self._warn("write", err)

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
