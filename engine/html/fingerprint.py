"""Structure-and-content fingerprints of HTML pages (the multi-version server method: multi-version server, fig. 7-8).

The parsed tree is walked in document order. Every start tag and every end tag
becomes its short code (``<`` plus one or two characters, see :data:`TAG_CODES`;
an end tag is its start code in lower case), and every text node becomes its
first two non-space characters in lower case plus one length character
``chr(64 + len % 58)``. The fingerprint of a page is a few percent of its size
and keeps all of its structure, so two fingerprints can be compared by
:func:`engine.html.similarity.similarity`.

>>> fingerprint("<html><head><title>Hello!</title></head><body></body></html>")
'<H<E<NheF<n<e<B<b<h'
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode

from engine.html.parse import decode_html

# One code per tag; the start tag writes "<" + code, the end tag "<" + code.lower().
# Codes are upper case, so start and end tags never share a code. The commonest
# tags get one character (fingerprints stay short); the rest get two.
TAG_CODES: dict[str, str] = {
    "html": "H",
    "head": "E",
    "body": "B",
    "title": "N",
    "div": "D",
    "span": "S",
    "a": "A",
    "p": "P",
    "li": "L",
    "ul": "U",
    "ol": "O",
    "img": "I",
    "br": "R",
    "table": "T",
    "tr": "W",
    "td": "C",
    "script": "J",
    "style": "Y",
    "link": "K",
    "meta": "M",
    "form": "F",
    "input": "V",
    "b": "G",
    "i": "Z",
    "button": "Q",
}
TAG_CODES.update(
    {f"h{level}": f"H{level}" for level in range(1, 7)}
    | {
        "th": "TH",
        "thead": "TE",
        "tbody": "TB",
        "tfoot": "TF",
        "caption": "CA",
        "col": "CL",
        "colgroup": "CG",
        "nav": "NV",
        "header": "HD",
        "footer": "FT",
        "main": "MN",
        "section": "SC",
        "article": "AR",
        "aside": "AS",
        "iframe": "IF",
        "noscript": "NS",
        "svg": "SV",
        "path": "PA",
        "g": "GG",
        "use": "US",
        "rect": "RC",
        "circle": "CC",
        "polygon": "PO",
        "symbol": "SY",
        "defs": "DS",
        "select": "SL",
        "option": "OP",
        "optgroup": "OG",
        "textarea": "TA",
        "label": "LB",
        "fieldset": "FS",
        "legend": "LG",
        "strong": "ST",
        "em": "EM",
        "small": "SM",
        "sup": "SP",
        "sub": "SB",
        "u": "UU",
        "s": "SS",
        "q": "QQ",
        "blockquote": "BQ",
        "pre": "PR",
        "code": "CD",
        "kbd": "KB",
        "var": "VR",
        "samp": "SA",
        "cite": "CI",
        "abbr": "AB",
        "dfn": "DF",
        "mark": "MK",
        "ins": "IN",
        "del": "DL",
        "dl": "DJ",
        "dt": "DT",
        "dd": "DD",
        "hr": "HR",
        "figure": "FG",
        "figcaption": "FC",
        "picture": "PI",
        "source": "SO",
        "video": "VI",
        "audio": "AU",
        "track": "TK",
        "canvas": "CV",
        "object": "OB",
        "embed": "EB",
        "param": "PM",
        "map": "MP",
        "area": "AE",
        "time": "TM",
        "address": "AD",
        "details": "DE",
        "summary": "SU",
        "dialog": "DG",
        "template": "TP",
        "center": "CE",
        "font": "FN",
        "nobr": "NB",
        "wbr": "WB",
        "base": "BA",
        "frame": "FR",
        "frameset": "FE",
        "data": "DA",
        "output": "OU",
        "progress": "PG",
        "meter": "ME",
        "datalist": "DI",
        "bdi": "BI",
        "bdo": "BO",
    }
)
# Elements that never have an end tag (HTML §13.1.2, void elements).
VOID_TAGS = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "keygen",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
# Unknown and custom elements share 26 codes "X" + letter, chosen by a stable hash.
_UNKNOWN_PREFIX = "X"
# A text signature never contains the delimiter: "<" is written as "{".
_DELIMITER_FREE = str.maketrans({"<": "{"})


@dataclass(frozen=True)
class FingerprintOptions:
    """Knobs of the fingerprint; the defaults are the multi-version server method's (fig. 8).

    ``length_modulus`` and ``length_offset`` map a text's length to one
    readable character ``chr(offset + len % modulus)`` ("@" … "y").
    """

    text_chars: int = 2
    length_modulus: int = 58
    length_offset: int = 64
    include_script_text: bool = True


DEFAULT_FINGERPRINT = FingerprintOptions()


def tag_code(tag: str) -> str:
    """The code of a tag name (upper case; unknown tags hash to ``X?``).

    >>> tag_code("div"), tag_code("h2"), tag_code("my-widget")[0]
    ('D', 'H2', 'X')
    """
    code = TAG_CODES.get(tag)
    return code if code is not None else _unknown_code(tag)


@lru_cache(maxsize=1024)
def _unknown_code(tag: str) -> str:
    return _UNKNOWN_PREFIX + chr(65 + zlib.crc32(tag.encode()) % 26)


def text_signature(text: str, options: FingerprintOptions = DEFAULT_FINGERPRINT) -> str:
    """First non-space characters (lower case) plus a length character; "" for blank text.

    >>> text_signature("  Hello! ")
    'heF'
    """
    words = text.split()
    if not words:
        return ""
    squeezed = "".join(words)
    length = len(text.strip())
    head = squeezed[: options.text_chars].lower().translate(_DELIMITER_FREE)
    return head + chr(options.length_offset + length % options.length_modulus)


def fingerprint(html: bytes | str, options: FingerprintOptions | None = None) -> str:
    """The fingerprint of a page given as bytes (charset sniffed) or text.

    >>> fingerprint(b"<p>Hi there</p>")
    '<H<E<e<B<PhiH<p<b<h'
    """
    text = html if isinstance(html, str) else decode_html(html).text
    return fingerprint_tree(LexborHTMLParser(text), options)


def fingerprint_tree(tree: LexborHTMLParser, options: FingerprintOptions | None = None) -> str:
    """The fingerprint of an already parsed page (registration parses once).

    >>> fingerprint_tree(LexborHTMLParser("<b>x</b>"))
    '<H<E<e<B<GxA<g<b<h'
    """
    root = tree.root
    if root is None:
        return ""
    parts: list[str] = []
    _walk(root, parts, options or DEFAULT_FINGERPRINT)
    return "".join(parts)


def _walk(root: LexborNode, parts: list[str], options: FingerprintOptions) -> None:
    """Depth-first, iterative (pages can nest deeper than Python's recursion limit)."""
    emit = parts.append
    open_elements: list[str] = []  # end codes of the ancestors of ``node``
    node: LexborNode | None = root
    while node is not None:
        child = _enter(node, emit, options)
        if child is not None:
            assert node.tag is not None  # only an element has children to enter
            open_elements.append(_end_code(node.tag))
            node = child
            continue
        _leave(node, emit)
        while node.next is None and open_elements:
            parent = node.parent
            assert parent is not None  # open_elements holds the end codes of its ancestors
            node = parent
            emit(open_elements.pop())
        node = node.next if open_elements else None


def _enter(node: LexborNode, emit, options: FingerprintOptions) -> LexborNode | None:
    """Write the start code or text signature of ``node``; its first child if it has one."""
    tag = node.tag
    if tag == "-text":
        parent = node.parent
        if options.include_script_text or parent is None or parent.tag not in ("script", "style"):
            emit(text_signature(node.text_content or "", options))
        return None
    if tag is None or tag.startswith(("-", "!")):
        return None  # comments, doctype
    emit("<" + tag_code(tag))
    return node.child


def _leave(node: LexborNode, emit) -> None:
    """Write the end code of a childless element (void elements have none)."""
    tag = node.tag
    if tag and not tag.startswith(("-", "!")) and tag not in VOID_TAGS:
        emit(_end_code(tag))


def _end_code(tag: str) -> str:
    return "<" + tag_code(tag).lower()
