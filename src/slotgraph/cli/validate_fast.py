"""``slotgraph validate``'s fast path (:data:`slotgraph.cli.main.FastPath`): the command before typer loads.

For the plain forms of its arguments — paths, ``--json``, ``--no-cache`` — ``validate`` needs nothing of the
CLI framework: an unchanged passing config is answered from the cache
(:func:`slotgraph.cli.validate_cache.answer_from_cache`, standard library only), anything else is validated
by :func:`slotgraph.cli.validate.run_validate` directly. That is what the typer command runs too, so the
output and the exit code are the same; typer's own handling of an interrupt (exit 130) and of a closed
pipe on stdout (exit 1, nothing more printed) is kept. Typer (~20 ms of CPU: it builds a pydantic
``TypeAdapter`` per parameter) then loads only for ``--help``, a mistyped option or a missing path.

Pydantic plugins are not looked for (``PYDANTIC_DISABLE_PLUGINS=__all__`` unless the variable is set): the
validator's pydantic models are its own config nodes, which no plugin needs to observe, and the look-up
reads the metadata of every installed distribution (~5 ms). The tools probe, the one place user code runs,
already starts without them (:func:`slotgraph.cli.tool_checks.probe_env`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from slotgraph.cli.validate_cache import NO_CACHE_FLAG, answer_from_cache, plain_arguments

__all__ = ["validate_fast"]


def validate_fast(args: Sequence[str]) -> int | None:
    """``validate``'s answer for plain arguments (exit code), or ``None`` for typer to parse them."""
    parsed = plain_arguments(args)
    if parsed is None:
        return None
    paths, flags = parsed
    try:
        code = answer_from_cache(args)
        if code is not None:
            return code
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        from slotgraph.cli.validate import run_validate

        return int(
            run_validate(
                [Path(path) for path in paths], json_output="--json" in flags, no_cache=NO_CACHE_FLAG in flags
            )
        )
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 1


def _silence_stdout() -> None:
    """After stdout's reader went away: send what is left to ``os.devnull``, so the interpreter's final
    flush does not fail again (typer does the same)."""
    try:
        target = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): nothing will flush to it
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, target)
    os.close(devnull)
