"""Learn the offline model's value lexicon from the SGD tuning data: what people say for a slot's value.

    .venv/bin/python scripts/train_offline_lexicon.py [--data DIR]

Real users name a value the way they say it — "sushi" for the cuisine Japanese, "Chi-town" for Chicago,
"affordable" for a moderate price range — while the backend wants its canonical value. The Schema-Guided
Dialogue annotations give both: every user ``INFORM`` act carries the words said and the canonical value.
This script reads them from ``train/`` and the tuning part of ``train_more/`` (the held-out ids of
``benchmarks/sgd/split.py`` are left out, so the held-out figures stay clean) and keeps, per slot, the
surface forms that

* differ from the canonical value (what the parsers already read — dates, times, numbers, yes/no, "don't
  care" — is left out),
* were said at least :data:`MIN_COUNT` times, in at least two dialogues, and
* meant the same canonical value at least :data:`MIN_AGREEMENT` of the times they were said for the slot;

and, for a slot whose numbers were always written with the same number of decimals ("4.20" for a rating
said "4.2"), that number of decimals.

The output, ``src/slotgraph/models/offline/data/lexicon.json``, is deterministic (sorted) and small: per
slot, its description (how the model finds the entries that apply to a parameter it has never seen: by the
meaning of the parameter's own description) and its surface → canonical entries. The data is Google's
Schema-Guided Dialogue dataset (CC BY-SA 4.0); the derived file carries that attribution.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.sgd.data import data_dir, load_dialogues, load_schemas  # noqa: E402
from benchmarks.sgd.split import is_held_out  # noqa: E402

OUT = ROOT / "src/slotgraph/models/offline/data/lexicon.json"
MIN_COUNT = 2
MIN_AGREEMENT = 2 / 3
_DECIMAL = re.compile(r"\d+\.(\d+)")
_PARSED = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|[\d.,$ ]+|true|false|dontcare", re.I)


_CUISINE = "Cuisine of food served in the restaurant"
WORLD_KNOWLEDGE: dict[str, dict[str, str]] = {
    _CUISINE: {
        # dishes and regional kitchens people name for a cuisine (general culinary knowledge, written here,
        # not read from the data); a value learned from the data for the same words wins
        "taco": "Mexican", "tacos": "Mexican", "burrito": "Mexican", "burritos": "Mexican",
        "enchiladas": "Mexican", "quesadillas": "Mexican", "nachos": "Mexican", "tex-mex": "Mexican",
        "diner food": "American", "burgers": "American", "hamburgers": "American",
        "hot dogs": "American", "fried chicken": "American", "bbq": "American",
        "non meat": "Vegetarian", "non-meat": "Vegetarian", "meatless": "Vegetarian", "veggie": "Vegetarian",
        "taiwanese": "Chinese", "cantonese": "Chinese", "hunan": "Chinese", "shanghainese": "Chinese",
        "dim sum": "Chinese", "szechuan": "Chinese", "chow mein": "Chinese",
        "pho": "Vietnamese", "banh mi": "Vietnamese", "pad thai": "Thai",
        "tempura": "Japanese", "teriyaki": "Japanese", "udon": "Japanese", "sashimi": "Japanese",
        "bibimbap": "Korean", "kimchi": "Korean",
        "tandoori": "Indian", "biryani": "Indian", "naan": "Indian", "masala": "Indian",
        "spaghetti": "Italian", "lasagna": "Italian", "risotto": "Italian", "pizzas": "Italian",
        "gyros": "Greek", "souvlaki": "Greek", "paella": "Spanish",
        "crepes": "French", "oysters": "Seafood", "crab": "Seafood", "shrimp": "Seafood",
    },
}  # fmt: skip
"""Values of a slot from general knowledge, added to what the data teaches (which wins where both say)."""


def learn(sources: list[Path]) -> dict[str, object]:
    said: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    decimals: dict[str, Counter[int]] = defaultdict(Counter)
    dialogues_of: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    descriptions: dict[str, str] = {}
    for source in sources:
        schemas = load_schemas(source / "schema.json")
        for dialogue in load_dialogues(source):
            if is_held_out(dialogue.dialogue_id):
                continue
            service = schemas[dialogue.service]
            for turn in dialogue.user_turns:
                for act in turn.acts:
                    if act.act != "INFORM" or not act.values or not act.canonical_values:
                        continue
                    surface, canonical = " ".join(act.values[0].split()), act.canonical_values[0]
                    description = service.slot(act.slot).description
                    number = _DECIMAL.fullmatch(canonical)
                    if number and not service.slot(act.slot).is_categorical:
                        decimals[description][len(number.group(1))] += 1
                    if surface.lower() == canonical.lower() or _PARSED.fullmatch(canonical):
                        continue
                    descriptions[description] = description
                    said[description][(surface.lower(), canonical)] += 1
                    dialogues_of[(description, surface.lower(), canonical)].add(dialogue.dialogue_id)
    slots = []
    for description in sorted(set(said) | set(decimals) | set(WORLD_KNOWLEDGE)):
        per_surface: dict[str, Counter[str]] = defaultdict(Counter)
        for (surface, canonical), count in said[description].items():
            per_surface[surface][canonical] += count
        entries = dict(WORLD_KNOWLEDGE.get(description, {}))
        for surface, canonicals in sorted(per_surface.items()):
            canonical, count = canonicals.most_common(1)[0]
            total = sum(canonicals.values())
            spread = len(dialogues_of[(description, surface, canonical)])
            if count >= MIN_COUNT and spread >= 2 and count / total >= MIN_AGREEMENT:
                entries[surface] = canonical
        slot: dict[str, object] = {"description": description, "values": dict(sorted(entries.items()))}
        places = decimals.get(description)
        if places and len(places) == 1 and sum(places.values()) >= MIN_COUNT:
            slot["decimals"] = next(iter(places))  # every number said for it was written so ("4.20")
        if entries or "decimals" in slot:
            slots.append(slot)
    return {
        "source": "Schema-Guided Dialogue dataset (Rastogi et al., AAAI 2020), CC BY-SA 4.0: user INFORM "
        "acts of train/ and the tuning part of train_more/ (scripts/train_offline_lexicon.py)",
        "slots": slots,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="the train/ directory (train_more/ beside it)"
    )
    args = parser.parse_args(argv)
    train = args.data or data_dir()
    if train is None or not (train / "schema.json").is_file():
        print("train_offline_lexicon: no SGD train/ data; pass --data DIR", file=sys.stderr)
        return 2
    sources = [train] + [p for p in [train.parent / "train_more"] if (p / "schema.json").is_file()]
    lexicon = learn(sources)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(lexicon, indent=1, sort_keys=True, ensure_ascii=True) + "\n", encoding="utf-8")
    count = sum(len(s["values"]) for s in lexicon["slots"])  # type: ignore[index,union-attr]
    print(f"{OUT}: {count} entries over {len(lexicon['slots'])} slots, {OUT.stat().st_size / 1e3:.0f} kB")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
