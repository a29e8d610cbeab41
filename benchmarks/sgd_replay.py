"""Replay Schema-Guided Dialogue conversations through the Slotgraph runtime and compare with the gold.

    .venv/bin/python benchmarks/sgd_replay.py [--data DIR] [--service NAME] [--limit N]

Data: Google's Schema-Guided Dialogue dataset (Rastogi et al., AAAI 2020), CC BY-SA 4.0; see
/work/shared/data/sgd/ATTRIBUTION.md. The last line is ``overall: <match rate>% of N dialogues``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from slotgraph.evals.sgd.data import load_dialogues, load_schemas
from slotgraph.evals.sgd.metrics import format_report
from slotgraph.evals.sgd.replay import replay_dialogues

DEFAULT_DATA = Path("/work/shared/data/sgd/train")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory with schema.json")
    parser.add_argument("--service", default=None, help="only this service, e.g. Restaurants_1")
    parser.add_argument("--limit", type=int, default=None, help="at most N dialogues (by id)")
    args = parser.parse_args(argv)
    schemas = load_schemas(args.data / "schema.json")
    dialogues = load_dialogues(args.data, args.service)
    if args.limit is not None:
        dialogues = dialogues[: args.limit]
    for line in format_report(replay_dialogues(dialogues, schemas)):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
