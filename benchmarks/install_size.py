"""Measure the virtualenvs the README's two commands build, and keep the README's figures true.

Run: ``.venv/bin/python benchmarks/install_size.py [--write-readme]`` (from the repository root).

By default it builds, in a temporary directory, the two virtualenvs the Makefile builds — ``make demo``'s
(``pip install -e .``: the runtime and the offline model) and ``make test``'s (``pip install -e '.[dev]'``)
— each with the upgraded pip the Makefile installs first, and prints their size on disk (as ``du`` counts
it: allocated blocks, a hard-linked file once), in MB (10^6 bytes). pip installs from its cache when it
can; the package index must be reachable. ``--venv NAME=PATH`` measures an existing virtualenv instead
(``--venv test=.venv``), building nothing. The demo's size is also printed as a goal line in MiB (``du -sh``'s
unit): at most :data:`DEMO_GOAL_MIB`. ``--write-readme`` puts the measured figures, rounded to 10 MB,
into the README's sentence about them (``--check-readme`` only compares: exit 1 when a figure is more than
15% off).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TOLERANCE = 0.15
DEMO_GOAL_MIB = 250
"""Issue 45's goal for ``make demo``'s virtualenv, in MiB as ``du -sh`` prints it."""


@dataclass(frozen=True)
class Install:
    name: str
    what: str  # what the README says it holds
    target: str  # what pip installs
    readme: re.Pattern[str]  # the README's figure, in group 1


INSTALLS = {
    "demo": Install(
        "demo",
        "`make demo`: the runtime and the offline model",
        ".",
        re.compile(r"the\s+runtime\s+and\s+the\s+offline\s+model,\s+about\s+(\d[\d,]*)\s+MB"),
    ),
    "test": Install(
        "test",
        "`make test`: the development tools, the browser driver, the database servers",
        ".[dev]",
        re.compile(r"the\s+tests\s+use\s+\(about\s+(\d[\d,]*)\s+MB"),
    ),
}


def disk_usage(path: Path) -> int:
    """Bytes allocated under ``path``, as ``du`` counts them (hard links once, symlinks not followed)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for directory, dirnames, filenames in os.walk(path):
        for name in [*dirnames, *filenames]:
            stat = os.lstat(os.path.join(directory, name))
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total + os.lstat(path).st_blocks * 512


def build(install: Install, where: Path) -> Path:
    """A fresh virtualenv with what the Makefile installs for ``install``."""
    venv = where / install.name
    python = venv / "bin" / "python"
    print(f"building the {install.name} virtualenv (pip install -e '{install.target}') ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    for args in (["--upgrade", "pip"], ["-e", install.target]):
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args], cwd=ROOT, check=True)
    return venv


def readme_figures(text: str) -> dict[str, int]:
    """The README's figure for each install, in MB; a missing one is left out."""
    found = {}
    for name, install in INSTALLS.items():
        match = install.readme.search(text)
        if match:
            found[name] = int(match.group(1).replace(",", ""))
    return found


def with_figures(text: str, sizes: dict[str, int]) -> str:
    """``text`` with each measured install's README figure replaced by its size rounded to 10 MB."""
    for name, size in sizes.items():
        pattern = INSTALLS[name].readme
        if not pattern.search(text):
            raise SystemExit(f"README.md: no figure for the {name} install ({pattern.pattern!r})")
        rounded = round(size / 10) * 10
        text = pattern.sub(lambda m, r=rounded: m.group(0).replace(m.group(1), str(r)), text, count=1)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--venv", action="append", default=[], metavar="NAME=PATH", help="measure it, build none"
    )
    parser.add_argument("--write-readme", action="store_true", help="write the figures into README.md")
    parser.add_argument("--check-readme", action="store_true", help="exit 1 when a README figure is off")
    args = parser.parse_args()
    given: dict[str, Path] = {}
    for spec in args.venv:
        name, _, path = spec.partition("=")
        if name not in INSTALLS or not path:
            parser.error(f"--venv {spec!r}: write NAME=PATH with NAME one of {', '.join(INSTALLS)}")
        if not (Path(path) / "pyvenv.cfg").is_file():
            parser.error(f"--venv {spec!r}: {path} is not a virtualenv (no pyvenv.cfg)")
        given[name] = Path(path)

    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="slotgraph-install-size-") as scratch:
        for name, install in INSTALLS.items():
            if given and name not in given:
                continue
            venv = given.get(name) or build(install, Path(scratch))
            used = disk_usage(venv)
            sizes[name] = round(used / 1e6)
            if name == "demo":
                print(f"GOAL\tdemo virtualenv size\t{used / 2**20:.0f}\t<=\t{DEMO_GOAL_MIB}\tMiB")
    readme = README.read_text(encoding="utf-8")
    stated = readme_figures(readme)
    off = []
    for name, size in sizes.items():
        says = stated.get(name)
        note = f"the README says about {says} MB" if says is not None else "the README states no figure"
        print(f"{name} virtualenv ({INSTALLS[name].what}): {size} MB ({note})")
        if says is None or abs(size - says) > TOLERANCE * size:
            off.append(name)
    if args.write_readme:
        README.write_text(with_figures(readme, sizes), encoding="utf-8")
        print("README.md: figures written")
    elif args.check_readme and off:
        print(f"README.md: the {' and '.join(off)} figure is more than {TOLERANCE:.0%} off; --write-readme")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
