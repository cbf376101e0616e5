"""Benchmark: ranked full-text search (host/services/fulltext.py) at 100,000 versions, per query
class, beside today's index (the same FTS5 file queried as the index did before champion
lists: every match scored, then grouped in SQL), in the same run; and the time the index
adds to a capture. Targets: <= 50 ms per query, <= 20 ms added to a capture.

Run: ``.venv/bin/python tests/bench/bench_fulltext.py [--versions N] [--split held-out|tune]``.

Data: the real main texts (and titles) of ../shared/data/extraction-wide (2,687 pages, 23
languages; CJK included), split by the SHA-1 of the page id: the champion list's size and
threshold were chosen on ``tune``; figures are reported on ``held-out``. N versions, two per
document: the first is one page's text, the second the same plus the first paragraph of
another page, so word frequencies are those of real pages. The index is filled in one
transaction (``FullTextIndex.add_row``); the store gets the same N version records, so a
capture is indexed as in a 100k archive. Query classes (10 queries each, 5 runs each; p50
and p99 of CPU and wall time per query): a rare word (in ~0.1 % of rows), a common word (in
~50 %), two common words, a phrase (frequent adjacent word pairs), two common words as a
phrase (most rare as a phrase: FTS5 checks the positions in every row holding both), a prefix, a common word
with an excluded common word, a frequent phrase with a common word, and with a common word excluded, a CJK word (frequent Han/Kana bigrams). "now" asks for the
first 100 documents, as ``archive search`` does for its first page.

First, the warm lists are made as the daemon makes them after a start (``warm_plan`` and
``read_list`` off the store thread, ``install`` on it; each step timed, the longest store-
thread step reported) while real pages are captured between a list's read and its install
(the index's catch-up timed: what a capture adds while warming). Then the index is closed
and opened afresh (a restart), and each query is searched ONCE, never searched before (its
FIRST search: a warm list or a full scoring), timed beside today's full scoring of it in the
same run. Then the repeated searches: a list a first search wanted is made after it
(``build_lists``, as the daemon's background job does). Then real pages are captured (the
index's catch-up timed; as in the daemon, no capture copies the WAL into the file or merges
FTS5's segments: both are timed apart, after every 4th, as the text job does them), deleted
(FTS5 'delete') and purged from the file.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.archive import registry, textquery, trash  # noqa: E402
from engine.archive.model import Capture, RegisterOptions, make_id  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402
from host.services import fulltext  # noqa: E402
from host.services.champions import averages  # noqa: E402
from host.services.fulltext import WEIGHTS, FullTextIndex  # noqa: E402

PER_CLASS = 20  # queries per class (each searched once for its first search)

WIDE = ROOT.parent / "shared" / "data" / "extraction-wide" / "truth.jsonl"
FIXTURES = ROOT / "tests" / "fixtures" / "pages"
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]{2}")
TODAY = (  # the index's query before champion lists, for the baseline
    "WITH m AS MATERIALIZED (SELECT rowid AS n, bm25(docs, ?, ?, ?) AS r FROM docs"
    " WHERE docs MATCH ?) SELECT s.key, s.id, min(m.r) AS r FROM m"
    " JOIN seen s ON s.n = m.n WHERE s.live GROUP BY s.key ORDER BY r, s.key"
)
RUNS = 5


def pages(split: str) -> list[dict]:
    with WIDE.open(encoding="utf-8") as lines:  # by "\n" only: texts hold U+2028
        rows = [json.loads(line) for line in lines]
    parity = 0 if split == "tune" else 1
    return [
        r
        for r in rows
        if int(hashlib.sha1(r["id"].encode()).hexdigest(), 16) % 2 == parity
        and len(r["body"]) > 200
    ]


def version_text(chosen: list[dict], n: int) -> tuple[str, str]:
    doc = n // 2
    page = chosen[(doc * 7919) % len(chosen)]
    body = page["body"]
    if n % 2:
        other = chosen[(doc * 104729 + 13) % len(chosen)]
        body += "\n" + other["body"].split("\n")[0]
    return page.get("title") or "", body[:20_000]


def fill(store: ArchiveStore, index: FullTextIndex, chosen: list[dict], count: int) -> None:
    """N version records in the store, and their rows in the index, each in one transaction."""
    ids = []
    with store.transaction():
        for n in range(count):
            doc, host = n // 2, f"site{(n // 2) % 1000}.example"
            url = f"https://{host}/news/article-{doc}"
            reg_id = make_id(1.7e9 + n * 30, ids[-1] if ids else None)
            ids.append(reg_id)
            store.add_version(reg_id, {
                "url": url, "final_url": url, "key": url, "host": host, "ts": 1.7e9 + n * 30,
                "content_type": "text/html", "charset": "utf-8", "last_modified": None,
                "title": "", "orig": None, "rewritten": None, "size": 0, "source": "bench",
                "prev": None, "prev_similarity": None,
            })  # fmt: skip
    index.db.execute("PRAGMA journal_mode=OFF")  # a bench's fill: no WAL copy of 400 MB
    with index._batch():
        for n, reg_id in enumerate(ids):
            title, body = version_text(chosen, n)
            url = store.raw("versions")[reg_id]["url"]
            index.add_row(
                reg_id, url, textquery.index_text(title), textquery.index_text(body), url, None
            )
    index.db.execute("PRAGMA journal_mode=WAL")
    index._load_known()


def queries(index: FullTextIndex, chosen: list[dict]) -> dict[str, list[str]]:
    index.db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms USING fts5vocab(main, docs, row)"
    )
    rows = index.count()
    vocab = [(t, d) for t, d in index.db.execute("SELECT term, doc FROM temp.terms") if t.isalpha()]

    def near(share: float, k: int = PER_CLASS) -> list[str]:
        return [t for t, _ in sorted(vocab, key=lambda v: abs(v[1] - share * rows))[:k]]

    common = near(0.5, PER_CLASS + 1)
    pairs, grams = Counter(), Counter()
    for page in chosen:
        words = re.findall(r"[^\W\d_]+", page["body"].lower())
        pairs.update(set(zip(words, words[1:], strict=False)))
        grams.update(set(CJK.findall(page["body"])))
    ranked_pairs = [p for p, _ in _most_common(pairs, 1000)]
    return {
        "rare": near(0.001),
        "common": common[:PER_CLASS],
        "two common": [f"{a} {b}" for a, b in zip(common, common[1:], strict=False)],
        "phrase": [f'"{a} {b}"' for a, b in ranked_pairs[:: 1000 // PER_CLASS]],
        "common phrase": [f'"{a} {b}"' for a, b in zip(common, common[1:], strict=False)],
        "prefix": list(dict.fromkeys(f"{w[:4]}*" for w in common[:PER_CLASS])),
        "broad prefix": list(dict.fromkeys(f"{w[:n]}*" for w in common for n in (1, 2, 3)))[
            :PER_CLASS
        ],
        "excluded": [f"{a} -{b}" for a, b in zip(common, common[1:], strict=False)],
        "phrase word": [
            f'"{a} {b}" {c}'
            for (a, b), c in zip(ranked_pairs[:: 1000 // PER_CLASS], common, strict=False)
        ],
        "phrase -word": [
            f'"{a} {b}" -{c}'
            for (a, b), c in zip(ranked_pairs[:: 1000 // PER_CLASS], common, strict=False)
        ],
        "CJK": [g for g, _ in _most_common(grams, PER_CLASS)],
    }


def _most_common(counts: Counter, k: int) -> list[tuple]:
    """The ``k`` most common, ties by the key itself: ``Counter.most_common`` orders ties by
    insertion, here a set's iteration order, which hash randomisation changes between runs."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def timed(fn) -> tuple[float, float, object]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000, result


