"""Benchmark: ranked full-text search (SQLite FTS5, host/services/fulltext.py) over 100,000 versions,
beside the in-memory inverted index it replaces (engine/archive/search.py ``text_keys``,
an AND of words with no ranking), in the same run. Targets: <= 50 ms per query, <= 20 ms
added to a capture.

Run: ``.venv/bin/python tests/bench/bench_fulltext.py [--versions N] [--texts T]``.

The store is filled through its own API with N version records (2 per document, 1,000
hosts); each version's text is one of T real pages' visible text from the extraction dev
corpus (../shared/data/extraction-dev, the first T files by name) and 1 % are a Japanese
weather text. Queries: frequent, middling and rare words of that corpus, two words, a
phrase, a prefix, an exclusion, CJK. Then real pages (tests/fixtures/pages) are
registered one by one and the index is caught up after each: the time added to a capture.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from selectolax.lexbor import LexborHTMLParser  # noqa: E402

from engine.archive import registry, textquery  # noqa: E402
from engine.archive.model import Capture, RegisterOptions, make_id  # noqa: E402
from engine.archive.search import text_keys, warm_text_index  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402
from host.services.fulltext import FullTextIndex  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "extraction-dev" / "pages"
FIXTURES = ROOT / "tests" / "fixtures" / "pages"
CJK = "東京都の天気予報です。明日の東京は晴れ、気温は二十度まで上がる見込みです。"


def page_texts(count: int) -> list[str]:
    texts = []
    for path in sorted(CORPUS.glob("*.html.gz"))[:count]:
        body = LexborHTMLParser(gzip.decompress(path.read_bytes())).body
        text = " ".join(body.text(separator=" ").split()) if body else ""
        if len(text) > 500:
            texts.append(text[:20_000])
    return texts


def fill(store: ArchiveStore, count: int, texts: list[str]) -> None:
    blobs = [store.put_blob(t.encode()) for t in texts]
    cjk = store.put_blob(CJK.encode())
    orig = store.put_blob(b"<html></html>")
    for start in range(0, count, 5000):
        with store.transaction():
            for n in range(start, min(count, start + 5000)):
                doc, host = n // 2, f"site{(n // 2) % 1000}.example"
                url = f"https://{host}/news/article-{doc}"
                reg_id = make_id(1.7e9 + n * 30, None)
                store.add_version(reg_id, {
                    "url": url, "final_url": url, "key": url, "host": host, "ts": 1.7e9 + n * 30,
                    "content_type": "text/html", "charset": "utf-8", "last_modified": None,
                    "title": f"Article {doc} on {host}", "orig": orig, "rewritten": orig,
                    "size": 40_000, "source": "extension", "prev": None, "prev_similarity": None,
                })  # fmt: skip
                text = cjk if n % 100 == 7 else blobs[(n * 7919) % len(blobs)]
                store.update("extracts", reg_id, {"title": "", "keywords": [], "text": text})


def queries(texts: list[str]) -> list[tuple[str, str]]:
    words = Counter(w for t in texts for w in textquery._tokens(t) if len(w) > 4 and w.isalpha())
    ranked = [w for w, _ in words.most_common()]
    common, middle, rare = ranked[0], ranked[len(ranked) // 20], ranked[len(ranked) // 2]
    first = texts[0].split()
    phrase = next(
        f"{a} {b}" for a, b in zip(first, first[1:], strict=False) if a.isalpha() and b.isalpha()
    )
    return [
        ("frequent word", common),
        ("middling word", middle),
        ("rare word", rare),
        ("two words", f"{common} {middle}"),
        ("phrase", f'"{phrase}"'),
        ("prefix", f"{middle[:4]}*"),
        ("exclusion", f"{common} -{middle}"),
        ("CJK", "天気"),
    ]


def timed(fn, repeat: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def capture_cost(store: ArchiveStore, index: FullTextIndex) -> None:
    """Register real pages one by one; time the registration and the index catch-up."""
    register_ms, index_ms = [], []
    for n, path in enumerate(sorted(FIXTURES.glob("*.html.gz"))):
        body = gzip.decompress(path.read_bytes())
        started = time.perf_counter()
        registry.register(store, Capture(f"https://fixture.example/{n}", body), RegisterOptions())
        middle = time.perf_counter()
        index.sync(store)
        register_ms.append((middle - started) * 1000)
        index_ms.append((time.perf_counter() - middle) * 1000)
    print(
        f"capture: registration median {statistics.median(register_ms):.1f} ms; "
        f"full-text index added median {statistics.median(index_ms):.1f} ms, "
        f"max {max(index_ms):.1f} ms over {len(index_ms)} pages (target <= 20 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=100_000)
    parser.add_argument("--texts", type=int, default=300)
    args = parser.parse_args()
    texts = page_texts(args.texts)
    with tempfile.TemporaryDirectory() as tmp:
        store = ArchiveStore.open(Path(tmp) / "home", fsync=False)
        fill(store, args.versions, texts)
        print(f"{args.versions} versions, {len(texts)} distinct real texts (+1 % CJK)")
        started = time.perf_counter()
        index = FullTextIndex(Path(tmp) / "home" / "index" / "fulltext.sqlite3")
        index.sync(store)
        fts_build = time.perf_counter() - started
        started = time.perf_counter()
        while not warm_text_index(store, 5000):
            pass
        memory_build = time.perf_counter() - started
        print(
            f"build: FTS5 {fts_build:.1f} s (on disk, once) | in-memory {memory_build:.1f} s (every start)"
        )
        print(f"{'query':<16}{'text':<28}{'FTS5 ms':>9}{'docs':>8}{'memory ms':>11}{'docs':>8}")
        worst = 0.0
        for name, text in queries(texts):
            parsed = textquery.parse(text)
            fts_ms, found = timed(lambda p=parsed: index.search(p))
            worst = max(worst, fts_ms)
            plain = all(
                not t.prefix and len(t.tokens) == 1 and not t.negative for t in parsed.terms
            )
            if plain:
                mem_ms, keys = timed(lambda t=text: text_keys(store, t))
                memory = f"{mem_ms:>11.1f}{len(keys):>8}"
            else:
                memory = f"{'n/a':>11}{'':>8}"  # no phrases, prefixes or exclusions there
            print(f"{name:<16}{text[:27]:<28}{fts_ms:>9.1f}{len(found):>8}{memory}")
        print(f"worst FTS5 query {worst:.1f} ms (target <= 50 ms)")
        capture_cost(store, index)
        store.close()


if __name__ == "__main__":
    main()
