"""``archive delete|undo|reclaim|stats``: the real CLI, with and without a real daemon."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from engine.archive.store import ArchiveStore
from host.cli.commands.collection import render_stats, size
from host.cli.entry import main
from tests.engine.archive.pages import page
from tests.host.daemon_fixtures import make_home


def cli(capsys, home, *argv) -> tuple[int, object]:
    code = main(["archive", *argv, "--home", str(home), "--json"])
    lines = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None


def add(capsys, home, tmp_path, name: str, url: str | None = None) -> dict:
    page_url, body = page(name)
    path = tmp_path / f"{name}.html"
    path.write_bytes(body)
    code, result = cli(capsys, home, "add", url or page_url, "--html", str(path), "--no-fetch")
    assert code == 0, result
    return result


def blob_bytes(home) -> int:
    return sum(p.stat().st_size for p in (home / "blobs").rglob("*") if p.is_file())


def _delete_and_check(capsys, home, tmp_path) -> None:
    kept = add(capsys, home, tmp_path, "latin1")
    first = add(capsys, home, tmp_path, "partei")
    add(capsys, home, tmp_path, "partei")
    _, before = cli(capsys, home, "stats")
    on_disk = blob_bytes(home)
    code, result = cli(capsys, home, "delete", first["url"])
    assert code == 0
    assert set(result) == {"deleted", "freed_bytes"}
    assert result["deleted"] == {"documents": 1, "versions": 2}
    assert result["freed_bytes"] == on_disk - blob_bytes(home) > 0  # the space came back
    _, after = cli(capsys, home, "stats")
    assert (after["documents"], after["versions"]) == (before["documents"] - 1, 1)
    assert before["blob_bytes"] - after["blob_bytes"] == result["freed_bytes"]  # stats show it
    assert [r["id"] for r in cli(capsys, home, "search")[1]] == [kept["id"]]
    code, error = cli(capsys, home, "delete", first["id"])
    assert code == 3 and error["error"]["code"] == "not_found"


def test_delete_without_a_daemon_frees_the_space(capsys, tmp_path):
    _delete_and_check(capsys, make_home(tmp_path / "a"), tmp_path)


def test_delete_through_the_daemon_answers_the_same(capsys, home, daemon, tmp_path):
    _delete_and_check(capsys, home, tmp_path)


def test_undoable_delete_and_undo(capsys, home, daemon, tmp_path):
    reg = add(capsys, home, tmp_path, "partei")
    code, result = cli(capsys, home, "delete", reg["id"], "--undo")
    assert code == 0 and result["freed_bytes"] == 0 and result["undo"]
    assert cli(capsys, home, "search")[1] == []
    code, back = cli(capsys, home, "undo", result["undo"])
    assert back == {"restored": {"documents": 1, "versions": 1}}
    assert [r["id"] for r in cli(capsys, home, "search")[1]] == [reg["id"]]
    code, again = cli(capsys, home, "undo", result["undo"])
    assert code == 3 and again["error"]["code"] == "not_found"


def test_reclaim_leaves_a_young_orphan_alone(capsys, tmp_path):
    home = make_home(tmp_path / "b")
    with ArchiveStore.open(home) as store:
        store.put_blob(b"left by a capture killed before its rows")
    code, result = cli(capsys, home, "reclaim")
    assert code == 0 and result["blobs"] == 0  # younger than the grace period: may be in flight
    assert blob_bytes(home) > 0


def test_stats_compares_captured_with_kept_like_with_like(tmp_path, capsys):
    """The line's two first figures are the same bytes before and after dedup (pages and their
    resources as captured, then each kept once): a page captured twice unchanged is kept once,
    half; the files on disk (copies, extracts, compressed) come after, named as such."""
    home = make_home(tmp_path / "c")
    add(capsys, home, tmp_path, "partei")
    add(capsys, home, tmp_path, "partei")
    _, figures = cli(capsys, home, "stats")
    assert main(["archive", "stats", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    line = re.match(r"1 documents, 2 versions: (.+) captured, (.+) after dedup; (.+) on disk,", out)
    assert line, out
    once = figures["original_bytes"] // 2
    assert (line[1], line[2]) == (size(2 * once), size(once))
    assert line[3] == size(figures["blob_bytes"]) and "with the records" in out
    # The files are compressed, so fewer bytes on disk than kept: the line says so.
    assert f"{line[3]} on disk, compressed, with copies and extracts" in out, out


def test_tag_note_and_search_by_tag(capsys, tmp_path):
    home = make_home(tmp_path / "d")
    reg = add(capsys, home, tmp_path, "partei")
    other = add(capsys, home, tmp_path, "latin1")
    code, tagged = cli(capsys, home, "tag", reg["url"], "+Politik", "+later", "-later", "+ministry")
    assert code == 0 and tagged["tags"] == ["ministry", "politik"]
    assert cli(capsys, home, "tag", reg["id"], "-ministry")[1]["tags"] == ["politik"]
    assert [r["id"] for r in cli(capsys, home, "search", "--tag", "politik")[1]] == [reg["id"]]
    assert cli(capsys, home, "search", "--tag", "ministry")[1] == []
    assert [r["id"] for r in cli(capsys, home, "search")[1]] == [other["id"], reg["id"]]
    code, noted = cli(capsys, home, "note", reg["url"], "read before the vote")
    assert code == 0 and noted == {
        "id": reg["id"],
        "url": reg["url"],
        "note": "read before the vote",
    }
    _, rows = cli(capsys, home, "versions", reg["url"])
    assert rows[0]["note"] == "read before the vote"
    assert cli(capsys, home, "tags")[1] == {"tags": [{"tag": "politik", "documents": 1}]}


def test_bad_tags_and_unknown_ids_are_typed(capsys, tmp_path):
    home = make_home(tmp_path / "e")
    reg = add(capsys, home, tmp_path, "partei")
    code, error = cli(capsys, home, "tag", reg["url"], "+bad\x07tag")
    assert code == 2 and error["error"]["code"] == "invalid_input"
    assert "control characters" in error["error"]["message"]
    code, error = cli(capsys, home, "tag", "20990101000000000000", "+x")
    assert code == 3 and error["error"]["code"] == "not_found"
    code, error = cli(capsys, home, "note", "20990101000000000000", "text")
    assert code == 3 and error["error"]["code"] == "not_found"
    code, error = cli(capsys, home, "tag", reg["url"])
    assert code == 2 and error["error"]["code"] == "invalid_input"


def test_a_revisit_has_its_own_note_and_delete(capsys, tmp_path):
    """A page added again unchanged is "seen again": its own ID takes a note, and deleting it
    removes that capture only (its version keeps the content: nothing freed)."""
    home = make_home(tmp_path / "r")
    first = add(capsys, home, tmp_path, "partei")
    again = add(capsys, home, tmp_path, "partei")
    assert again["revisit_of"] == first["id"]
    code, noted = cli(capsys, home, "note", again["id"], "seen again before the vote")
    assert code == 0 and noted["id"] == again["id"] and noted["url"] == first["url"]
    _, rows = cli(capsys, home, "versions", first["url"])
    assert [(r["id"], r["note"]) for r in rows] == [
        (again["id"], "seen again before the vote"),
        (first["id"], ""),
    ]
    assert main(["archive", "versions", first["url"], "--home", str(home)]) == 0
    human = capsys.readouterr().out.splitlines()
    assert (
        human[0].endswith(f"(seen again, unchanged since {first['id']})")
        and again["id"] in human[0]
    )
    assert "seen again" not in human[1]
    on_disk = blob_bytes(home)
    code, result = cli(capsys, home, "delete", again["id"])
    assert code == 0 and result == {"deleted": {"documents": 0, "versions": 1}, "freed_bytes": 0}
    assert blob_bytes(home) == on_disk
    _, rows = cli(capsys, home, "versions", first["url"])
    assert [r["id"] for r in rows] == [first["id"]]
    with ArchiveStore.open(home, readonly=True) as store:
        assert store.row("notes", again["id"]) is None  # its note went with it


def test_the_undo_a_delete_names_runs_as_printed_for_its_own_home(capsys, tmp_path):
    """The hint is this PageKeeper with ``--home`` (a bare ``pagekeeper archive undo N`` looks
    in another archive, or is not on PATH after ``make run``); followed, it restores."""
    home = make_home(tmp_path)
    added = add(capsys, home, tmp_path, "partei")
    assert main(["archive", "delete", "--undo", added["url"], "--home", str(home)]) == 0
    hint = re.search(r"undo until [^:]+:\d\d:\d\d \w+: (.+)", capsys.readouterr().out).group(1)
    program, *args = shlex.split(hint)
    assert Path(program).is_absolute() and os.access(program, os.X_OK)
    assert main(args) == 0  # followed as printed
    assert "restored 1 version(s)" in capsys.readouterr().out
    code, versions = cli(capsys, home, "versions", added["url"])
    assert code == 0 and [v["id"] for v in versions] == [added["id"]]


def test_what_a_delete_freed_is_said_in_units(capsys, tmp_path):
    home = make_home(tmp_path)
    added = add(capsys, home, tmp_path, "partei")
    assert main(["archive", "delete", added["url"], "--home", str(home)]) == 0
    said = capsys.readouterr().out
    assert re.search(r"; freed \d+(\.\d)? (B|KB|MB)$", said.strip()), said


STATS_FIELDS = {
    "documents", "versions", "original_bytes", "dedup_saved_bytes", "blob_bytes",
    "storage_bytes", "resource_bytes", "resource_unique_bytes", "resource_dedup_saved_bytes",
    "index_bytes", "pending_bytes", "archive_bytes",
}  # fmt: skip


def test_stats_of_an_empty_archive_read_as_empty(tmp_path, capsys):
    """An archive opened for writing but never written (``reclaim`` takes the writer's lock,
    whose file holds a pid, no record) is empty: 0 B of records, and the line says so. With
    its pages deleted, the records left are what it names. The JSON keeps every field."""
    home = make_home(tmp_path / "h")
    assert cli(capsys, home, "reclaim")[0] == 0
    assert (home / "db" / "LOCK").stat().st_size > 0  # the lock's file is there, not a record
    code, figures = cli(capsys, home, "stats")
    assert code == 0 and set(figures) >= STATS_FIELDS, figures
    assert figures["storage_bytes"] == figures["blob_bytes"] == figures["versions"] == 0
    index = _bytes_under(home / "index")  # made as the archive is opened: room taken
    assert figures["index_bytes"] == figures["archive_bytes"] == index
    assert main(["archive", "stats", "--home", str(home)]) == 0
    assert capsys.readouterr().out == (
        f"empty archive: no pages archived; its full-text index takes {size(index)} on disk\n"
        if index
        else "empty archive: no pages archived yet\n"
    )
    home = make_home(tmp_path / "deleted")  # its own home: a CLI process has its own figures
    added = add(capsys, home, tmp_path, "latin1")
    assert cli(capsys, home, "delete", added["id"])[0] == 0
    _, figures = cli(capsys, home, "stats")
    records = sum(p.stat().st_size for p in (home / "db").iterdir() if p.name != "LOCK")
    assert figures["versions"] == 0 and figures["storage_bytes"] == records > 0
    held = records + _bytes_under(home / "index")
    assert figures["archive_bytes"] == held
    assert main(["archive", "stats", "--home", str(home)]) == 0
    assert capsys.readouterr().out == (
        f"empty archive: no pages archived; its records and full-text index take {size(held)} on disk\n"
    )


def _bytes_under(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_stats_count_all_the_archive_takes_on_disk_and_nothing_else(tmp_path, capsys):
    """The archive's size on disk is its blobs, its records (not the writer lock's pid), the
    full-text index and the pending captures: every byte of those folders, and none of the
    token, the config, the logs or the cache. The fields before stay as they were."""
    home = make_home(tmp_path / "h")
    add(capsys, home, tmp_path, "latin1")
    _, figures = cli(capsys, home, "stats")
    (home / "pending" / "c1").mkdir(parents=True)  # a capture still receiving its resources
    (home / "pending" / "c1" / "capture.json").write_text('{"resources": []}')
    _, figures = cli(capsys, home, "stats")
    blobs, index = _bytes_under(home / "blobs"), _bytes_under(home / "index")
    records = sum(p.stat().st_size for p in (home / "db").rglob("*") if p.name != "LOCK")
    assert figures["blob_bytes"] == blobs and figures["storage_bytes"] == blobs + records
    assert figures["index_bytes"] == index > 0 and figures["pending_bytes"] == 17
    assert figures["archive_bytes"] == blobs + records + index + 17
    assert main(["archive", "stats", "--home", str(home)]) == 0
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith(
            f"({size(blobs + records)} with the records; "
            f"{size(figures['archive_bytes'])} in all, with the full-text index)"
        )
    )


def test_stats_count_the_records_again_after_a_tag_and_a_compaction(tmp_path, capsys):
    """The records' bytes are cached by what changes them: a tag adds a journal line and no
    version, a compaction folds the lines into snapshots; after each, ``storage_bytes`` is
    the folders' bytes again, not the figure of before (one process, as the daemon's)."""
    home = make_home(tmp_path / "h")
    reg = add(capsys, home, tmp_path, "latin1")

    def records_on_disk() -> int:
        return sum(p.stat().st_size for p in (home / "db").rglob("*") if p.name != "LOCK")

    def storage_bytes() -> int:
        return cli(capsys, home, "stats")[1]["storage_bytes"] - blob_bytes(home)

    def compact_then_tag(tag: str) -> None:
        with ArchiveStore.open(home) as store:
            store.compact()
        assert cli(capsys, home, "tag", reg["id"], tag)[0] == 0

    with ArchiveStore.open(home) as store:
        store.compact()
    assert storage_bytes() == records_on_disk()  # no journal line yet
    assert cli(capsys, home, "tag", reg["id"], "+kept")[0] == 0
    assert storage_bytes() == records_on_disk()  # one line more, the same versions
    compact_then_tag("+read")
    assert storage_bytes() == records_on_disk()  # one line again, in a new generation


def test_stats_text_adds_resources_to_the_pages_captured_and_kept():
    """Captured is the pages as captured plus every resource; kept is the pages less what
    dedup saved plus each resource once. A reply with no resource or dedup field (an archive
    that has none) adds nothing: byte-exact below 1 KB."""
    both = {
        "documents": 1, "versions": 2, "original_bytes": 10240, "dedup_saved_bytes": 5120,
        "resource_bytes": 20480, "resource_unique_bytes": 2048,
        "blob_bytes": 1024, "storage_bytes": 2048, "archive_bytes": 4096,
    }  # fmt: skip
    assert "30 KB captured, 7.0 KB after dedup;" in render_stats(both)
    pages = {"documents": 1, "versions": 1, "original_bytes": 500, "blob_bytes": 300,
             "storage_bytes": 400, "archive_bytes": 600}  # fmt: skip
    assert render_stats(pages) == (
        "1 documents, 1 versions: 500 B captured, 500 B after dedup; 300 B on disk, compressed,"
        " with copies and extracts (400 B with the records; 600 B in all, with the full-text"
        " index)"
    )
    empty = {"documents": 0, "versions": 0, "original_bytes": 0, "blob_bytes": 0,
             "storage_bytes": 0, "archive_bytes": 0}  # fmt: skip
    assert render_stats(empty) == "empty archive: no pages archived yet"
