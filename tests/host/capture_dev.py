"""The shared capture-dev corpus (../shared/data/capture-dev): real pages with their
resources, served on loopback by its replay.py as if live (a proxy for httpx, resolver
rules for Chromium), and switched to "gone" at will."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "data" / "capture-dev"


class Replay:
    """A running replay server: ports, request log, mode switch, the recorded bodies."""

    def __init__(self, proc: subprocess.Popen, info: dict) -> None:
        self.proc, self.info = proc, info
        self.index = json.loads((CORPUS / "corpus" / "index.json").read_text("utf-8"))

    @property
    def proxy(self) -> str:
        return f"http://127.0.0.1:{self.info['http']}"

    def env(self) -> dict:
        """Environment that sends httpx through the replay server (never the daemon)."""
        return {
            **os.environ,
            "HTTP_PROXY": self.proxy,
            "HTTPS_PROXY": self.proxy,
            "NO_PROXY": "127.0.0.1,localhost",
            "SSL_CERT_FILE": self.info["ca"],
        }

    def control(self, path: str) -> dict:
        url = f"http://127.0.0.1:{self.info['control']}{path}"
        with urllib.request.urlopen(url, timeout=10) as resp:
            return json.loads(resp.read())

    def seq(self) -> int:
        return self.control("/log?since=0")["seq"]

    def requests_since(self, seq: int) -> list[dict]:
        """Requests to the corpus's sites since ``seq`` (the browser's own service traffic,
        e.g. clients2.google.com, is not a page's and is left out)."""
        sites = {urlsplit(url).hostname for url in self.index}
        log = self.control(f"/log?since={seq}")["log"]
        return [
            r
            for r in log
            if urlsplit(r["url"]).hostname in sites or "host" in r and r["host"] in sites
        ]

    def recorded_sha256(self, url: str, hops: int = 5) -> str | None:
        """The SHA-256 of the body ``url`` answers (redirects followed; the replay server also
        answers a URL from its record under the other scheme), or None."""
        scheme, rest = url.split("://", 1)
        other = f"{'http' if scheme == 'https' else 'https'}://{rest}"
        records = [*self.index.get(url, ()), *self.index.get(other, ())]
        for record in records:
            if record.get("status") == 200:
                return record["body"]
        for record in records:
            location = dict((k.lower(), v) for k, v in record["headers"]).get("location")
            if location and hops:
                return self.recorded_sha256(urljoin(url, location), hops - 1)
        return None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def start_replay() -> Replay:
    if not (CORPUS / "replay.py").is_file() or shutil.which("openssl") is None:
        pytest.skip("the capture-dev corpus (../shared/data/capture-dev) or openssl is missing")
    args = ["--http", "0", "--https", "0", "--control", "0"]
    proc = subprocess.Popen(
        [sys.executable, str(CORPUS / "replay.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    info = json.loads(proc.stdout.readline())
    return Replay(proc, info)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
