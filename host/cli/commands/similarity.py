"""``pagekeeper similarity A.html B.html``: structural and content similarity of two saved pages.

Prints ``{"similarity": x, "content_similarity": y}``: ``similarity`` compares the
two fingerprints (engine/html/fingerprint.py: the longest-common-substring
similarity of two tag fingerprints, in linear time); ``content_similarity`` compares word shingles of the main text found by
the extractor (or of all visible text when the extractor finds no main text).
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from engine.html.extract import decode, extract
from engine.html.fingerprint import fingerprint
from engine.html.similarity import content_similarity, similarity
from host.cli.command import command
from host.cli.files import read_input

# A page above this is refused (the archive's own cap is larger; this command holds two in memory).
MAX_PAGE_BYTES = 50 * 1024 * 1024
# Text that carries no content of the page.
_INVISIBLE = "script, style, noscript, template"


def register(sub, common) -> None:
    """Add ``similarity A B``."""
    parser = command(
        sub, "similarity", run, common, help="structural and content similarity of two HTML files"
    )
    parser.add_argument("a", metavar="A.html", help="first page (HTML file, .gz accepted)")
    parser.add_argument("b", metavar="B.html", help="second page (HTML file, .gz accepted)")
    parser.set_defaults(render=render)


def run(args, ctx) -> dict:
    """Fingerprint and extract both pages, then compare.

    >>> # run(Namespace(a="a.html", b="b.html"), ctx) -> {"similarity": 0.93, "content_similarity": 0.88}
    """
    text_a, text_b = read_page(args.a), read_page(args.b)
    return {
        "similarity": round(similarity(fingerprint(text_a), fingerprint(text_b)), 4),
        "content_similarity": round(content_similarity(main_text(text_a), main_text(text_b)), 4),
    }


def render(result: dict) -> str:
    return f"similarity {result['similarity']:.4f}  content {result['content_similarity']:.4f}"


def read_page(name: str) -> str:
    """The decoded text of an HTML file (``.gz`` accepted); a file that cannot be read or is
    too large is answered as every command answers it (host/cli/files.py), binary data is a
    ``decode_error``."""
    return decode(read_input(name, MAX_PAGE_BYTES, gunzip=True))


def main_text(html: str) -> str:
    """The extractor's main text, else every visible text of the page."""
    body = extract(html).body
    if body.strip():
        return body
    tree = LexborHTMLParser(html)
    for node in tree.css(_INVISIBLE):
        node.decompose()
    root = tree.body or tree.root
    return root.text(separator=" ") if root is not None else ""
