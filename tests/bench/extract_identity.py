"""Identical outputs check for speed work on the extractor: SHA-1 of every page's extraction
(title, body, summary, keywords, language) and of its visible text on all of extraction-wide and
extraction-dev, and of both read from one parse, as a capture reads them.

Write the fingerprints of one tree, then compare another against them::

    .venv/bin/python tests/bench/extract_identity.py --root <base tree> --write base.json
    .venv/bin/python tests/bench/extract_identity.py --check base.json

``--root`` imports ``engine`` from another checkout (e.g. ``git archive main`` unpacked), so the
base is main's extractor, not this branch's; ``--root build/compiled`` checks the compiled build
(`make compiled-engine`) against the pure modules. Exits 1 and lists the pages that differ.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PAGEKEEPER_SHARED", ROOT.parent / "shared")) / "data"


def pages():
    """(id, html, url) of every page: the wide set as text, extraction-dev as raw bytes."""
    wide = SHARED / "extraction-wide"
    with open(wide / "truth.jsonl", encoding="utf-8") as lines:
        for row in (json.loads(line) for line in lines if line.strip()):
            raw = (wide / "pages" / f"{row['id']}.html.gz").read_bytes()
            yield "wide/" + row["id"], gzip.decompress(raw).decode("utf-8"), row.get("url")
    dev = SHARED / "extraction-dev"
    for cid, case in sorted(json.loads((dev / "cases.json").read_text("utf-8")).items()):
        yield "dev/" + cid, gzip.decompress((dev / case["page"]).read_bytes()), case.get("url")


def fingerprint(extraction) -> str:
    fields = [extraction.title, extraction.body, extraction.summary, extraction.language]
    fields.append(json.dumps(extraction.keywords, sort_keys=True, ensure_ascii=False, default=str))
    return hashlib.sha1("\x00".join(fields).encode()).hexdigest()


def outcome(fn, *args) -> str:
    """``fn(*args)``'s fingerprint (an extraction's, or a text's SHA-1), or its error's type:
    a typed error is an output too."""
    try:
        found = fn(*args)
    except Exception as error:
        return f"error {type(error).__name__}"
    return (
        hashlib.sha1(found.encode()).hexdigest() if isinstance(found, str) else fingerprint(found)
    )


def fingerprints() -> tuple[dict[str, str], list[str]]:
    """Each page's fingerprints (its extraction's, and its visible text's under
    ``<id>#visible``), by the ``engine`` first on ``sys.path`` (see ``--root``); and the pages
    whose visible text and extraction read from ONE parse (``parse_page``, then ``shown_text``
    and ``extract`` on it, as a capture does) differ from the two read apart (none when the
    tree has no shared parse)."""
    extraction = importlib.import_module("engine.html.extract")
    visible = importlib.import_module("engine.html.visible")
    shared = getattr(visible, "shown_text", None)
    out, apart = {}, []
    for page_id, html, url in pages():
        out[page_id] = outcome(extraction.extract, html, url)
        out[page_id + "#visible"] = outcome(visible.visible_text, html)
        if shared is not None:
            try:
                page = extraction.parse_page(html)
            except Exception as error:
                seen = found = f"error {type(error).__name__}"
            else:
                seen = outcome(shared, page.tree)
                found = outcome(extraction.extract, page, url)
            if (found, seen) != (out[page_id], out[page_id + "#visible"]):
                apart.append(page_id)
    return out, apart


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to import engine from")
    parser.add_argument("--write", type=Path)
    parser.add_argument("--check", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    prints, apart = fingerprints()
    print("engine from", sys.modules["engine"].__path__[0])
    # a compiled copy (``--root build/compiled``, `make compiled-engine`) runs its extensions
    print("extract from", sys.modules["engine.html.extract"].__file__)
    print(f"{len(apart)} pages differ read from one parse", *apart[:20], sep="\n")
    if args.write:
        args.write.write_text(json.dumps(prints, indent=0, sort_keys=True))
    if args.check:
        base = json.loads(args.check.read_text())
        differ = sorted(k for k in base.keys() | prints.keys() if base.get(k) != prints.get(k))
        print(f"{len(prints)} pages, {len(differ)} differ", *differ[:20], sep="\n")
        return 1 if differ or apart else 0
    print(f"{len(prints)} pages fingerprinted")
    return 1 if apart else 0


if __name__ == "__main__":
    sys.exit(main())
