"""References into the project's docs resolve, and the code and docs cite no section numbers of a document
the reader does not have.

Comments, docstrings and docs point at the behaviour they rely on as ``docs/<page>.md#<section>`` (or, inside
``docs/``, as a Markdown link ``(<page>.md#<section>)``). Each such anchor must be a heading of that page, so
a renamed heading cannot leave dangling references behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# What the reader gets: the code, the docs and the examples cite no section numbers (``§7.3``) of a
# specification they do not have; they point to the section of the docs that explains the behaviour.
CITATION_FREE = ["src", "docs", "examples", "README.md"]
_TEXT = {".py", ".md", ".yaml", ".yml", ".json"}

_CODE_REFERENCE = re.compile(r"docs/([\w-]+\.md)#([\w-]+)")
_DOC_LINK = re.compile(r"\]\((?:\./)?([\w-]+\.md)#([\w-]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def anchors(page: Path) -> set[str]:
    """The anchors a Markdown renderer gives the page's headings (GitHub's rule: lower case, punctuation
    other than ``-`` and ``_`` dropped, spaces to hyphens)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in _HEADING.findall(text)}


def _sources() -> list[Path]:
    files = [ROOT / "README.md", *DOCS.glob("*.md")]
    for folder in ("src", "examples", "benchmarks"):
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".md", ".yaml", ".yml"}]
    return sorted(files)


def _references() -> list[tuple[str, str, str]]:
    found = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        for page, anchor in _CODE_REFERENCE.findall(text):
            found.append((where, page, anchor))
        if path.parent == DOCS:
            found += [(where, page, anchor) for page, anchor in _DOC_LINK.findall(text)]
    return found


def test_the_anchor_rule_matches_headings_with_code_and_punctuation() -> None:
    page = DOCS / "engine.md"
    names = anchors(page)
    assert {"the-state-sm", "event-pre-fill-and-fill_slots", "steer-back", "the-dag-decision"} <= names


def test_every_reference_into_the_docs_names_an_existing_section() -> None:
    references = _references()
    assert len(references) > 50  # the scan finds the references (a broken pattern would pass vacuously)
    broken = []
    cache: dict[str, set[str]] = {}
    for where, page, anchor in references:
        target = DOCS / page
        if not target.is_file():
            broken.append(f"{where}: docs/{page} does not exist")
            continue
        names = cache.setdefault(page, anchors(target))
        if anchor not in names:
            broken.append(f"{where}: docs/{page} has no section #{anchor}")
    assert not broken, "\n".join(sorted(set(broken)))


@pytest.mark.parametrize("swept", CITATION_FREE)
def test_no_spec_section_numbers(swept: str) -> None:
    target = ROOT / swept
    files = [target] if target.is_file() else sorted(p for p in target.rglob("*") if p.suffix in _TEXT)
    left = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "§" in line
    ]
    assert not left, "spec section numbers left (point to the docs instead): " + ", ".join(left)
