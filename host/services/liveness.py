"""``check`` in the daemon: is a stored version's content still at its live URL?

When the extension sends the page its tab shows (``page``: the rendered HTML, which
holds what scripts and the user's session put there), that page is judged and nothing
is fetched. Otherwise (sweeps, ``pagekeeper check``) fetch the live URL
(host/services/fetch.py, on the event loop). Then let the engine
decide (engine/liveness.py ``judge`` with the version's stored keywords, ``unreachable``
when the server did not answer, with the failure's kind (dns, refused, timeout…, never
the raw exception text), ``cannot_fetch`` when the address cannot be fetched at all (also
unreachable: no server was asked), or ``from_status`` for a non-200 answer: 5xx is unreachable,
404 gone; over the size cap ``too_large``). The verdict is stored with its time and its
``source`` ("tab" or "fetch"; the tab's HTML itself is never stored) in the store's ``liveness`` table (the viewer shows it).

>>> check_version.__name__
'check_version'
"""

from __future__ import annotations

import time

from engine.archive import alerts, provider
from engine.archive.addresses import address_of
from engine.errors import FetchError, InvalidURL, TooLarge
from engine.liveness import (
    UNJUDGED,
    LivenessOptions,
    Verdict,
    cannot_fetch,
    from_status,
    judge,
    too_large,
    unreachable,
)
from host.services.fetch import afetch

# Other documents of the site whose stored visible text tells the site's template apart.
SITE_PAGES = 8


def _stored(app, ref: str, options: LivenessOptions) -> tuple[str, str, dict, tuple]:

    # the newest version of a URL; a revisit ("seen again") is checked as its version
    reg_id = app.store.content_id(provider.keywords(app.store, ref)["id"])
    doc = app.store.version(reg_id)
    row = app.store.row("extracts", reg_id) or {}
    extract = {**row, "body": _main_text(app.store, row)}
    extract["visible"] = provider.visible_text_of(app.store, reg_id)
    extract["address"] = address_of(app.store, reg_id)
    extract["url"] = doc["url"]  # the site's name in its title is told by its host
    plan = app.site_templates.plan(_site_digests(app.store, doc), options.phrase_words)
    texts = {d: _text(app.store, d) for d in plan.missing} if plan.ready is None else {}
    return reg_id, doc["url"], extract, (plan, texts)


def sweep_order(entries) -> list[str]:
    """The IDs a sweep checks: one host after another (archive order within a host), so
    consecutive checks share their site's template in ``App.site_templates``.

    >>> from types import SimpleNamespace as Doc
    >>> sweep_order([Doc(id="1", host="b.org"), Doc(id="2", host="a.org"), Doc(id="3", host="b.org")])
    ['2', '1', '3']
    """
    return [doc.id for doc in sorted(entries, key=lambda doc: doc.host)]


def _site_digests(store, doc: dict) -> list[str]:
    """The content hashes of the stored visible texts of the newest versions of up to
    ``SITE_PAGES`` other documents on the version's host (a version without one gives its
    main text; one with neither gives nothing)."""
    digests, seen = [], {doc["key"]}
    for other in reversed(store.ids_of_host(doc["host"])):
        key = store.version(other)["key"]
        if key not in seen:
            seen.add(key)
            row = store.row("extracts", other) or {}
            digest = row.get("visible_text") or row.get("text")
            if digest:
                digests.append(str(digest))
        if len(seen) > SITE_PAGES:
            break
    return digests


def _text(store, digest: str) -> str:
    """A stored text by its content hash."""
    return store.get_blob(digest).decode("utf-8", "replace")


def _main_text(store, row: dict) -> str:
    """The stored main text: the extracts' text blob is the title line, then the body."""
    if not row.get("text"):
        return ""
    return store.get_blob(row["text"]).decode("utf-8").partition("\n")[2]


def _judge(extract: dict, got: tuple, options: LivenessOptions, site: tuple, cache) -> dict:
    status, body, failure = got
    plan, texts = site
    extract = {**extract, "site_template": cache.template(plan, texts, options.phrase_words)}
    return _verdict(extract, status, body, failure, options).to_dict()


def _verdict(extract: dict, status, body, failure, options: LivenessOptions) -> Verdict:
    if isinstance(failure, FetchError):
        return unreachable(str(failure.details.get("kind", "network")))
    if isinstance(failure, TooLarge):  # not read, so not judged: never "gone"
        limit = failure.details.get("limit")
        return too_large(limit if isinstance(limit, int) else None)
    if failure is not None:  # the address cannot be fetched at all: no evidence of anything
        return cannot_fetch()
    if status != 200:
        return from_status(status)
    return judge(extract, body or b"", options)


def _save(app, reg_id: str, url: str, verdict: dict) -> dict:

    record = {**verdict, "id": reg_id, "url": url, "checked_at": time.time()}
    with app.store.transaction():
        before = dict(app.store.row("liveness", reg_id) or {})  # the update edits it in place
        record["judged"] = _last_judged(record, before)
        app.store.update("liveness", reg_id, record)
        alerts.after_check(app.store, reg_id, before, record)  # became changed/gone: alert
    return record


def _last_judged(record: dict, before: dict) -> str | None:
    """The newest state judged on content: an unreachable or too-large check keeps the one
    before it."""
    if record["state"] not in UNJUDGED:
        return record["state"]
    return before.get("judged", before.get("state"))


async def check_version(
    app, ref: str, options: LivenessOptions | None = None, page: str | None = None
) -> dict:
    """Judge, store and return ``{"state","match","present",...,"id","url","source"}``:
    ``page`` (the tab's rendered HTML) when given, else the live URL fetched now."""
    options = options or LivenessOptions()
    reg_id, url, extract, site = await app.run(_stored, app, ref, options)
    got = (200, page, None) if page is not None else await _fetched(url)
    # Parsing the live page needs no store: the analysis thread, so other requests go on.
    verdict = await app.analyse(_judge, extract, got, options, site, app.site_templates)
    verdict["source"] = "fetch" if page is None else "tab"
    return await app.run(_save, app, reg_id, url, verdict)


async def _fetched(url: str) -> tuple:
    """(status, body, failure) of fetching ``url``: a failure is kept, not raised."""
    try:
        got = await afetch(url)
    except (FetchError, InvalidURL, TooLarge) as exc:
        return None, None, exc
    return got.status, got.body, None
