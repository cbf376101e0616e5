"""What ``archive crawl | schedule | dust`` print for people: one line a page, rule or
schedule, times in the user's zone (``--json`` prints the protocol's result unchanged, in UTC).

>>> print(render_crawl({"registered": [{"id": "20261126000000000001", "url": "http://a.test/"}],
...     "skipped": [], "failed": [{"url": "http://a.test/x", "error": {"code": "fetch_failed",
...     "message": "HTTP 404"}}], "count": 1}))
registered 1 page, skipped 0 (similar to their last version), failed 1
  20261126000000000001  http://a.test/
  failed  http://a.test/x: HTTP 404
"""

from __future__ import annotations

from host.cli.shown import local_time


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_crawl(report: dict) -> str:
    """The crawl's counts, then each page registered, skipped (as the last version) or failed."""
    lines = [
        f"registered {_plural(report['count'], 'page')}, skipped {len(report['skipped'])}"
        f" (similar to their last version), failed {len(report['failed'])}"
    ]
    lines += [f"  {r['id']}  {r['url']}" for r in report["registered"]]
    lines += [f"  skipped {r['url']} (as its last version {r['id']})" for r in report["skipped"]]
    lines += [f"  failed  {f['url']}: {f['error']['message']}" for f in report["failed"]]
    return "\n".join(lines)


def _when(ts: float | None, never: str = "never") -> str:
    return local_time(ts, never)


def schedule_line(row: dict) -> str:
    """One schedule: its period, next run, last run (and what it gave), URL.

    >>> line = schedule_line({"url": "http://a.test/", "every": "daily",
    ...     "only_if_different": 0.9, "created": 0.0, "last_run": None, "next_run": 86400.0})
    >>> line.replace(local_time(86400.0), "TIME")
    'daily   next TIME  last never  http://a.test/  (skipped when >= 0.9 similar)'
    """
    last = _when(row["last_run"])
    if row.get("last_result"):
        last += f" ({row['last_result']})"
    only = row.get("only_if_different")
    tail = f"  (skipped when >= {only} similar)" if only is not None else ""
    return f"{row['every']:<7} next {_when(row['next_run'])}  last {last}  {row['url']}{tail}"


def render_schedule_add(row: dict) -> str:
    return f"scheduled {row['url']} {row['every']}, first run {_when(row['next_run'])}"


def render_schedule_remove(result: dict) -> str:
    return f"removed the schedule of {result['url']}"


def render_schedule_list(rows: list) -> str:
    return "\n".join(schedule_line(r) for r in rows) or "no schedules"


def render_schedule_run(done: list) -> str:
    """Each due URL run now: its new version, skipped (similar to the last), or the error's code.

    >>> print(render_schedule_run([{"url": "http://a.test/", "id": "20261126000000000001",
    ...     "skipped": False}, {"url": "http://b.test/", "error": "fetch_failed"}]))
    registered 20261126000000000001  http://a.test/
    failed (fetch_failed)  http://b.test/
    """
    lines = []
    for r in done:
        if r.get("error"):
            lines.append(f"failed ({r['error']})  {r['url']}")
        elif r.get("skipped"):
            lines.append(f"skipped (similar to its last version)  {r['url']}")
        else:
            lines.append(f"registered {r['id']}  {r['url']}")
    return "\n".join(lines) or "nothing was due"


def render_dust(result: dict) -> str:
    """What was learned and what it re-keyed, then each rule with its evidence.

    >>> print(render_dust({"rules": [{"site": "a.test", "part": "path", "find": "story?id=",
    ...     "replace": "story_", "support": 5, "checked": 4, "valid": 4}], "params": [{"site":
    ...     "a.test", "name": "sort", "value": "ascending", "path": "", "pairs": 3}], "urls": 9,
    ...     "compared_pairs": 4, "rekeyed": 2, "documents": 6}))
    learned 1 DUST rule and 1 parameter rule from 9 URLs (4 page pairs compared); 2 versions re-keyed, 6 documents
      a.test path: 'story?id=' -> 'story_'  (5 URL pairs, 4 of 4 compared the same page)
      a.test: drop sort=ascending on the whole site  (3 pairs)
    """
    lines = [
        f"learned {_plural(len(result['rules']), 'DUST rule')} and"
        f" {_plural(len(result['params']), 'parameter rule')} from {result['urls']} URLs"
        f" ({result['compared_pairs']} page pairs compared);"
        f" {_plural(result['rekeyed'], 'version')} re-keyed, {result['documents']} documents"
    ]
    for r in result["rules"]:
        lines.append(
            f"  {r['site']} {r['part']}: {r['find']!r} -> {r['replace']!r}  ({r['support']} URL"
            f" pairs, {r['valid']} of {r['checked']} compared the same page)"
        )
    for p in result["params"]:
        what = f"{p['name']} (any value)" if p["value"] is None else f"{p['name']}={p['value']}"
        where = f"under {p['path']}" if p["path"] else "on the whole site"
        lines.append(f"  {p['site']}: drop {what} {where}  ({p['pairs']} pairs)")
    return "\n".join(lines)
