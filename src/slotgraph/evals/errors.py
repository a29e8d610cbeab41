"""Errors of the evaluation harness: a scenario or golden file that cannot be used.

``EvalError`` is the base; ``ScenarioFormatError`` carries the file, the path inside it
(``turns[2].expect.tool_calls[0].args``), what is wrong and how to fix it, so the CLI can print a located
message instead of a traceback.
"""

from __future__ import annotations

from pathlib import Path

from slotgraph.errors import SlotgraphError

__all__ = ["EvalError", "ScenarioFormatError"]


class EvalError(SlotgraphError):
    """Base of every evaluation-harness error."""

    code = "eval_error"


class ScenarioFormatError(EvalError):
    """A scenario or golden file is malformed: ``file``, ``location`` inside it, ``message`` and ``fix``."""

    code = "scenario_format"

    def __init__(self, file: Path | str, location: str, message: str, fix: str = "") -> None:
        self.file = Path(file)
        self.location = location
        self.message = message
        where = f"{self.file}: {location}: " if location else f"{self.file}: "
        super().__init__(where + message + (f" (fix: {fix})" if fix else ""), fix=fix)
