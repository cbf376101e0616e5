"""Real saved pages (tests/fixtures/pages/) with the URLs they were saved from."""

from __future__ import annotations

import gzip
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"

# Four pages of one host (web.archive.org), a latin-1 page, a plain UTF-8 page.
PAGES = {
    "ordnung": (
        "abee3ef66fe84172",
        "https://web.archive.org/web/20160526181643/http://ordnungsrausch.com/orga-life-das-leben-organisieren/",
    ),
    "peptalks": (
        "67ec440a61d402a8",
        "https://web.archive.org/web/20131110121040/http://www.peptalks.de/haben-sich-mozarts-eltern-wegen-seiner-schulnoten-gesorgt/",
    ),
    "modabot": (
        "ee6722c4b841bcc3",
        "https://web.archive.org/web/20190717140047/http://www.modabot.de/paris-haute-couture-ss14-serkan-cura",
    ),
    "time4talks": (
        "2cf4b812a7cd7f64",
        "https://web.archive.org/web/20140226054445/http://www.time4talks.com/2013/08/07/weitere-digitalisierung-der-schweizer-kinos/",
    ),
    "latin1": ("f4e6236c495dbca0", "http://love-hina.ch/news/0409.html"),
    "erfurt": (  # ISO-8859-1 with umlauts as raw bytes
        "228917f19c2a4451",
        "http://www.cdu-fraktion-erfurt.de/inhalte/aktuelles/entwicklung-der-waldorfschule-ermoeglicht/index.html",
    ),
    "partei": (
        "b18b2a048ce0dd08",
        "https://die-partei.net/luebeck/2012/05/31/das-ministerium-fur-club-kultur-informiert/",
    ),
}


def page(name: str) -> tuple[str, bytes]:
    """(url, original bytes) of a fixture page."""
    file, url = PAGES[name]
    return url, gzip.decompress((FIXTURES / f"{file}.html.gz").read_bytes())
