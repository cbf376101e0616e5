"""A stand-in native host for the extension's capture tests: the five capture messages of
host/PROTOCOL.md (capture_begin, capture_part, capture_status, capture_commit, capture_abort) plus
the ``versions`` and ``similar`` the popup's summary asks for, over real native-messaging framing.

Its state lives in files under ``$PK_FAKE_STATE`` (so a new process, after the browser restarts
the host, resumes where the last stopped), and every request is logged to ``log.jsonl`` there.
``config.json`` there sets ``part_bytes``, ``part_delay_ms`` and ``die_after_parts`` (exit without answering when
that many parts have arrived, once: a host killed halfway). Committed blobs are checked against
their declared sha256 and stored under ``blobs/``; a resource whose sha256 is already stored is
not asked for again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
import sys
import time
from pathlib import Path


def state_dir() -> Path:
    """The folder of its state, ``$PK_FAKE_STATE``, read where it is used (importing this
    module, e.g. to collect its doctests, needs no environment)."""
    folder = os.environ.get("PK_FAKE_STATE")
    if not folder:
        raise RuntimeError(
            "PK_FAKE_STATE is not set: it names the folder of the stand-in host's state"
            " (tests/extension/capture_site.py's launcher sets it)"
        )
    return Path(folder)


def read_message(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack("<I", head)
    return json.loads(stream.read(size))


def write_message(stream, obj) -> None:
    data = json.dumps(obj).encode()
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def config() -> dict:
    path = state_dir() / "config.json"
    return json.loads(path.read_text()) if path.exists() else {}


def capture_dir(capture_id: str) -> Path:
    return state_dir() / "captures" / capture_id


def part_path(capture_id: str, url: str, index: int) -> Path:
    name = hashlib.sha256(url.encode()).hexdigest()
    return capture_dir(capture_id) / "parts" / name / str(index)


def begin(params: dict) -> dict:
    captures = state_dir() / "captures"
    captures.mkdir(parents=True, exist_ok=True)
    capture_id = f"c{len(list(captures.iterdir())) + 1}"
    capture_dir(capture_id).mkdir()
    (capture_dir(capture_id) / "begin.json").write_text(json.dumps(params))
    held = {p.name for p in (state_dir() / "blobs").glob("*")}
    need = [r["url"] for r in params["resources"] if r.get("sha256") and r["sha256"] not in held]
    limits = {"part_bytes": config().get("part_bytes", 1 << 20), "resource_bytes": 1 << 30,
              "page_bytes": 1 << 32}  # fmt: skip
    (capture_dir(capture_id) / "need.json").write_text(json.dumps(need))
    return {"capture_id": capture_id, "need": need, "limits": limits}


def part(params: dict) -> dict:
    time.sleep(config().get("part_delay_ms", 0) / 1000)  # a slow host, to watch the progress
    path = part_path(params["capture_id"], params["url"], params["index"])
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / "count").write_text(str(params["count"]))
    path.write_bytes(base64.b64decode(params["data"]))
    limit = config().get("die_after_parts")
    received = len(list((state_dir() / "captures").glob("*/parts/*/[0-9]*"))) if limit else 0
    if limit and received >= limit and not (state_dir() / "died").exists():
        (state_dir() / "died").write_text("1")
        os._exit(3)  # killed halfway: no reply
    return {
        "received": True,
        "missing_parts": missing_of(params["capture_id"], [params["url"]]).get(params["url"], []),
    }


def missing_of(capture_id: str, only: list[str] | None = None) -> dict:
    need = only or json.loads((capture_dir(capture_id) / "need.json").read_text())
    missing = {}
    for url in need:
        folder = part_path(capture_id, url, 0).parent
        count_file = folder / "count"
        count = int(count_file.read_text()) if count_file.exists() else None
        if count is None:
            begun = json.loads((capture_dir(capture_id) / "begin.json").read_text())
            size = next(r["size"] for r in begun["resources"] if r["url"] == url)
            count = max(1, -(-size // config().get("part_bytes", 1 << 20)))
        lacking = [i for i in range(count) if not (folder / str(i)).exists()]
        if lacking:
            missing[url] = lacking
    return missing


def commit(params: dict) -> dict:
    capture_id = params["capture_id"]
    if missing_of(capture_id):
        raise ValueError(f"incomplete: {missing_of(capture_id)}")
    begun = json.loads((capture_dir(capture_id) / "begin.json").read_text())
    blobs = state_dir() / "blobs"
    blobs.mkdir(exist_ok=True)
    stored, missing, bytes_new = [], [], 0
    for r in begun["resources"]:
        if not r.get("sha256"):
            missing.append(r["url"])
            continue
        folder = part_path(capture_id, r["url"], 0).parent
        if (blobs / r["sha256"]).exists():
            stored.append(r["url"])
            continue
        count = int((folder / "count").read_text())
        data = b"".join((folder / str(i)).read_bytes() for i in range(count))
        if hashlib.sha256(data).hexdigest() != r["sha256"]:
            raise ValueError(f"sha256 mismatch for {r['url']}")
        (blobs / r["sha256"]).write_bytes(data)
        stored.append(r["url"])
        bytes_new += len(data)
    committed = state_dir() / "committed.jsonl"
    with committed.open("a") as out:
        out.write(json.dumps({"capture_id": capture_id, **begun}) + "\n")
    n = len(committed.read_text().splitlines())
    return {"id": f"v{n}", "url": begun["url"], "key": begun["url"], "similar": [],
            "version_url": f"http://127.0.0.1:1/v/v{n}/{begun['url']}",
            "registered_at": "2026-11-24T22:00:00Z", "versions": n,
            "resources": {"stored": len(stored), "missing": missing, "bytes_new": bytes_new,
                          "bytes_total": sum(r.get("size", 0) for r in begun["resources"])}}  # fmt: skip


def versions(params: dict) -> dict:
    committed = state_dir() / "committed.jsonl"
    rows = [json.loads(x) for x in committed.read_text().splitlines()] if committed.exists() else []
    mine = [r for r in rows if r["url"] == params["url"]]
    return {"url": params["url"], "versions": [{"id": f"v{i}"} for i in range(len(mine), 0, -1)]}


HANDLERS = {
    "ping": lambda p: {"version": "fake", "protocol": 1},
    "capture_begin": begin,
    "capture_part": part,
    "capture_status": lambda p: {"missing": missing_of(p["capture_id"])},
    "capture_commit": commit,
    "capture_abort": lambda p: {"aborted": True},
    "versions": versions,
    "similar": lambda p: {"similar": []},
}


def main() -> None:
    try:
        state_dir().mkdir(parents=True, exist_ok=True)
    except RuntimeError as err:
        sys.exit(f"capture_fake_host: {err}")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (message := read_message(stdin)) is not None:
        kind, params = message.get("type"), message.get("params") or {}
        logged = {k: v for k, v in params.items() if k not in ("data", "html")}
        with (state_dir() / "log.jsonl").open("a") as log:
            log.write(json.dumps({"type": kind, "params": logged, "pid": os.getpid()}) + "\n")
        try:
            result = HANDLERS[kind](params)
            write_message(stdout, {"id": message["id"], "ok": True, "result": result})
        except Exception as err:  # noqa: BLE001 (a fake: every failure goes back as a reply)
            error = {"code": "not_found" if kind not in HANDLERS else "invalid_input",
                     "message": str(err)}  # fmt: skip
            write_message(stdout, {"id": message["id"], "ok": False, "error": error})


if __name__ == "__main__":
    main()
