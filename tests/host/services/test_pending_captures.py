"""A capture in transfer, on real files: each part's slot and index, its CRC-32, what a
resume asks for again, and the idle sweep (the handler's end-to-end tests are in
tests/host/handlers/test_capture.py)."""

from __future__ import annotations

import os
import zlib

import pytest

from engine.archive.resources import CaptureLimits
from engine.errors import Conflict, InvalidInput, NotFound
from host.services import pending_captures
from host.services.pending_captures import PendingCapture, pending_root, sweep, url_digest

URL = "https://e.com/a.css"


def capture(home, size: int, part_bytes: int = 4) -> PendingCapture:
    plan = [{"url": URL, "size": size, "status": "pending"}]
    return PendingCapture.create(home, {"url": "https://e.com/"}, plan, CaptureLimits(part_bytes))


def part_file(cap: PendingCapture, index: int):
    return cap.path / "parts" / f"{url_digest(URL)}.{index}"


def test_an_index_outside_the_parts_is_refused_at_both_ends(tmp_path):
    cap = capture(tmp_path, 10)  # parts of 4, 4, 2 bytes
    for index in (-1, 3):
        with pytest.raises(InvalidInput, match="outside 0..2"):
            cap.put_part(URL, index, 3, b"ab")
    assert cap.put_part(URL, 2, 3, b"ab")["missing_parts"] == [0, 1]


def test_a_part_may_fill_its_slot_but_not_one_byte_more(tmp_path):
    cap = capture(tmp_path, 10)
    with pytest.raises(InvalidInput, match="holds 5 bytes, more than 4"):
        cap.put_part(URL, 0, 3, b"abcde")
    with pytest.raises(InvalidInput, match="holds 3 bytes, more than 2"):
        cap.put_part(URL, 2, 3, b"xyz")  # the last slot is what is left of the size
    reply = cap.put_part(URL, 0, 3, b"abcd")
    assert reply == {"url": URL, "received": 1, "count": 3, "missing_parts": [1, 2]}


def test_a_wrong_part_count_is_refused(tmp_path):
    cap = capture(tmp_path, 10)
    with pytest.raises(InvalidInput, match="sent in 3 parts, not 2"):
        cap.put_part(URL, 0, 2, b"abcd")


def test_each_part_is_stored_with_the_crc32_of_its_bytes_first(tmp_path):
    cap = capture(tmp_path, 10)
    cap.put_part(URL, 1, 3, b"efgh")
    assert part_file(cap, 1).read_bytes() == zlib.crc32(b"efgh").to_bytes(4, "big") + b"efgh"


def test_an_empty_resource_is_one_empty_part_and_assembles(tmp_path):
    """An empty part is a file of its CRC alone (4 bytes): intact, not damaged."""
    cap = capture(tmp_path, 0)
    assert cap.missing() == {URL: [0]}
    assert cap.put_part(URL, 0, 1, b"")["missing_parts"] == []
    assert cap.missing() == {} and cap.assemble(cap.entries[URL]) == b""


def test_a_part_with_a_wrong_crc_is_removed_and_asked_for_again(tmp_path):
    cap = capture(tmp_path, 8)
    cap.put_part(URL, 0, 2, b"abcd")
    cap.put_part(URL, 1, 2, b"efgh")
    stored = part_file(cap, 1).read_bytes()
    part_file(cap, 1).write_bytes(stored[:4] + b"efgX")  # same length, one byte changed
    assert cap.assemble(cap.entries[URL]) is None
    assert not part_file(cap, 1).exists()
    assert cap.missing() == {URL: [1]}
    part_file(cap, 0).write_bytes(b"abc")  # shorter than a CRC
    assert cap.missing() == {URL: [0, 1]}


def test_a_different_duplicate_is_a_conflict_and_the_first_part_stays(tmp_path):
    cap = capture(tmp_path, 8)
    cap.put_part(URL, 0, 2, b"abcd")
    assert cap.put_part(URL, 0, 2, b"abcd")["received"] == 1  # the same bytes: ignored
    with pytest.raises(Conflict):
        cap.put_part(URL, 0, 2, b"abce")
    cap.put_part(URL, 1, 2, b"efgh")
    assert cap.assemble(cap.entries[URL]) == b"abcdefgh"


def test_bytes_for_a_resource_the_capture_does_not_want_are_refused(tmp_path):
    cap = capture(tmp_path, 8)
    with pytest.raises(InvalidInput, match="does not want"):
        cap.put_part("https://e.com/other.css", 0, 1, b"x")


def test_a_capture_is_loaded_by_its_exact_32_hex_digit_id(tmp_path):
    cap = capture(tmp_path, 8)
    assert PendingCapture.load(tmp_path, cap.id).entries.keys() == {URL}
    for bad in (cap.id[:-1], cap.id + "0", cap.id.upper(), 7):
        with pytest.raises(InvalidInput):
            PendingCapture.load(tmp_path, bad)
    with pytest.raises(NotFound):
        PendingCapture.load(tmp_path, "0" * 32)


def test_a_capture_json_replaced_on_disk_is_read_again(tmp_path):
    cap = capture(tmp_path, 8)
    PendingCapture.load(tmp_path, cap.id)
    record = dict(cap.record, plan=[{"url": URL, "size": 8, "status": "stored"}])
    (cap.path / "capture.json").write_text(pending_captures.json.dumps(record))
    with pytest.raises(InvalidInput, match="does not want"):
        PendingCapture.load(tmp_path, cap.id).put_part(URL, 0, 2, b"abcd")


def test_the_parsed_plans_kept_are_bounded(tmp_path):
    ids = [capture(tmp_path, 8).id for _ in range(pending_captures.PARSED_KEPT + 3)]
    for capture_id in ids:
        PendingCapture.load(tmp_path, capture_id)
    held = [path.name for path in pending_captures._PARSED]
    assert len(held) == pending_captures.PARSED_KEPT and held[-1] == ids[-1]


def test_the_sweep_removes_captures_idle_longer_than_the_limit_and_every_dropped_one(tmp_path):
    old, fresh = capture(tmp_path, 8), capture(tmp_path, 8)
    now = os.stat(fresh.path).st_mtime
    os.utime(old.path, (now - 100, now - 100))
    dropped = pending_root(tmp_path) / f"{pending_captures.DROPPED}{'0' * 32}.ab12"
    dropped.mkdir()
    assert sweep(tmp_path, now=now, older_than=100) == []  # exactly the limit is not over it
    assert sorted(p.name for p in pending_root(tmp_path).iterdir()) == sorted([old.id, fresh.id])
    assert sweep(tmp_path, now=now + 1, older_than=100) == [old.id]
    assert [p.name for p in pending_root(tmp_path).iterdir()] == [fresh.id]
