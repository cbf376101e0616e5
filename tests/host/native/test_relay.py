"""The relay's paging (host/native/relay.py): every frame it writes fits the browser's limit, whatever
the text costs per character, and the pages join back into the exact reply."""

from __future__ import annotations

import io
import json
import struct
import sys

import pytest

from host.native.relay import Relay, char_cost, split_pages
from host.protocol.framing import encode

TEXTS = {
    "emoji": "😀🎉👍🏽🇩🇪" * 3000,
    "astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 𓀀𓁐 " * 1500,
    "cjk": "漢字かなカナ한국어" * 2000,
    "escapes": '"\\\n\t\x01\x1f\u2028' * 2000,
    "ascii": "plain text, nothing to escape " * 800,
    "mixed": 'a"😀é\\𝔘\x00漢 ' * 2500,
}


def reply_text(text: str) -> str:
    return json.dumps({"id": 9, "ok": True, "result": {"html": text}}, ensure_ascii=False)


@pytest.mark.parametrize("limit", [64, 4096, 65536])
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_every_page_frame_fits_the_limit_and_the_pages_join_back(name, limit):
    text = reply_text(TEXTS[name])
    pages = split_pages(9, text, limit)
    sizes = [len(encode(page)) for page in pages]
    assert max(sizes) <= limit, (name, limit, max(sizes))
    assert "".join(p["chunk"] for p in pages) == text
    assert [p["page"] for p in pages] == list(range(len(pages)))
    assert all(p["pages"] == len(pages) and p["id"] == 9 for p in pages)
    # filled, not halved: every page but the last leaves less room than one character needs
    # beyond the widest page numbers' slack
    slack = 6 + 2 * len(str(len(text) + 1))
    assert all(size > limit - slack for size in sizes[:-1]), (name, limit, min(sizes[:-1] or [0]))


def test_character_costs_are_what_the_frame_spends():
    for char in ("a", "é", "✓", "😀", "𝔘", '"', "\\", "\n", "\x01", "\u2028"):
        framed = len(encode({"c": char})) - len(encode({"c": ""}))
        assert char_cost(char) == framed, char


def test_a_limit_with_no_room_for_text_is_an_error():
    with pytest.raises(ValueError, match="no room"):
        split_pages(9, "x" * 100, 40)


def frames(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack("=I", data[pos : pos + 4])
        out.append(data[pos : pos + 4 + length])
        pos += 4 + length
    return out


@pytest.mark.parametrize("name", ["emoji", "astral", "mixed"])
def test_the_relay_writes_no_frame_over_its_limit(tmp_path, name):
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    text = reply_text(TEXTS[name])
    relay.write_reply_text(9, text)
    written = frames(out.getvalue())
    assert len(written) > 1 and max(len(f) for f in written) <= 4096
    pages = [json.loads(f[4:]) for f in written]
    assert json.loads("".join(p["chunk"] for p in pages)) == json.loads(text)
    edge = io.BytesIO()  # a body of 4,093 bytes is 4,097 with its header: paged
    Relay(tmp_path, edge, cap=1 << 20, reply_limit=4096).write_reply_text(2, "x" * 4093)
    assert max(len(f) for f in frames(edge.getvalue())) <= 4096
    small = io.BytesIO()
    Relay(tmp_path, small, cap=1 << 20, reply_limit=4096).write_reply_text(1, '{"id":1}')
    assert small.getvalue() == len(b'{"id":1}').to_bytes(4, sys.byteorder) + b'{"id":1}'
