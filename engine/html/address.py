"""Where a page says it lives: the address it names for itself (rel=canonical, RFC 6596;
else Open Graph's og:url), as a path, so that two pages naming different paths are two
documents whatever their words.

>>> declared_address('<link rel="canonical" href="https://www.e.org/a/b/?x=1">')
'/a/b'
"""

from __future__ import annotations

from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from engine.html.extract import decode
from engine.html.site_name import WAYBACK

# A Web Archive copy names the archived page's address behind its own prefix.


def declared_address(page: LexborHTMLParser | bytes | str) -> str:
    """The path of the address a page names for itself: its <link rel=canonical> (RFC 6596),
    else its og:url; "" when it names none. A Web Archive copy's prefix, the host, the query,
    the fragment and a trailing slash are left out, so only another document differs.

    >>> declared_address('<link rel="canonical" href="https://www.e.org/a/b/?x=1">')
    '/a/b'
    >>> declared_address('<meta property="og:url" content="https://web.archive.org/web/2019/https://e.org/a">')
    '/a'
    """
    tree = page if isinstance(page, LexborHTMLParser) else LexborHTMLParser(decode(page))
    for node in tree.css("link[rel][href]"):
        if "canonical" in str(node.attributes.get("rel") or "").lower().split():
            return address_path(str(node.attributes.get("href") or ""))
    meta = tree.css_first('meta[property="og:url"][content]')
    return address_path(str(meta.attributes.get("content") or "")) if meta else ""


def address_path(url: str) -> str:
    """The path of an address, as :func:`declared_address` compares it ("/" for a site's root).

    >>> address_path("https://web.archive.org/web/2019id_/http://www.e.org/a/"), address_path("//e.org")
    ('/a', '/')
    """
    url = WAYBACK.sub("", url.strip())
    if not url.startswith("/") and "://" not in url[:12]:
        return ""  # none, or relative to an address not known here
    return urlsplit(url).path.rstrip("/") or "/"
