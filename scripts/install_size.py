"""Measure the disk size of the virtualenv ``make demo`` makes: the runtime and the offline model, no extras.

    .venv/bin/python scripts/install_size.py            # a fresh virtualenv in a temporary directory
    .venv/bin/python scripts/install_size.py --venv DIR # an existing one, measured as it is

The fresh virtualenv is made the way the Makefile's ``demo`` target makes it: ``python -m venv``, pip
upgraded, then ``pip install -e .`` with ``SLOTGRAPH_COMPILE=0`` (from the package registry, so it takes a
minute or two). The size is the disk usage of every file under it, counted as ``du -sh`` counts it: in
MiB (2^20 bytes, what ``du`` prints as "M"), with the figure in MB of 10^6 bytes beside it. The output
lists the largest installed distributions' folders, the total, and a goal line
``GOAL<TAB>demo virtualenv size<TAB>measured<TAB><=<TAB>250<TAB>MiB``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_MIB = 250
MIB = 1 << 20


def disk_usage(path: Path) -> int:
    """Bytes of disk used by the files under ``path`` (hard links counted once), as ``du -s`` counts."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, _, files in os.walk(path):
        for name in [*files, "."]:
            stat = os.lstat(os.path.join(folder, name))
            key = (stat.st_dev, stat.st_ino)
            if key in seen:
                continue
            seen.add(key)
            total += stat.st_blocks * 512
    return total


def make_demo_venv(where: Path, python: str = sys.executable) -> Path:
    """A virtualenv at ``where`` with what ``make demo`` installs."""
    subprocess.run([python, "-m", "venv", str(where)], check=True)
    pip = [str(where / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", str(ROOT)], check=True, env={**os.environ, "SLOTGRAPH_COMPILE": "0"})
    return where


def report(venv: Path, top: int = 12) -> list[str]:
    site = sorted(venv.glob("lib/python*/site-packages"))
    lines = []
    if site:
        sizes = sorted(((disk_usage(p), p.name) for p in site[0].iterdir() if p.is_dir()), reverse=True)
        lines += [f"{size / MIB:8.1f} MiB  {name}" for size, name in sizes[:top]]
    total = disk_usage(venv)
    lines.append(f"demo virtualenv: {total / MIB:.0f} MiB ({total / 1e6:.0f} MB) at {venv}")
    lines.append(f"GOAL\tdemo virtualenv size\t{total / MIB:.0f}\t<=\t{GOAL_MIB}\tMiB")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--venv", type=Path, default=None, help="measure this virtualenv instead")
    args = parser.parse_args(argv)
    if args.venv is not None:
        if not (args.venv / "bin" / "python").exists():
            print(f"install_size: {args.venv} is not a virtualenv (no bin/python)", file=sys.stderr)
            return 2
        print("\n".join(report(args.venv)))
        return 0
    with tempfile.TemporaryDirectory(prefix="slotgraph-demo-venv-") as tmp:
        venv = make_demo_venv(Path(tmp) / "venv")
        print("\n".join(report(venv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
