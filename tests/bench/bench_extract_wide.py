"""Main-text extraction on the wide set (8 corpora, 23 languages, many page types): F1 per source
and per page type, and ms/page, ours beside trafilatura and readability run in the same run.

Data: ``../shared/data/extraction-wide/`` (its README); F1 is its own scorer (``score.py``: 4-token
shingles of ``\\w+`` tokens, P and R macro-averaged over pages).

The held-out split is FIXED and was never tuned on: within each stratum (source, and page type for
WCXB), pages are ordered by SHA-1 of their id and the first 30 % (rounded) are held out
(:func:`held_out_ids`). Every threshold and rule was chosen on the tuning part only; the held-out
figures are the honest ones. Run: ``.venv/bin/python tests/bench/bench_extract_wide.py
[--split heldout|tune|all] [--engines ours,ours-context,trafilatura,readability] [--limit N]
[--per-page out.tsv] [--interval 2000] [--compiled]``.

``--compiled``: ours from the compiled copy (``make compiled-engine``, refused when it is not
built from this tree's sources), as the CLI and the daemon run it where it is built; the header
says which build ran.

``--interval N``: beside each group, the 95 % interval of the first engine's F1 minus each other
engine's, by a paired bootstrap over the group's pages (N resamples): a gap whose interval holds 0
is not shown by this many pages.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import random
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# after what is there: a caller that chose the compiled copy (host/compiled.py) keeps it first
sys.path.append(str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))
# `make compiled-engine`; the guard the CLI and the daemon use too
from host.compiled import COMPILED, running, stale_compiled  # noqa: E402

if "--compiled" in sys.argv:  # before the engine's first import
    if stale := stale_compiled():
        sys.exit(f"build/compiled is stale ({', '.join(stale[:3])}): run `make compiled-engine`")
    sys.path.insert(0, str(COMPILED))

from bench_extract import options_of  # noqa: E402

from engine.html.extract import ExtractOptions, extract, main_text  # noqa: E402

try:  # the baselines (the bench extras: `make bench` installs them)
    import lxml.html
    import trafilatura
    from readability import Document
except ImportError:
    lxml = trafilatura = Document = None

DATA = (
    Path(os.environ.get("PAGEKEEPER_SHARED", ROOT.parent / "shared")) / "data" / "extraction-wide"
)
HELD_OUT_SHARE = 0.3


def scorer():
    """The data set's own scorer module (score.py), loaded from the data directory."""
    spec = importlib.util.spec_from_file_location("wide_score", DATA / "score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def truth() -> list[dict]:
    with open(DATA / "truth.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def stratum(row: dict) -> str:
    return f"{row['source']}/{row.get('page_type') or '-'}"


def held_out_ids(rows: list[dict]) -> set[str]:
    """The fixed held-out split: per stratum, the 30 % of ids first by SHA-1 of the id."""
    groups: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        groups[stratum(row)].append(row["id"])
    held: set[str] = set()
    for ids in groups.values():
        ids.sort(key=lambda i: hashlib.sha1(i.encode()).hexdigest())
        held.update(ids[: round(HELD_OUT_SHARE * len(ids))])
    return held


def select(rows: list[dict], split: str, limit: int | None) -> list[dict]:
    held = held_out_ids(rows)
    if split != "all":
        rows = [r for r in rows if (r["id"] in held) == (split == "heldout")]
    return rows[:limit]


def load_page(page_id: str) -> str:
    with gzip.open(DATA / "pages" / f"{page_id}.html.gz", "rt", encoding="utf-8") as page:
        return page.read()


def run_ours(html: str, url: str | None) -> str:
    """Our main text alone (the work trafilatura.extract does)."""
    return main_text(html, url)


NO_CONTEXT = replace(ExtractOptions(), context_model=None)


def run_ours_without_context(html: str, url: str | None) -> str:
    """Our main text without the context model of the body's blocks (engine/html/context.py)."""
    return main_text(html, url, NO_CONTEXT)


def run_ours_keywords(html: str, url: str | None) -> str:
    """The whole extraction (main text, summary, keywords), for its time per page."""
    return extract(html, url).body


def run_trafilatura(html: str, url: str | None) -> str:
    return trafilatura.extract(html, url=url, include_comments=False) or ""


def run_readability(html: str, url: str | None) -> str:
    summary = Document(html).summary()
    return lxml.html.fromstring(summary).text_content() if summary else ""


ENGINES = {
    "ours": run_ours,
    "ours-context": run_ours_without_context,
    "ours+keywords": run_ours_keywords,
    "trafilatura": run_trafilatura,
    "readability": run_readability,
}


def engine(name: str):
    """An engine by name; ``ours@key=value;key=value`` is ours with those options set (a
    value is a Python literal: ``ours@paragraph_fallback=True;story_list_min_plain=0``), to
    score a change and the tree without it in one run."""
    if name in ENGINES:
        return ENGINES[name]
    options = options_of(name)

    def run(html: str, url: str | None) -> str:
        return main_text(html, url, options)

    return run


def predict(fn, rows: list[dict], pages: dict[str, str]) -> tuple[dict[str, str], tuple, int]:
    """Outputs by id, (wall, CPU) ms per page, and the number of pages that raised."""
    out, errors, elapsed, cpu = {}, 0, 0.0, 0.0
    for row in rows:
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            out[row["id"]] = fn(pages[row["id"]], row.get("url"))
        except Exception:  # a crash on a page scores as an empty output
            out[row["id"]], errors = "", errors + 1
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
    n = max(1, len(rows))
    return out, (1000 * elapsed / n, 1000 * cpu / n), errors


def group_counts(score, rows: list[dict], outputs: dict[str, str]) -> dict[str, list]:
    """Each page's (tp, fp, fn) by group: per source, per page type ('type:…') and 'ALL'."""
    groups: dict[str, list] = defaultdict(list)
    for row in rows:
        counts = score.tp_fp_fn(row["body"], outputs.get(row["id"], ""))
        groups["ALL"].append(counts)
        groups[row["source"]].append(counts)
        if row.get("page_type"):
            groups["type:" + row["page_type"]].append(counts)
            kind = "article" if row["page_type"] == "article" else "non-article"
            groups["wcxb:" + kind].append(counts)
    return groups


def breakdown(groups: dict[str, list], score) -> dict[str, tuple]:
    """(P, R, F1, pages) of each group."""
    return {name: (*score.aggregate(c), len(c)) for name, c in groups.items()}


def paired_interval(score, ours: list, other: list, rounds: int, seed: int = 0) -> tuple:
    """The 95 % interval of F1(ours) − F1(other) over resamples of the same pages.

    >>> class Mean: aggregate = staticmethod(lambda c: (0, 0, sum(c) / len(c)))
    >>> paired_interval(Mean, [0.9, 0.8], [0.7, 0.6], 200)
    (0.2, 0.2)
    """
    rng, n, diffs = random.Random(seed), len(ours), []
    for _ in range(rounds):
        picks = [rng.randrange(n) for _ in range(n)]
        mine = score.aggregate([ours[i] for i in picks])[2]
        diffs.append(mine - score.aggregate([other[i] for i in picks])[2])
    diffs.sort()
    low, high = diffs[int(0.025 * rounds)], diffs[max(0, int(0.975 * rounds) - 1)]
    return round(low, 6), round(high, 6)


def show_intervals(score, names: list[str], counts: dict[str, dict], rounds: int) -> None:
    """Each group's paired 95 % interval of the first engine minus each other engine."""
    first, others = names[0], names[1:]
    print(f"\n95 % interval of {first} minus each engine (paired bootstrap, {rounds} resamples)")
    print(f"{'group':<22}" + "".join(f"{n[:20]:>24}" for n in others))
    for key in sorted(counts[first], key=lambda k: (k == "ALL", k.startswith("type:"), k)):
        cells = ""
        for name in others:
            low, high = paired_interval(score, counts[first][key], counts[name][key], rounds)
            mark = "+" if low > 0 else "-" if high < 0 else " "
            cells += f"{f'[{low:+.3f}, {high:+.3f}]{mark}':>24}"
        print(f"{key:<22}{cells}")


def show(names: list[str], tables: dict[str, dict], speeds: dict[str, tuple]) -> None:
    keys = sorted(next(iter(tables.values())), key=lambda k: (k == "ALL", k.startswith("type:"), k))
    print(
        f"{'group':<22}{'pages':>6}"
        + "".join(f"{n[:12]:>14}" for n in names)
        + "   (F1; P/R of ours)"
    )
    for key in keys:
        p, r, _, n = tables[names[0]][key]
        cells = "".join(f"{tables[name][key][2]:>14.3f}" for name in names)
        print(f"{key:<22}{n:>6}{cells}   {p:.3f}/{r:.3f}")
    for name in names:
        (ms, cpu), errors = speeds[name]
        line = f"{name:<14} {ms:7.2f} ms/page (CPU {cpu:.2f})"
        print(line + (f"  errors {errors}" if errors else ""))
    if "ours" in speeds and "trafilatura" in speeds:
        (ours, ours_cpu), (traf, traf_cpu) = speeds["ours"][0], speeds["trafilatura"][0]
        print(
            f"speed ours vs trafilatura: x{traf / max(ours, 1e-9):.1f} "
            f"(CPU x{traf_cpu / max(ours_cpu, 1e-9):.1f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="ours,ours+keywords,trafilatura,readability")
    parser.add_argument("--split", default="heldout", choices=("heldout", "tune", "all"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--per-page", help="write id, source, type, F1 of each engine (TSV)")
    parser.add_argument("--interval", type=int, default=0, metavar="N",
                        help="paired bootstrap intervals of the first engine minus each other, "
                             "N resamples (0: none)")  # fmt: skip
    parser.add_argument("--compiled", action="store_true",
                        help="ours from build/compiled (make compiled-engine)")  # fmt: skip
    args = parser.parse_args()
    score, rows = scorer(), select(truth(), args.split, args.limit)
    pages = {row["id"]: load_page(row["id"]) for row in rows}
    build = running("extraction")["build"]
    print(
        f"{len(rows)} pages ({args.split} split), load average {os.getloadavg()[0]:.2f}, "
        f"ours {build}"
    )
    names = args.engines.split(",")
    tables, speeds, outputs, counts = {}, {}, {}, {}
    for name in names:
        outputs[name], ms, errors = predict(engine(name), rows, pages)
        counts[name] = group_counts(score, rows, outputs[name])
        tables[name], speeds[name] = breakdown(counts[name], score), (ms, errors)
    show(names, tables, speeds)
    if args.interval and len(names) > 1:
        show_intervals(score, names, counts, args.interval)
    if args.per_page:
        write_per_page(args.per_page, score, rows, names, outputs)


def write_per_page(path: str, score, rows: list[dict], names: list[str], outputs: dict) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write("id\tsource\ttype\t" + "\t".join(names) + "\n")
        for row in rows:
            f1s = [
                score.aggregate([score.tp_fp_fn(row["body"], outputs[n][row["id"]])])[2]
                for n in names
            ]
            cells = "\t".join(f"{f:.3f}" for f in f1s)
            out.write(f"{row['id']}\t{row['source']}\t{row.get('page_type') or '-'}\t{cells}\n")


if __name__ == "__main__":
    main()
