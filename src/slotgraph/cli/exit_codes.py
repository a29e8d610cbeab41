"""The exit codes of every ``slotgraph`` command (documented in ``docs/cli.md``)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """0 ok, 1 invalid config (the file was found but is wrong), 2 usage error (bad path or option)."""

    OK = 0
    INVALID_CONFIG = 1
    USAGE = 2
