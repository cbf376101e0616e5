"""``pagekeeper archive export | import`` through the real CLI, on real saved pages, real files.

The exported WARC is read back with warcio: one response per version, the original bytes,
the capture time; an import into another home restores the versions at their capture times.
With a daemon running, export reads beside it and import goes through it.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from host.cli import backend
from host.cli.commands import warc
from host.cli.entry import main
from host.daemon import client
from tests.conftest import run_pagekeeper
from tests.engine.archive.pages import page
from tests.host.daemon_fixtures import make_home, pk


def cli(home, *args: str) -> tuple[int, dict]:
    done = run_pagekeeper(home, "--json", *args)
    return done.returncode, json.loads(done.stdout or done.stderr or "null")


def seed(home, tmp_path) -> list[tuple[str, str, bytes]]:
    """Two versions of one article and one other page, registered from saved files:
    (id, url, original bytes) in registration order."""
    url, body = page("ordnung")
    other_url, other = page("peptalks")
    seeded = []
    for n, (target, html) in enumerate(
        [(url, body), (url, body + b"<!-- v2 -->"), (other_url, other)]
    ):
        path = tmp_path / f"page{n}.html"
        path.write_bytes(html)
        code, added = cli(home, "archive", "add", target, "--html", str(path))
        assert code == 0, added
        seeded.append((added["id"], target, html))
    return seeded


def responses(path) -> dict[str, tuple[bytes, str]]:
    """URL → (body, WARC-Date) of each response record, with its registration id."""
    found = {}
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == "response":
                body = record.content_stream().read()
                found[body] = (
                    record.rec_headers.get_header("WARC-Target-URI"),
                    record.rec_headers.get_header("WARC-Date"),
                )
    return found


def test_export_writes_every_version_of_the_matching_documents(tmp_path):
    home = make_home(tmp_path / "a")
    seeded = seed(home, tmp_path)
    out = tmp_path / "all.warc.gz"
    code, result = cli(home, "archive", "export", "*ordnungsrausch*", "-o", str(out))
    assert code == 0, result
    assert result["versions"] == 2 and result["file"] == str(out)
    assert result["bytes"] == out.stat().st_size
    bodies = responses(out)
    assert set(bodies) == {seeded[0][2], seeded[1][2]}  # byte-identical originals, both versions
    assert {uri for uri, _ in bodies.values()} == {seeded[0][1]}
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary name is gone
    gzip.decompress(out.read_bytes())  # a valid gzip stream (one member per record)


def test_export_by_id_and_import_restores_versions_at_their_capture_times(tmp_path):
    home = make_home(tmp_path / "a")
    seeded = seed(home, tmp_path)
    first, _, third = seeded
    out = tmp_path / "two.warc.gz"
    code, result = cli(
        home, "archive", "export", "--id", first[0], "--id", third[0], "-o", str(out)
    )
    assert code == 0 and result["versions"] == 2, result
    assert set(responses(out)) == {first[2], third[2]}

    other = make_home(tmp_path / "b")
    code, imported = cli(other, "archive", "import", str(out))
    assert code == 0, imported
    assert imported["imported"] == 2
    assert imported["reasons"] == {"warcinfo": 1, "metadata": 2}  # only the non-captures
    _, before = cli(home, "archive", "versions", first[1])
    _, after = cli(other, "archive", "versions", first[1])
    assert [v["registered_at"] for v in after] == [before[-1]["registered_at"]]  # the first capture
    restored = tmp_path / "restored.html"
    code, _ = cli(other, "archive", "get", after[0]["id"], "--original", "-o", str(restored))
    assert code == 0 and restored.read_bytes() == first[2]


def test_bad_input_gets_typed_errors_and_no_file(tmp_path):
    home = make_home(tmp_path / "a")
    seed(home, tmp_path)
    out = tmp_path / "none.warc.gz"
    code, error = cli(home, "archive", "export", "*nowhere.example*", "-o", str(out))
    assert code != 0 and error["error"]["code"] == "invalid_input" and not out.exists()
    code, error = cli(home, "archive", "export", "--id", "20990101000000000000")
    assert code != 0 and error["error"]["code"] == "not_found"
    code, error = cli(home, "archive", "import", str(tmp_path / "missing.warc"))
    assert code != 0 and error["error"]["code"] == "invalid_input"
    junk = tmp_path / "junk.warc"
    junk.write_bytes(b"this is not a WARC file at all\n" * 10)
    code, error = cli(home, "archive", "import", str(junk))
    assert code != 0 and error["error"]["code"] in ("invalid_input", "decode_error"), error
    code, listed = cli(home, "archive", "search")
    assert code == 0 and len(listed) == 2  # nothing stored was touched


def label(home, seeded) -> None:
    """Tag the article, note its first version."""
    first = seeded[0]
    assert cli(home, "archive", "tag", first[1], "+ordnung", "+später lesen")[0] == 0
    assert cli(home, "archive", "note", first[0], "the first capture\nbefore v2")[0] == 0


def assert_labels_came_back(home, seeded) -> None:
    _, rows = cli(home, "archive", "versions", seeded[0][1])
    assert [v["note"] for v in rows] == ["", "the first capture\nbefore v2"]  # newest first
    _, found = cli(home, "archive", "search", "--tag", "später lesen")
    assert [r["url"] for r in found] == [seeded[0][1]]
    assert found[0]["tags"] == ["ordnung", "später lesen"]
    _, untagged = cli(home, "archive", "search", "--tag", "ordnung", f"{seeded[2][1]}")
    assert untagged == []


def test_tags_and_notes_travel_in_the_export(tmp_path):
    home = make_home(tmp_path / "a")
    seeded = seed(home, tmp_path)
    label(home, seeded)
    out = tmp_path / "all.warc.gz"
    assert cli(home, "archive", "export", "-o", str(out))[0] == 0
    other = make_home(tmp_path / "b")
    code, imported = cli(other, "archive", "import", str(out))
    assert code == 0 and imported["imported"] == 3
    assert_labels_came_back(other, seeded)


def test_with_a_daemon_export_reads_beside_it_and_import_goes_through_it(tmp_path):
    home = make_home(tmp_path / "a")
    seeded = seed(home, tmp_path)
    label(home, seeded)
    out = tmp_path / "all.warc.gz"
    pk(home, "serve", "--detach")
    try:
        code, result = cli(home, "archive", "export", "-o", str(out))
        assert code == 0 and result["versions"] == 3, result
        other = make_home(tmp_path / "b")
        pk(other, "serve", "--detach")
        try:
            code, imported = cli(other, "archive", "import", str(out))
            assert code == 0 and imported["imported"] == 3, imported
            code, listed = cli(other, "archive", "search")
            assert code == 0 and len(listed) == 2
            assert_labels_came_back(other, seeded)
        finally:
            pk(other, "stop", check=False)
    finally:
        pk(home, "stop", check=False)


def test_export_and_import_in_process_answer_as_the_cli_does(tmp_path, capsys, monkeypatch):
    """The same export and import run in this process (``main``): an export names its file
    (given with ``-o``, or the default name in the current folder), its versions, records and
    bytes, and an import of that file into another home restores the versions it holds."""

    def run(home, *args: str) -> tuple[int, dict]:
        code = main(["--home", str(home), "--json", *args])
        return code, json.loads(capsys.readouterr().out)

    home = make_home(tmp_path / "a")
    seeded = seed(home, tmp_path)
    out = tmp_path / "all.warc.gz"
    code, result = run(home, "archive", "export", "*ordnungsrausch*", "-o", str(out))
    assert code == 0, result
    assert result == {
        "file": str(out),
        "versions": 2,
        "records": result["records"],
        "bytes": out.stat().st_size,
    }
    assert result["records"] == sum(1 for _ in ArchiveIterator(out.open("rb"))) > 2
    assert set(responses(out)) == {seeded[0][2], seeded[1][2]}
    monkeypatch.chdir(tmp_path)
    code, named = run(home, "archive", "export", "--id", seeded[2][0])
    assert code == 0 and named["versions"] == 1, named
    assert Path(named["file"]).parent == tmp_path and Path(named["file"]).is_file()
    assert re.fullmatch(r"pagekeeper-\d{8}-\d{6}-1\.warc\.gz", Path(named["file"]).name)
    code, error = run(home, "archive", "export", "*no-such-page*", "-o", str(tmp_path / "x"))
    assert (code, error["error"]["message"]) == (
        2,
        "no archived version matches; nothing to export",
    )
    other = make_home(tmp_path / "b")
    code, imported = run(other, "archive", "import", str(out))
    assert code == 0 and imported["imported"] == 2, imported
    assert imported["filename"] == "all.warc.gz"
    _, versions = run(other, "archive", "versions", seeded[0][1])
    assert len(versions) == 2


def test_an_import_through_the_daemon_waits_for_it_longer_than_a_message_does(
    tmp_path, capsys, monkeypatch
):
    """A WARC import hands the whole file to the daemon, which registers every capture before
    it answers: the command waits for that answer up to ``IMPORT_TIMEOUT``, not the default
    limit of one message (a large import would be cut off as a time-out while it goes on)."""
    home = make_home(tmp_path / "a")
    seed(home, tmp_path)
    out = tmp_path / "all.warc.gz"
    assert main(["--home", str(home), "--json", "archive", "export", "-o", str(out)]) == 0
    capsys.readouterr()
    other = make_home(tmp_path / "b")
    waited = []
    request = client.request

    def timed(ws, type, params=None, timeout=None):
        waited.append((type, timeout))
        return request(ws, type, params, timeout)

    monkeypatch.setattr(client, "request", timed)
    pk(other, "serve", "--detach")
    try:
        assert main(["--home", str(other), "--json", "archive", "import", str(out)]) == 0
    finally:
        pk(other, "stop", check=False)
    assert json.loads(capsys.readouterr().out)["imported"] == 3
    assert waited == [("import_warc", warc.IMPORT_TIMEOUT)]
    assert warc.IMPORT_TIMEOUT > backend.DEFAULT_TIMEOUT
