"""A real MCP server for the tests: Bella Notte's executors and a setter, over stdio (or HTTP by the tests).

It serves the functions of ``examples/bella_notte/tools.py`` unchanged, so a booking through MCP must give
the same confirmation number as one through the Python tools. ``BELLA_MCP_CONTROL`` names a file the test
writes to steer the next ``book_reservation`` call: ``die`` ends the server process mid-call, ``hang`` never
answers (until the client gives up), anything else books normally. Each call appends its tool name to
``BELLA_MCP_LOG`` when set, so a test sees what the server ran.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

BELLA_TOOLS = Path(__file__).resolve().parents[2] / "examples" / "bella_notte" / "tools.py"

_spec = importlib.util.spec_from_file_location("bella_tools_for_mcp", BELLA_TOOLS)
assert _spec is not None and _spec.loader is not None
bella = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bella)

server = MCPServer("bella-notte-backend", log_level="CRITICAL")


def _log(name: str) -> None:
    path = os.environ.get("BELLA_MCP_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(name + "\n")


def _control() -> str:
    path = os.environ.get("BELLA_MCP_CONTROL")
    return Path(path).read_text(encoding="utf-8").strip() if path and Path(path).exists() else ""


@server.tool()
def find_available_times(party_size: int, preferred_date: str) -> dict[str, Any]:
    """Look up the free tables for a party on a date."""
    _log("find_available_times")
    result: dict[str, Any] = bella.find_available_times(party_size, preferred_date)
    return result


@server.tool()
def book_reservation(
    party_size: int,
    preferred_date: str,
    selected_time: str,
    guest_name: str,
    special_requests: str | None = None,
    large_party_phone: str | None = None,
) -> dict[str, Any]:
    """Book the table. Returns the confirmation number."""
    _log("book_reservation")
    mode = _control()
    if mode.endswith("-once"):  # fail this call only: the next one (a retry) works
        Path(os.environ["BELLA_MCP_CONTROL"]).write_text("", encoding="utf-8")
        mode = mode.removesuffix("-once")
    if mode == "die":
        os._exit(3)
    if mode == "hang":
        threading.Event().wait()
    result: dict[str, Any] = bella.book_reservation(
        party_size, preferred_date, selected_time, guest_name, special_requests, large_party_phone
    )
    return result


@server.tool()
def set_selected_time(time: str) -> dict[str, Any]:
    """Record the time the guest chose, in 24-hour HH:MM format."""
    _log("set_selected_time")
    result: dict[str, Any] = bella.set_selected_time(time)
    return result


@server.tool()
def fail_loudly(reason: str) -> str:
    """Always fails (the server answers isError)."""
    raise ValueError(f"backend says no: {reason}")


if __name__ == "__main__":
    server.run()
