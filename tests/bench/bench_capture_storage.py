"""Benchmark: what re-capturing an unchanged page costs on disk (resources stored once).

Run: ``.venv/bin/python tests/bench/bench_capture_storage.py``. For each page of the
capture-dev corpus (../shared/data/capture-dev, replayed on loopback as the live web),
in a fresh archive: one capture with its resources (the host-side path of ``archive add``:
page, stylesheets and what they use, images, fonts), then three re-captures of the same,
unchanged page. Prints the bytes on disk the first capture took, what the three
re-captures added (goal: <= 5 % of the first), and the baseline measured in the same run:
"live" counts the archive the store reads (blobs, the snapshots db/MANIFEST names, the
journal); "whole home" adds the snapshots a compaction replaced, which the store keeps for
one more generation for readers opened before it (engine/archive/storage.py), whatever
the capture was; both are printed.
SingleFile-style storage, one self-contained HTML file per capture (every resource inlined
as a base64 data: URI), so three re-captures add three full files.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.archive.registry import register  # noqa: E402
from engine.archive.storage import MANIFEST, SNAPSHOT_NAME  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402
from host.services.fetch import fetch  # noqa: E402
from host.services.resource_fetch import with_resources  # noqa: E402
from tests.host.capture_dev import CORPUS, start_replay  # noqa: E402

GOAL = 0.05
RECAPTURES = 3


def disk_bytes(home: Path) -> int:
    return sum(p.stat().st_size for p in home.rglob("*") if p.is_file() and p.name != "LOCK")


def live_bytes(home: Path) -> int:
    """:func:`disk_bytes` without the previous generation's snapshots (not in db/MANIFEST)."""
    named = set(json.loads((home / "db" / MANIFEST).read_text("utf-8"))["tables"].values())
    stale = [
        p
        for p in (home / "db").iterdir()
        if SNAPSHOT_NAME.fullmatch(p.name) and p.name not in named
    ]
    return disk_bytes(home) - sum(p.stat().st_size for p in stale)


def single_file_size(capture) -> int:
    """Bytes of a SingleFile-style file: the HTML with every stored resource inlined."""
    html = capture.html if isinstance(capture.html, bytes) else capture.html.encode()
    size = len(html)
    for entry in capture.resources:
        data = entry.get("data")
        if data is not None:
            prefix = f"data:{entry['type'] or 'application/octet-stream'};base64,"
            size += len(prefix) + len(base64.b64encode(data)) - len(entry["url"])
    return size


def capture_once(store, url: str) -> tuple[int, int]:
    """Capture and register ``url``; (resources with bytes, SingleFile-style file size)."""
    capture = with_resources(fetch(url).capture(url, "fetch"))
    fetched = sum(1 for e in capture.resources if e.get("data") is not None)
    baseline = single_file_size(capture)
    register(store, capture)
    return fetched, baseline


def measure(url: str) -> dict:
    home = Path(tempfile.mkdtemp(prefix="pk-bench-capture-"))
    store = ArchiveStore.open(home)
    stored, baseline = capture_once(store, url)
    store.storage.compact()
    first, first_live = disk_bytes(home), live_bytes(home)
    for _ in range(RECAPTURES):
        capture_once(store, url)
    store.storage.compact()
    added, added_live = disk_bytes(home) - first, live_bytes(home) - first_live
    store.close(compact=False)
    return {
        "url": url,
        "resources": stored,
        "first": first,
        "added": added_live,
        "added_home": added,
        "single_file": baseline,
    }


def main() -> int:
    replay = start_replay()
    os.environ.update({k: v for k, v in replay.env().items() if k.isupper()})
    pages = json.loads((CORPUS / "pages.json").read_text("utf-8"))
    rows, worst = [], 0.0
    try:
        for page in pages:
            try:
                row = measure(page["url"])
            except Exception as exc:  # a page the host cannot fetch is reported, not fatal
                print(f"{page['id']:<20} failed: {type(exc).__name__}: {exc}")
                continue
            rows.append(row)
            share = row["added"] / row["first"]
            worst = max(worst, share)
            print(
                f"{page['id']:<20} resources {row['resources']:>3}  first {row['first']:>9,} B  "
                f"+{RECAPTURES} re-captures {row['added']:>7,} B = {share:6.2%} of the first  "
                f"(whole home +{row['added_home']:,} B = {row['added_home'] / row['first']:.2%})  "
                f"| SingleFile-style: +{RECAPTURES * row['single_file']:>9,} B "
                f"({RECAPTURES * row['single_file'] / max(row['added'], 1):,.0f}x ours)"
            )
    finally:
        replay.stop()
    total_first = sum(r["first"] for r in rows)
    total_added = sum(r["added"] for r in rows)
    total_single = sum(RECAPTURES * r["single_file"] for r in rows)
    print(
        f"all {len(rows)} pages: re-captures added {total_added:,} B = "
        f"{total_added / max(total_first, 1):.2%} of {total_first:,} B (goal <= {GOAL:.0%}, "
        f"worst page {worst:.2%}); SingleFile-style three full files: {total_single:,} B "
        f"({total_single / max(total_added, 1):,.0f}x)"
    )
    met = [r["url"] for r in rows if r["added"] / r["first"] <= GOAL]
    print(f"goal met (live) on {len(met)} of {len(rows)} pages: {', '.join(met)}")
    home = [r["url"] for r in rows if r["added_home"] / r["first"] <= GOAL]
    print(f"goal met (whole home) on {len(home)} of {len(rows)} pages: {', '.join(home)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
