"""``slotgraph chat`` as a person uses it: in a pseudo-terminal, typing with arrow keys and history.

The chat runs as a real process whose stdin/stdout are the slave side of a pty (so ``isatty()`` is true and
GNU readline is active); the test types bytes into the master side — including the escape sequences the
arrow keys send — and waits for the output it expects (polling the pty with a deadline, never sleeping).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import REPO_ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

LEFT, UP = "\x1b[D", "\x1b[A"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|[\x01\x02]")
DEADLINE_SECONDS = 60.0


class Terminal:
    """A process on a pty: ``type`` keystrokes, ``expect`` text to appear in what it printed."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        master, slave = pty.openpty()
        env = {
            **os.environ,
            "TERM": "xterm",
            "NO_COLOR": "1",
            "COLUMNS": "200",
            "LINES": "50",
            "HOME": str(cwd),
            "INPUTRC": "/dev/null",
        }
        self.process = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True
        )
        os.close(slave)
        self.master = master
        self.output = ""
        self._seen = 0

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the process exited and the pty closed
            return False
        if not chunk:
            return False
        self.output += _ANSI.sub("", chunk.decode("utf-8", "replace")).replace("\r", "")
        return True

    def expect(self, text: str) -> str:
        """Wait until ``text`` appears after what earlier calls consumed; return the output up to it."""
        deadline = time.monotonic() + DEADLINE_SECONDS
        while True:
            found = self.output.find(text, self._seen)
            if found >= 0:
                seen, self._seen = self._seen, found + len(text)
                return self.output[seen : self._seen]
            if time.monotonic() > deadline or (not self._read(0.5) and self.process.poll() is not None):
                raise AssertionError(f"{text!r} never appeared; the terminal shows:\n{self.output[-3000:]}")

    def close(self) -> int:
        try:
            code = self.process.wait(timeout=DEADLINE_SECONDS)
        finally:
            os.close(self.master)
        return code


@pytest.fixture
def chat_terminal(tmp_path: Path) -> Iterator[tuple[Terminal, Path]]:
    transcript = tmp_path / "transcript.jsonl"
    args = [
        sys.executable,
        "-m",
        "slotgraph",
        "chat",
        str(REPO_ROOT / "examples" / "bella_notte"),
        "--today",
        "2026-07-10",
        "--show-state",
        "--transcript",
        str(transcript),
    ]
    terminal = Terminal(args, tmp_path)
    try:
        yield terminal, transcript
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.close()


def test_line_editing_history_help_and_the_state_panel(chat_terminal: tuple[Terminal, Path]) -> None:
    term, transcript = chat_terminal
    term.expect("/help for commands")
    term.expect("you> ")
    term.type("Hi\r")
    term.expect("How many guests will be joining us?")
    first = term.expect("you> ")
    assert "asking next   party_size" in first
    assert "inactive      large_party_phone" in first

    # A typo fixed with the arrow keys: "A tble" -> move left into the word and insert the missing "a".
    term.type("A tble for 4 on July 17th" + LEFT * 22 + "a\r")
    term.expect("Just to confirm — 4 guests, on July 17th. Is that correct?")
    panel = term.expect("you> ")
    assert "set_reservation_basics(party_size=4, preferred_date=2026-07-17)" in panel
    assert '"field_errors": {}' in panel  # the tool's result
    assert "asking next   confirmation of party_size, preferred_date" in panel
    hidden = panel.split("hidden tools", 1)[1].split("(when you answer)", 1)[0]
    assert "confirm_pending" not in hidden  # the readback waits for exactly that tool
    assert "find_available_times" in hidden

    term.type("/help\r")
    term.expect("/quit, /exit   leave")
    term.expect("you> ")

    term.type("yes\r")
    term.expect("Which time works best for you?")
    panel = term.expect("you> ")
    assert "find_available_times(party_size=4, preferred_date=2026-07-17) (engine)" in panel
    assert "confirm_pending" in panel.split("hidden tools", 1)[1]  # nothing left to confirm

    term.type(UP + "\r")  # history: the previous turn again ("yes")
    term.expect("you> ")
    term.type("/quit\r")
    term.expect("── left the session after 4 turns (status in_progress")
    assert term.close() == 0

    rows = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    said = [row["text"] for row in rows if row["kind"] == "user"]
    assert said == ["Hi", "A table for 4 on July 17th", "yes", "yes"]
    assert not any("\x1b" in text or "[D" in text for text in said)


def test_a_finished_session_ends_with_a_clear_line(chat_terminal: tuple[Terminal, Path]) -> None:
    term, _ = chat_terminal
    for text, reply in [
        ("Hi", "How many guests"),
        ("A table for 4 on July 17th", "Is that correct?"),
        ("yes", "Which time"),
        ("7:30 pm", "Is that correct?"),
        ("yes", "What name"),
        ("under Chen", "special requests"),
        ("no special requests", "Is that correct?"),
        ("yes", "Your reservation is confirmed!"),
    ]:
        term.expect("you> ")
        term.type(text + "\r")
        term.expect(reply)
    term.expect("── session over: completed after 8 turns ──")
    assert term.close() == 0
