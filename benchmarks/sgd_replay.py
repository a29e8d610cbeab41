"""Replay Schema-Guided Dialogue conversations through the Slotgraph runtime and compare with the gold.

    .venv/bin/python benchmarks/sgd_replay.py [--data DIR] [--service NAME] [--limit N]
        [--model offline|provider:model] [--split all|heldout|tuning] [--show] [--summary]

Without ``--model`` an oracle plays the model (it maps each user turn's gold acts to tool calls), which
measures the runtime and the converter. With ``--model`` a real model reads the utterances instead, and the
report adds, per service, the failure taxonomy: for each dialogue that missed its gold booking, why the
first user turn whose reading differs from the oracle's went wrong. ``--split heldout`` keeps to the fixed
held-out part (``benchmarks/sgd/split.py``). ``--show`` prints each mismatch's first divergent utterance;
``--summary`` only the per-service and overall lines (how a held-out set is measured without reading why its
dialogues failed, e.g. ``--data ../shared/data/sgd/dev --summary``).

Data: Google's Schema-Guided Dialogue dataset (Rastogi et al., AAAI 2020), CC BY-SA 4.0 (see
docs/sgd-benchmark.md): ``--data``, else ``$SLOTGRAPH_SGD_DATA``, else ``shared/data/sgd/train`` beside the
checkout. The last line is ``overall: <match rate>% of N dialogues``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sgd.backend import Catalogue
from sgd.data import data_dir, load_dialogues, load_schemas
from sgd.live import load_offline, make_model
from sgd.metrics import format_report
from sgd.replay import SGD_TODAY, replay_dialogues
from sgd.split import select


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="directory with schema.json")
    parser.add_argument("--service", default=None, help="only this service, e.g. Restaurants_1")
    parser.add_argument("--limit", type=int, default=None, help="at most N dialogues (by id)")
    parser.add_argument("--model", default=None, help="offline or provider:model (default: the oracle)")
    parser.add_argument("--split", choices=("all", "heldout", "tuning"), default="all")
    parser.add_argument("--show", action="store_true", help="print each mismatch's first divergence")
    parser.add_argument(
        "--summary", action="store_true", help="only the per-service and overall lines (held-out sets)"
    )
    args = parser.parse_args(argv)
    data = args.data or data_dir()
    if data is None or not (data / "schema.json").is_file():
        print(
            f"sgd_replay: no SGD data at {data or 'shared/data/sgd/train beside the checkout'}; "
            "pass --data DIR or set SLOTGRAPH_SGD_DATA",
            file=sys.stderr,
        )
        return 2
    schemas = load_schemas(data / "schema.json")
    everything = load_dialogues(data, args.service)
    # The services' databases hold every row of the directory, whatever part is replayed.
    catalogue = Catalogue.of(everything)
    dialogues = select(everything, args.split)
    if args.limit is not None:
        dialogues = dialogues[: args.limit]
    spec = args.model
    factory = (lambda: make_model(spec, SGD_TODAY)) if spec else None
    if spec == "offline":
        print(f"offline model load (embeddings, city names): {load_offline():.2f} s")
    outcomes = replay_dialogues(dialogues, schemas, factory, catalogue)
    for line in format_report(outcomes, show=args.show and not args.summary, summary=args.summary):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
