"""Every benchmark still runs (on a tiny workload) and prints its closing figure.

Benchmarks measure; these tests only keep them from rotting when the code they drive changes. No figure is
asserted beyond its presence: speed goals live in the benchmarks' own output, never in tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.sgd.data import data_dir

pytestmark = pytest.mark.slow  # a plain `pytest` skips it; `make test` and CI run it

ROOT = Path(__file__).resolve().parents[1]

CASES = [
    (["startup.py", "--runs", "1"], "start-up measured"),
    (["summary.py", "--quick", "--only", "startup.py"], "== summary: "),
    (["expr_fuzz.py", "--cases", "200"], "OK: no escapes"),
    (["offline_accuracy.py"], "overall:"),
    (["sgd_replay.py", "--limit", "4"], "overall:"),
    (["runtime.py", "--bookings", "2"], "the sync facade adds"),
    # Slotgraph against the peers installed: Google ADK is a dev dependency, the others come with `[bench]`
    (["peers.py", "--bookings", "1"], "GOAL\tpeers: overhead per turn, Slotgraph / fastest peer"),
    (["peers.py", "--bookings", "1", "--design", "record"], "fewest of the peers (record design)"),
    (
        [
            *("service.py", "--sessions", "2", "--turns", "1", "--concurrency", "1", "--idle", "10"),
            *("--parts-rounds", "1", "--parts-sessions", "1"),
        ],
        "| the durable floor's turn on sqlite, called the same way |",
    ),
    (["lock_recovery.py", "--ttl", "0.5"], "the killed holder's lock was free after"),
    (["parallel_tasks.py", "--turns", "2", "--latency-ms", "5"], "parallel/sequential turn ratio:"),
    (["offline_growth.py", "--quick", "--long", "2000"], "worst growth exponent:"),
    # measures this virtualenv (building the two the Makefile builds takes minutes and the package index)
    (["install_size.py", "--venv", f"test={sys.prefix}"], "test virtualenv (`make test`:"),
]


def test_every_benchmark_is_covered() -> None:
    scripts = {p.name for p in (ROOT / "benchmarks").glob("*.py")}
    assert scripts == {args[0] for args, _ in CASES}


@pytest.mark.parametrize(("args", "marker"), CASES, ids=[args[0] for args, _ in CASES])
def test_the_benchmark_runs(args: list[str], marker: str) -> None:
    if args[0] == "service.py":
        pytest.importorskip("uvicorn", reason="the service benchmark needs the server extra")
    if args[0] == "install_size.py" and not (Path(sys.prefix) / "pyvenv.cfg").is_file():
        pytest.skip("the tests do not run in a virtualenv: install_size.py has none to measure")
    if args[0] == "sgd_replay.py" and data_dir() is None:
        pytest.skip("SGD data not found beside the checkout (set SLOTGRAPH_SGD_DATA); as the other SGD tests")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / args[0]), *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert marker in done.stdout, done.stdout[-3000:]


def test_every_wording_of_the_service_benchmark_plays_the_same_flow() -> None:
    """The service benchmark varies each session's wording (so per-text caches are not measured on repeats)
    but must measure one flow: every wording gets the same four replies, up to the party size's digits."""
    pytest.importorskip("uvicorn", reason="the service benchmark needs the server extra")
    import asyncio
    import json
    import re

    from benchmarks import service

    parts = service._parts_app("memory://")

    async def replies(n: int) -> tuple[str, ...]:
        created = await service._ok(parts.app, "/v1/sessions", {"agent": "bella_notte"})
        session_id = json.loads(created)["session_id"]
        out = []
        for text in service.session_script(n):
            reply = await service._ok(parts.app, f"/v1/sessions/{session_id}/messages", {"text": text})
            out.append(re.sub(r"\d", "N", json.loads(reply)["text"]))
        return tuple(out)

    async def scenario() -> set[tuple[str, ...]]:
        async with parts.app.router.lifespan_context(parts.app):
            return {await replies(n) for n in range(150)}  # every greeting x party phrasing x size

    flows = asyncio.run(scenario())
    assert len(flows) == 1, flows
    (flow,) = flows
    assert flow[1] == "Just to confirm — N guests. Is that correct?", flow


def test_the_durable_floor_reads_changes_and_writes_back_one_record_per_session(tmp_path: Path) -> None:
    """The service benchmark's baseline does what it claims: each turn changes the session's stored record
    (kept at its size), in a SQLite file in WAL mode; an unknown session is a 404."""
    pytest.importorskip("uvicorn", reason="the service benchmark needs the server extra")
    import asyncio
    import json
    import sqlite3

    from benchmarks import service
    from benchmarks.floor_apps import RECORD_BYTES, sqlite_app

    app = sqlite_app(str(tmp_path / "floor.db"))

    async def scenario() -> tuple[str, list[dict[str, object]], int]:
        async with app.router.lifespan_context(app):
            session_id = json.loads(await service._ok(app, "/sessions", {}))["session_id"]
            replies = [
                json.loads(await service._ok(app, f"/sessions/{session_id}/messages", {"text": text}))
                for text in ("Hi", "A table for 4")
            ]
            missing, _ = await service.asgi_post(app, "/sessions/nobody/messages", {"text": "Hi"})
            return session_id, replies, missing

    session_id, replies, missing = asyncio.run(scenario())
    assert [reply["turn"] for reply in replies] == [1, 2]
    assert missing == 404
    with sqlite3.connect(tmp_path / "floor.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        (payload,) = conn.execute("SELECT payload FROM sessions WHERE id = ?", (session_id,)).fetchone()
    record = json.loads(payload)
    assert record["turn"] == 2
    assert record["messages"][-2:] == [
        {"role": "user", "text": "A table for 4"},
        {"role": "assistant", "text": replies[-1]["text"]},
    ]
    assert abs(len(payload) - RECORD_BYTES) < RECORD_BYTES * 0.1


def test_the_readme_states_both_sizes_where_install_size_writes_them() -> None:
    """`benchmarks/install_size.py --write-readme` finds both figures (a rewording would lose them)."""
    from benchmarks import install_size

    text = install_size.README.read_text(encoding="utf-8")
    assert set(install_size.readme_figures(text)) == {"demo", "test"}
    rewritten = install_size.with_figures(text, {"demo": 123, "test": 4567})
    assert install_size.readme_figures(rewritten) == {"demo": 120, "test": 4570}


@pytest.mark.skipif(not os.environ.get("CI"), reason="CI's virtualenv is the one `make test` just built")
def test_the_readme_states_the_test_virtualenvs_size() -> None:
    """Under CI the tests run in the virtualenv `make test` built from scratch: the README's figure for it
    is within the script's tolerance (else: `python benchmarks/install_size.py --write-readme`)."""
    from benchmarks import install_size

    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip(f"not `make test`'s virtualenv: {sys.prefix}")
    stated = install_size.readme_figures(install_size.README.read_text(encoding="utf-8"))["test"]
    measured = install_size.disk_usage(Path(sys.prefix)) / 1e6
    assert abs(measured - stated) <= install_size.TOLERANCE * measured, (measured, stated)


def test_install_size_counts_disk_usage_like_du(tmp_path: Path) -> None:
    from benchmarks import install_size

    site = tmp_path / "lib" / "python3.11" / "site-packages" / "pkg"
    site.mkdir(parents=True)
    (site / "big.bin").write_bytes(b"x" * 3_000_000)
    (site / "link.bin").hardlink_to(site / "big.bin")  # counted once, as du counts it
    assert 3_000_000 <= install_size.disk_usage(tmp_path) < 3_200_000