def p99(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, round(0.99 * (len(values) - 1)))]


def today(index: FullTextIndex, query: textquery.Query) -> list:
    return index.db.execute(TODAY, (*WEIGHTS, textquery.to_fts(query))).fetchall()


def row(name: str, base_cpu, base_wall, cpu, wall, docs, tail: str = "") -> str:
    return (
        f"{name:<13}{statistics.median(base_cpu):>9.1f}/{p99(base_cpu):<7.1f}"
        f"{statistics.median(base_wall):>7.1f}/{p99(base_wall):<7.1f}"
        f"{statistics.median(cpu):>8.1f}/{p99(cpu):<7.1f}"
        f"{statistics.median(wall):>7.1f}/{p99(wall):<7.1f}{int(statistics.median(docs)):>8}{tail}"
    )


HEADER = (f"{'class':<13}{'today p50/p99 cpu':>19}{'wall':>14}{'now p50/p99 cpu':>18}{'wall':>14}"
          f"{'docs':>8}")  # fmt: skip


def warm(store: ArchiveStore, index: FullTextIndex) -> None:
    """The warm lists, as the daemon makes them after a start; real pages captured while
    lists spread over the pass are read (between a snapshot and its install)."""
    pages = sorted(FIXTURES.glob("*.html.gz"))
    plan_cpu, plan_wall, plan = timed(index.warm_plan)
    reads, installs, captures, made = [], [], [], 0
    every = max(1, len(plan) // len(pages))  # captures spread over the pass
    for n, term in enumerate(plan):
        generation = index.begin_warm()
        c, w, built = timed(lambda t=term: index.read_list(t))
        reads.append((c, w))
        if n % every == 0 and n // every < len(pages):
            page = pages[n // every]
            body = gzip.decompress(page.read_bytes()) + f"<!-- warm {n} -->".encode()
            registry.register(store, Capture(f"https://warm.example/{n}", body), RegisterOptions())
            captures.append(timed(lambda: index.sync(store, limit=50))[:2])
        c, w, stored = timed(lambda b=built, g=generation: index.install(b, g))
        installs.append((c, w))
        made += stored
        index.checkpoint()  # as the daemon's text job does, in a worker thread
    total_cpu = plan_cpu + sum(c for c, _ in reads + installs)
    total_wall = plan_wall + sum(w for _, w in reads + installs)
    print(
        f"warm: {made} lists of {len(plan)} planned in {total_cpu / 1000:.1f} s CPU / "
        f"{total_wall / 1000:.1f} s wall (plan: the vocabulary scan {plan_wall:.0f} ms wall, off the "
        f"store thread); each list read off the store thread: median {statistics.median(w for _, w in reads):.0f}"
        f" ms wall, max {max(w for _, w in reads):.0f} ms; installed on the store thread: median "
        f"{statistics.median(w for _, w in installs):.1f} ms wall, longest {max(w for _, w in installs):.1f} ms"
        f" wall ({max(c for c, _ in installs):.1f} ms CPU)"
    )
    cpu, wall = [c for c, _ in captures], [w for _, w in captures]
    print(
        f"capture while warming: the index adds median {statistics.median(cpu):.1f} ms CPU / "
        f"{statistics.median(wall):.1f} ms wall, max {max(wall):.1f} ms wall over {len(wall)} real "
        f"pages (target <= 20 ms)"
    )


def first_searches(index: FullTextIndex, classes: dict[str, list[str]]) -> float:
    """Each query searched once on a freshly opened index (its first search), beside today's
    full scoring of it; the head must equal today's."""
    print("FIRST searches (fresh index after the warm lists, each query never searched before):")
    print(HEADER + "  answered from a list (else scored by FTS5)")
    worst, scored, full = 0.0, [], index._scored_head
    index._scored_head = lambda *a: scored.append(1) or full(*a)  # counts the full scorings
    for name, texts in classes.items():
        base_cpu, base_wall, cpu, wall, docs, listed = [], [], [], [], [], 0
        for text in texts:
            query = textquery.parse(text)
            before = len(scored)
            c, w, new = timed(lambda q=query: index.search(q, 100))
            cpu.append(c), wall.append(w), docs.append(new.total)
            listed += len(scored) == before
            c, w, old = timed(lambda q=query: today(index, q))
            base_cpu.append(c), base_wall.append(w)
            assert new.results == [tuple(r) for r in old[: len(new.results)]], text
            assert new.total == len(old), (text, new.total, len(old))
        worst = max(worst, p99(wall))
        print(row(name, base_cpu, base_wall, cpu, wall, docs, f"  {listed}/{len(texts)}"))
    del index._scored_head
    return worst


def compare(index: FullTextIndex, classes: dict[str, list[str]]) -> float:
    print("Repeated searches (the lists the first searches wanted made after them):")
    print(HEADER)
    worst = 0.0
    for name, texts in classes.items():
        base_cpu, base_wall, cpu, wall, docs = [], [], [], [], []
        for text in texts:
            query = textquery.parse(text)
            index.search(query, 100)
            index.build_lists()  # as the daemon does, in the background
            for _ in range(RUNS):
                c, w, old = timed(lambda q=query: today(index, q))
                base_cpu.append(c), base_wall.append(w)
                c, w, new = timed(lambda q=query: index.search(q, 100))
                cpu.append(c), wall.append(w), docs.append(new.total)
                assert new.results == [tuple(r) for r in old[: len(new.results)]], text
        worst = max(worst, p99(wall))
        print(row(name, base_cpu, base_wall, cpu, wall, docs))
    return worst


def capture_cost(store: ArchiveStore, index: FullTextIndex) -> None:
    """Register real pages one by one; time the index's catch-up after each (what a capture
    adds on the store thread), with the champion lists the queries built kept current.
    Every other four pages are the baseline: each one's catch-up and the fold of its bits
    into the bitmaps timed together (what a capture cost when it rewrote its warm terms'
    chunks)."""
    cpu, wall, base, copies, merges, folds = [], [], [], [], [], []
    for n, path in enumerate(sorted(FIXTURES.glob("*.html.gz")) * 4):
        body = gzip.decompress(path.read_bytes()) + f"<!-- {n} -->".encode()
        registry.register(store, Capture(f"https://fixture.example/{n}", body), RegisterOptions())
        if n // 4 % 2:  # four pages of the baseline, then four as now
            base.append(timed(lambda: index.sync(store, limit=50) and index.fold())[:2])
        else:
            c, w, _ = timed(lambda: index.sync(store, limit=50))
            cpu.append(c), wall.append(w)
        if n % 4 == 3:  # the daemon's text job, every 10 s: fold and merge steps, the WAL copied
            folds += fold_steps(index)
            merges += merge_steps(index)
            copies.append(timed(index.checkpoint)[:2])
    bcpu, bwall = [c for c, _ in base], [w for _, w in base]
    print(
        f"capture: the index adds median {statistics.median(cpu):.1f} ms CPU / "
        f"{statistics.median(wall):.1f} ms wall, p99 {p99(cpu):.1f} ms CPU / {p99(wall):.1f} ms "
        f"wall, max {max(cpu):.1f} ms CPU / {max(wall):.1f} ms wall, over {len(wall)} "
        f"real pages at {index.count()} versions, {len(index.champions.tiers)} champion lists "
        f"and {len(index.conjunctions.lists)} conjunction lists (target <= 20 ms); baseline, "
        f"the other {len(bwall)} pages with their bits set in the bitmaps at once: median "
        f"{statistics.median(bcpu):.1f} ms CPU / {statistics.median(bwall):.1f} ms wall, max "
        f"{max(bcpu):.1f} ms CPU / {max(bwall):.1f} ms wall; the WAL copied into the file after "
        f"every 4th, off the store thread: median "
        f"{statistics.median(w for _, w in copies):.1f} ms wall, max {max(w for _, w in copies):.1f} ms"
        f"; the delta folded between captures: {describe(folds)}; FTS5's segments merged "
        f"between captures (not in them, as in the daemon): {describe(merges)}"
    )


ARRIVE_MS = 1.0  # a capture arrives once the step under way has run this long
WAIT_CAPTURES = 30  # captures arriving during each kind of work, at most
GAP_S = 0.02  # between a capture's end and the next arrival


def old_step(index: FullTextIndex, pages: int) -> bool:
    """A merge step as the text job ran it before merges had a connection of their own: on
    the index's connection, on the store thread (``pages`` < 0: the purge's); True when
    nothing was left to merge."""
    with index.lock:
        if pages < 0 and not index.db.execute(fulltext._UNPURGED).fetchone():
            return True
        before = index.db.total_changes
        with index._batch():
            for table in ("docs", "pairs"):
                index.db.execute(fulltext._MERGE.format(table), (pages,))
        if index.db.total_changes - before > 2:
            return False
        if pages < 0:
            index.db.execute("DELETE FROM meta WHERE name = 'unpurged'")
        return True


def delete(store: ArchiveStore, index: FullTextIndex, ids: list[str]) -> None:
    """Delete versions as ``archive delete`` does (forgotten by the index first, then moved to
    the trash), so that the next sync does not index them again."""
    for reg_id in ids:
        index.forget(store, [reg_id])
        trash.delete(store, reg_id)


def catch_up(index: FullTextIndex, store: ArchiveStore, old: bool) -> bool:
    """A step of the daemon's start job (``sync`` of 250 versions at most); ``old``: with the
    pass over the rows whole, then the rows loaded again, as a sync did before the pass
    had steps (the same SQL, 5,000 rows a statement)."""
    if old and index.checking is None and index.reconciled is None:
        with index.lock:
            index._reconcile(store, whole=True)
            index._load_known()
    return index.sync(store, 250)


class Waits:
    """Captures arriving while one kind of the text job's work runs without a pause, as in
    the daemon: a step on the store thread (``on_store``) or in a worker thread; each capture
    (registration, then the index's catch-up) on the store thread. A capture arrives once
    the step under way has run ``ARRIVE_MS`` (long steps: the worst case); what the index
    adds to it is its wait for the store thread plus its catch-up (which includes any wait
    for the index file's one writer)."""

    def __init__(self, store: ArchiveStore, holder: list[FullTextIndex]) -> None:
        self.store, self.holder = store, holder  # holder[0]: the index captures sync
        self.store_thread = ThreadPoolExecutor(1)
        self.pages = sorted(FIXTURES.glob("*.html.gz"))
        self.count = 0
        self.under: float | None = None
        self.idle: list[float] = []
        self.locked = 0.0  # the last capture's wait for the file's lock, s
        self.waited: list[float] = []  # each capture's wait: the store thread's, then the lock's

    def capture(self) -> tuple[float, float, float]:
        n, self.count = self.count, self.count + 1
        body = gzip.decompress(self.pages[n % len(self.pages)].read_bytes())
        body += f"<!-- w{n} -->".encode()
        start = time.perf_counter()
        registry.register(self.store, Capture(f"https://wait.example/{n}", body), RegisterOptions())
        registered = time.perf_counter()
        index, self.locked = self.holder[0], 0.0
        batch = index._batch

        @contextlib.contextmanager
        def timed_batch():  # the wait for the index file's lock (a merge step giving way)
            asked = time.perf_counter()
            with batch():
                self.locked += time.perf_counter() - asked
                yield

        index._batch = timed_batch
        try:
            index.sync(self.store, limit=50)
        finally:
            del index._batch
        return start, registered, time.perf_counter()

    def captures(self, count: int) -> None:
        """Captures with no job running (work for the next one); their catch-up kept in
        ``idle`` (ms wall)."""
        for _ in range(count):
            _start, registered, done = self.store_thread.submit(self.capture).result()
            self.idle.append((done - registered) * 1000)

    def run(
        self, step, on_store: bool, after=None
    ) -> tuple[list[float], list[tuple[float, float]]]:
        """``step()`` until it returns True (``after(n)`` after the n-th, in the job's thread:
        the WAL copies); the index's part of each capture arriving meanwhile (ms wall) and
        each step's (CPU of its thread, wall) ms."""
        steps: list[tuple[float, float]] = []

        def timed_step() -> bool:
            self.under = wall = time.perf_counter()
            cpu = time.thread_time()
            done = step()
            steps.append(((time.thread_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000))
            self.under = None
            return done

        def job() -> None:
            while not (self.store_thread.submit(timed_step).result() if on_store else timed_step()):
                if after:
                    after(len(steps))

        runner = threading.Thread(target=job)
        runner.start()
        waits: list[float] = []
        while runner.is_alive() and len(waits) < WAIT_CAPTURES:
            under = self.under
            if under is None or time.perf_counter() - under < ARRIVE_MS / 1000:
                time.sleep(0.0005)
                continue
            arrived = time.perf_counter()
            start, registered, done = self.store_thread.submit(self.capture).result()
            waits.append((start - arrived + done - registered) * 1000)
            self.waited.append((start - arrived + self.locked) * 1000)
            time.sleep(GAP_S)
        runner.join()
        return waits, steps


def capture_waits(store: ArchiveStore, index: FullTextIndex) -> None:
    """What the index adds to a capture that arrives during each kind of the text job's
    work, beside the same work as the job ran it before (every step on the store thread) in
    this run: the fold (store thread, both), FTS5's merges (48 captures' segments each, two
    rounds; the WAL copied every 8 steps), the purge (after 22 versions were forgotten
    each; the WAL copied after each step, then truncated) and the first catch-up after a
    start (store thread, both)."""
    holder = [index]
    waits = Waits(store, holder)
    print(
        f"captures arriving during the text job's work ({ARRIVE_MS:.0f} ms into a step, then "
        f"{GAP_S * 1000:.0f} ms apart, at most {WAIT_CAPTURES} a run; waited: for the store "
        "thread, then for the index file's lock; with the catch-up: the index's whole part of "
        "the capture, ms wall; each step's CPU is its thread's):"
    )

    def report(kind: str, how: str, found) -> None:
        added, steps = found
        waited = waits.waited[-len(added) :] if added else [0.0]
        print(
            f"  {kind:<9}{how:<33}{len(added):>3} captures: waited max {max(waited):5.1f}"
            f" (median {statistics.median(waited):4.1f}); with the catch-up median "
            f"{statistics.median(added or [0]):5.1f}, max {max(added or [0]):5.1f} ms wall;"
            f"{len(steps):>6} steps, longest {max(c for c, _ in steps):5.1f} ms CPU /"
            f"{max(w for _, w in steps):6.1f} ms wall, {sum(c for c, _ in steps) / 1000:.1f} s CPU"
        )

    def every_8th(n: int) -> None:
        if n % 8 == 0:
            index.checkpoint()

    def truncate() -> bool:
        index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return True

    waits.captures(8)
    waits.waited.clear()
    report("fold", "store thread (before = now)", waits.run(lambda: index.fold(1), True))
    for how, on_store, run in (
        ("store thread (before)", True, lambda: old_step(index, fulltext.STEP_PAGES)),
        ("own connection, gives way (now)", False, lambda: index.merge(1)),
    ) * 2:
        waits.captures(48)
        index.fold()
        report("merge", how, waits.run(run, on_store, every_8th))
    for how, on_store, run in (
        (
            "store thread (before)",
            True,
            lambda: old_step(index, -fulltext.MERGE_PAGES) and truncate(),
        ),
        ("own connection, gives way (now)", False, lambda: index.purge(1)),
    ):
        waits.store_thread.submit(delete, store, index, store.ids[-22:]).result()
        report("purge", how, waits.run(run, on_store, lambda _n: index.checkpoint()))
    index.merge()
    for how, old in (("one pass (before)", True), ("RECONCILE_ROWS a step (now)", False)):
        cpu, wall, fresh = timed(lambda: FullTextIndex(index.path))  # a restart
        holder[0] = fresh
        fresh.deferred = True
        fresh.defer_checkpoints()
        report("catch-up", how, waits.run(lambda f=fresh, o=old: catch_up(f, store, o), True))
        print(f"    (opening the index before it: {cpu:.0f} ms CPU / {wall:.0f} ms wall)")
        fresh.close()
    idle = waits.idle
    print(
        f"  (the same captures' catch-up with no job running: median "
        f"{statistics.median(idle):.1f}, max {max(idle):.1f} ms wall over {len(idle)})"
    )
    waits.store_thread.shutdown()


def fold_steps(index: FullTextIndex) -> list[tuple[float, float]]:
    """The text job's fold (``fold_text_index``): steps on the store thread."""
    steps = []
    while True:
        c, w, done = timed(lambda: index.fold(1))
        steps.append((c, w))
        if done:
            return steps


def merge_steps(index: FullTextIndex) -> list[tuple[float, float]]:
    """The text job's merge (``merge_text_index``): steps on the store thread, each step's
    WAL copied into the file off it; each step's CPU and wall ms."""
    steps = []
    while True:
        c, w, done = timed(lambda: index.merge(1))
        steps.append((c, w))
        index.checkpoint()
        if done:
            return steps


def describe(steps: list[tuple[float, float]]) -> str:
    return (
        f"{len(steps)} steps, {sum(c for c, _ in steps):.0f} ms CPU in all, longest step "
        f"{max(c for c, _ in steps):.1f} ms CPU / {max(w for _, w in steps):.1f} ms wall"
    )


def deletion_cost(store: ArchiveStore, index: FullTextIndex) -> None:
    """Forget the real pages the capture step added (FTS5 'delete'), then purge: merge the
    index to one segment in steps, each a pause of the store thread."""
    ids = store.ids[-44:]
    cpu, wall, _ = timed(lambda: index.forget(store, ids))
    steps = []
    while True:
        c, w, done = timed(lambda: index.purge(1))
        steps.append((c, w))
        if done:
            break
        index.checkpoint()  # as the daemon's reclaim job does after each step, in a worker thread
    print(
        f"delete: forgetting {len(ids)} versions {cpu:.1f} ms CPU / {wall:.1f} ms wall; the purge "
        f"{len(steps)} steps, {sum(c for c, _ in steps) / 1000:.1f} s CPU / "
        f"{sum(w for _, w in steps) / 1000:.1f} s wall, longest merge step "
        f"{max([w for _, w in steps[:-1]] or [0]):.0f} ms wall, the last (WAL checkpoint) "
        f"{steps[-1][1]:.0f} ms wall"
    )


def orphan_cost(index: FullTextIndex) -> None:
    """Rows whose text blob is gone (three bench rows marked dead): their body terms are read
    from FTS5 (in the daemon in a worker thread), then they are deleted on the store thread."""
    dead = [n for (n,) in index.db.execute("SELECT n FROM seen ORDER BY n LIMIT 3")]
    rows_before = averages(index.db)[0]
    with index._batch():
        index.db.executemany("UPDATE seen SET live = 0 WHERE n = ?", [(n,) for n in dead])
    c1, w1, found = timed(index.collect_dead)
    c2, w2, deleted = timed(lambda: index.delete_dead(found))
    assert deleted == len(dead) and averages(index.db)[0] == rows_before - len(dead)
    left = index.db.execute(
        f"SELECT count(*) FROM docs_docsize WHERE id IN ({','.join(map(str, dead))})"
    ).fetchone()[0]
    assert left == 0, "dead rows left FTS5"
    print(
        f"dead rows (text blob gone): {len(dead)}; their terms read in {c1 / 1000:.1f} s CPU / "
        f"{w1 / 1000:.1f} s wall (off the store thread), deleted in {c2:.1f} ms CPU / {w2:.1f} ms wall"
    )


def table_bytes(index: FullTextIndex, table: str) -> int:
    """The bytes of an FTS5 table's segments and records."""
    return index.db.execute(f"SELECT sum(length(block)) FROM {table}_data").fetchone()[0] or 0


def build(home: Path, chosen: list[dict], args) -> None:
    """Fill the store and the index, then make the warm lists (as the daemon does after a
    start); both closed after (a restart: the lists come from the file)."""
    store = ArchiveStore.open(home, fsync=False)
    index = FullTextIndex(home / "index" / "fulltext.sqlite3")
    index.deferred = True  # as in the daemon: lists are made after a search, not in it
    cpu, wall, _ = timed(lambda: fill(store, index, chosen, args.versions))
    index.defer_checkpoints()
    index.sync(store)
    size = os.path.getsize(index.path) / 1e6
    tables = {t: table_bytes(index, t) / 1e6 for t in ("docs", "pairs")}
    print(
        f"{args.versions} versions of {len(chosen)} real pages ({args.split} split): "
        f"built in {wall / 1000:.0f} s ({cpu / 1000:.0f} s CPU), index {size:.0f} MB (FTS5 "
        f"data: docs {tables['docs']:.0f} MB, its word pairs {tables['pairs']:.0f} MB)"
    )
    warm(store, index)
    index.checkpoint()
    index.close()
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=100_000)
    parser.add_argument("--split", choices=("held-out", "tune"), default="held-out")
    parser.add_argument(
        "--cache",
        type=Path,
        help="a directory keeping the filled and warmed archive home per split and size: made "
        "once (filling 100k versions costs ~7 min CPU), copied afresh for each run",
    )
    parser.add_argument("--build-only", action="store_true", help="fill (and cache), then stop")
    parser.add_argument("--captures-only", action="store_true", help="no searches, no deletes")
    parser.add_argument("--classes", help="only these query classes, comma-separated")
    parser.add_argument("--step-pages", type=int, help="pages a merge step (default: the index's)")
    args = parser.parse_args()
    if args.step_pages:
        fulltext.STEP_PAGES = args.step_pages
    print(f"load before: {os.getloadavg()[0]:.1f} (1-minute average, 2 cores)")
    chosen = pages(args.split)
    cached = args.cache / f"{args.split}-{args.versions}" if args.cache else None
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        if cached and cached.exists():
            shutil.copytree(cached, home)
            print(
                f"{args.versions} versions ({args.split} split), filled and warmed: from {cached}"
            )
        else:
            build(home, chosen, args)
            if cached:
                shutil.copytree(home, cached)
        if args.build_only:
            return
        store = ArchiveStore.open(home, fsync=False)
        index = FullTextIndex(home / "index" / "fulltext.sqlite3")
        index.deferred = True
        if index.warm_due():  # a cached home planned by an older rule: as the daemon would
            print("the warm lists planned again (the cached home's plan followed another rule):")
            warm(store, index)
            index.checkpoint()
            if cached:  # kept so: the next run starts from this plan
                index.close()
                store.close()
                shutil.rmtree(cached)
                shutil.copytree(home, cached)
                store = ArchiveStore.open(home, fsync=False)
                index = FullTextIndex(home / "index" / "fulltext.sqlite3")
                index.deferred = True
        banded = len(index.champions.bands)
        print(f"{len(index.champions.tiers)} champion lists, {banded} of them with bands")
        index.defer_checkpoints()  # as in the daemon: a capture never copies the WAL
        index.defer_merges()  # nor merges FTS5's segments
        c, w, _ = timed(lambda: index.sync(store))  # in the daemon: at start, before any capture
        print(
            f"the first catch-up after a start (the store's versions reconciled): {c:.0f} ms CPU / {w:.0f} ms wall"
            f"; then FTS5's segments merged: {describe(merge_steps(index))}"
        )
        if args.captures_only:
            capture_cost(store, index)
            capture_waits(store, index)
            return
        classes = queries(index, chosen)
        if args.classes:
            classes = {k: v for k, v in classes.items() if k in args.classes.split(",")}
        worst = first_searches(index, classes)
        print(f"worst p99 wall of a first search {worst:.1f} ms (target <= 50 ms)")
        worst = compare(index, classes)
        print(f"worst p99 wall now {worst:.1f} ms (target <= 50 ms)")
        capture_cost(store, index)
        capture_waits(store, index)
        deletion_cost(store, index)
        orphan_cost(index)
        store.close()
        index.close()
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
