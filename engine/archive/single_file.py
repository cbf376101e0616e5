"""One version as ONE self-contained HTML file, for sharing: every stored resource inlined.

The rewritten copy's resource paths (``/v/<id>/r/<n>``) become ``data:`` URIs of the
resource's bytes; a stylesheet's own ``url()``/``@import`` are inlined the same way
(recursively, each stylesheet at most once on a path), a captured frame becomes a ``data:``
document with its resources inlined; a resource that was not captured becomes
``about:invalid`` (nothing is fetched when the file is opened). Links to the archive's gc
address go back to the original URL, so the file works on any machine.

>>> import tempfile, pathlib
>>> from engine.archive.model import Capture
>>> from engine.archive.registry import register
>>> from engine.archive.store import ArchiveStore
>>> s = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> png = {"url": "https://e.com/i.png", "type": "image/png", "size": 3, "status": "pending",
...        "data": b"PNG"}
>>> reg = register(s, Capture("https://e.com/", '<img src="i.png"><a href="b">b</a>', resources=[png]))
>>> html = single_file(s, reg.id).decode()
>>> 'src="data:image/png;base64,UE5H"' in html, 'href="https://e.com/b"' in html; s.close()
(True, True)
"""

from __future__ import annotations

import base64
import re
from urllib.parse import unquote

from engine.archive.provider import get, resolve_id, served_resource
from engine.archive.resources import ResourceMap, is_css, is_html, manifest_of
from engine.archive.store import ArchiveStore
from engine.html.rewrite import absolute, css_rewrite

GC_LINK = re.compile(
    r"""https?://[^"'\s<>]*/gc\?url=([^&"'\s<>]+)(?:&(?:amp;)?id=[0-9]+)?(?:&(?:amp;)?sig=[0-9a-f]+)?"""
)
MISSING = "about:invalid"
MAX_DEPTH = 8  # @import / frame nesting inlined at most this deep


class _Inliner:
    def __init__(self, store: ArchiveStore, reg_id: str) -> None:
        self.store, self.reg_id = store, reg_id
        self.manifest = manifest_of(store, store.version(reg_id))
        self.paths = re.compile(rf"/v/{reg_id}/r/([0-9a-z]+)(#[^\"'\s)<>]*)?")

    def text(self, text: str, depth: int) -> str:
        """Every resource path in ``text`` replaced by its data: URI."""
        return self.paths.sub(lambda m: self.uri(m.group(1), depth) + (m.group(2) or ""), text)

    def uri(self, number: str, depth: int) -> str:
        entry = (
            self.manifest[int(number)]
            if number.isdigit() and int(number) < len(self.manifest)
            else None
        )
        if entry is None or not entry.get("blob") or depth > MAX_DEPTH:
            return MISSING
        data = self.store.get_blob(entry["blob"])
        kind = entry.get("type") or "application/octet-stream"
        if is_css(kind):
            data = self.css(data, entry["url"], depth).encode("utf-8", "surrogateescape")
        elif is_html(kind):
            data = self.frame(int(number), depth)
        return f"data:{kind.split(';')[0]};base64,{base64.b64encode(data).decode('ascii')}"

    def css(self, data: bytes, base: str, depth: int) -> str:
        resmap = ResourceMap(self.reg_id, self.manifest, grow=False)
        text = data.decode("utf-8", "surrogateescape")

        def fix(url: str) -> str | None:
            resolved = absolute(url, base)
            return self.text(resmap.path(resolved), depth + 1) if resolved else None

        return css_rewrite(text, fix)

    def frame(self, number: int, depth: int) -> bytes:
        html = served_resource(self.store, self.reg_id, number).body.decode("utf-8", "replace")
        return finish(self.text(html, depth + 1)).encode("utf-8")


def finish(html: str) -> str:
    """gc links back to their original URL."""
    return GC_LINK.sub(lambda m: unquote(m.group(1)), html)


def single_file(store: ArchiveStore, ref: str) -> bytes:
    """The version ``ref`` as one self-contained HTML file (UTF-8)."""
    reg_id = resolve_id(store, ref)
    html = get(store, reg_id).body.decode("utf-8", "replace")
    return finish(_Inliner(store, reg_id).text(html, 0)).encode("utf-8")
