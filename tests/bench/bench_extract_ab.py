"""Benchmark: ``main_text`` and ``visible_text`` in this tree beside another tree's, in one run.

Run: ``.venv/bin/python tests/bench/bench_extract_ab.py --base DIR [--rounds 4] [--passes 2]
[--split tune] [--every 1]``, where DIR holds the other tree's ``engine`` and ``tests``
(``git archive COMMIT engine tests | tar -x -C DIR``).

Each round starts one fresh process per tree, the two trees in turn (the order swapped every
round, so neither always runs first at a given load): each reads the wide set's pages of the
split, runs one warm-up pass, then ``--passes`` timed passes, and reports the best pass's CPU
ms a page (``process_time``; wall beside) for ``main_text``, and, timed apart, for
``visible_text`` and for what a capture reads (the extraction and the visible text, from one
parse where the tree has ``parse_page``). It prints each run with the load, per tree the minimum and median over the
rounds, and a digest of every output, which must be the same in both trees when a change
claims identical outputs.

``--shipped`` (no ``--base``): this tree's pure modules beside this tree as the CLI and the
daemon run it (host/compiled.py ``use_compiled``: the compiled copy of ``make compiled-engine``,
refused when it is not built from this tree's sources).
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from bench_suggest_ab import run_in  # a sibling script (tests/bench is on sys.path)

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import hashlib, json, sys, time
SHIPPED = sys.argv[4:] == ["shipped"]
if SHIPPED:  # as the CLI and the daemon choose, before the engine's first import
    from host.compiled import use_compiled
    assert not use_compiled(), use_compiled()
sys.path.insert(0, "tests/bench")
import bench_extract_wide as wide
from engine.html.extract import extract, main_text
from engine.html.visible import visible_text
try:  # a capture reads both from one parse where the tree can
    from engine.html.extract import parse_page
    from engine.html.visible import shown_text
    def capture(html, url):
        page = parse_page(html)
        seen = shown_text(page.tree)
        return seen + "\x01" + extract(page, url).body
except ImportError:
    def capture(html, url):
        return visible_text(html) + "\x01" + extract(html, url).body

split, every, passes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = wide.select(wide.truth(), split, None)[::every]
pages = [(wide.load_page(r["id"]), r.get("url")) for r in rows]

def timed(fn):
    digest = hashlib.sha256()
    cpu, wall = time.process_time(), time.perf_counter()
    for html, url in pages:
        digest.update(fn(html, url).encode() + b"\x00")
    return time.process_time() - cpu, time.perf_counter() - wall, digest.hexdigest()

steps = {"main": lambda h, u: main_text(h, u), "visible": lambda h, u: visible_text(h),
         "capture": capture}
out = {"pages": len(pages)}
if SHIPPED:
    from host.compiled import running
    assert running("extraction")["build"] == "compiled", running("extraction")
for name, fn in steps.items():
    timed(fn)
    runs = [timed(fn) for _ in range(passes)]
    best = min(runs)
    out[name] = {"cpu": best[0] / len(pages) * 1000, "wall": best[1] / len(pages) * 1000,
                 "digest": best[2]}
print(json.dumps(out))
"""


def run(tree: Path, split: str, every: int, passes: int, shipped: bool = False) -> dict:
    return run_in(tree, CHILD, split, str(every), str(passes), *(["shipped"] if shipped else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="the other tree")
    parser.add_argument("--shipped", action="store_true", help="pure beside compiled, this tree")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--split", default="tune", choices=("heldout", "tune", "all"))
    parser.add_argument("--every", type=int, default=1, help="every Nth page of the split")
    args = parser.parse_args()
    if args.shipped == (args.base is not None):
        parser.error("one of --base DIR or --shipped")
    # The children read the pages where this tree finds them: a base unpacked elsewhere (a
    # temporary folder) has no shared folder beside it.
    os.environ.setdefault("PAGEKEEPER_SHARED", str(ROOT.parent / "shared"))
    trees = (
        {"pure": ROOT, "shipped": ROOT}
        if args.shipped
        else {"base": args.base.resolve(), "this": ROOT}
    )
    steps = ("main", "visible", "capture")
    figures: dict[str, dict[str, list[float]]] = {n: {s: [] for s in steps} for n in trees}
    digests: dict[str, set[str]] = {name: set() for name in trees}
    for n in range(args.rounds):
        for name in list(trees)[:: 1 if n % 2 == 0 else -1]:
            load = os.getloadavg()[0]
            found = run(trees[name], args.split, args.every, args.passes, name == "shipped")
            for step in steps:
                figures[name][step].append(found[step]["cpu"])
                digests[name].add(step + ":" + found[step]["digest"])
            print(
                f"round {n + 1} {name}: main_text {found['main']['cpu']:.3f} ms CPU "
                f"(wall {found['main']['wall']:.3f}), visible_text {found['visible']['cpu']:.3f} "
                f"(wall {found['visible']['wall']:.3f}), capture {found['capture']['cpu']:.3f} "
                f"(wall {found['capture']['wall']:.3f}) a page, {found['pages']} pages, "
                f"load {load:.1f}"
            )
    for name, steps in figures.items():
        print(
            f"{name}: "
            + "; ".join(
                f"{step} min {min(v):.3f} median {statistics.median(v):.3f}"
                for step, v in steps.items()
            )
            + " ms CPU a page"
        )
    first, second = digests.values()
    same = first == second and len(second) == len(steps)
    print(f"outputs identical in both trees: {same}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
