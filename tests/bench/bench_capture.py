"""Benchmark: how close an archived copy looks to the live page, against SingleFile, and how long
capturing takes (issue: "Keep the page, not just its HTML").

Run: ``.venv/bin/python tests/bench/bench_capture.py [--pages ID,...] [--no-singlefile]``.

Fidelity. The pages of ../shared/data/capture-dev (real captured sites with their CSS, images and
fonts, plus synthetic feature pages) are served "live" by its replay.py on loopback, with
Chromium's --host-resolver-rules mapping every host name there. Each page is rendered at
1280x900 (load, fonts ready, scrolled to the bottom and back, 1 s) and screenshotted; then archived
through the real extension and the real native host and daemon. SingleFile (single-file-cli from
npm, driven with Debian's Chromium) saves the same page. Then every site vanishes (replay mode
"gone": 404 to everything), and both copies are opened and screenshotted the same way. Score: the
share of pixels within a small colour distance of the live render, row for row at the same place
(tests/extension/capture_site.py: matching_share). Ours is scored as a user sees it: "ours" after
pressing the banner's Hide (the banner floats over the top of the copy until then), "opened" as
it first shows, banner and all. Outside requests: requests the opened copy made to anything but
the daemon (ours) or the file itself (SingleFile), from the browser's request events; must be 0.

Split: the capture code was tuned on TUNE; HELD_OUT was only measured.

Capture time. A loopback page of 100 images, 5 MB in all (incompressible PNG bytes), archived
through the extension: time from the popup's request to the host's reply, median of 3 (goal
<= 1.5 s). The extension's share: the same, against the stand-in host of the extension tests
(it writes each part to a file and answers), in a browser of its own. Baselines in the same run: SingleFile saving the same page (its CLI, browser start
included), and the bare in-page fetch of the same 100 URLs (the floor any capture pays).

Large page. 300 resources, 150 MB in all: archived, every resource stored (the transfer limits).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "packaging"))

import build_extension  # noqa: E402

from host.daemon.app import bundled_extension_ids  # noqa: E402
from tests.chromium import CHROMIUM, FLAGS  # noqa: E402
from tests.extension.capture_site import (  # noqa: E402
    fake_manifest,
    hide_banner,
    matching_share,
    open_copy,
)

DEV = ROOT.parent / "shared" / "data" / "capture-dev"
PAGEKEEPER = Path(sys.executable).with_name("pagekeeper")
EXTENSION_ID = bundled_extension_ids()[0]  # host/data/extension-id.txt, the one copy
TUNE = ["feat-cssinjs", "feat-media", "books-toscrape", "example-com"]
HELD_OUT = ["feat-frames", "lil-projects", "stringjs", "noarchive-netlify"]
VIEWPORT = {"width": 1280, "height": 900}
SINGLEFILE_PACKAGE = "single-file-cli"


def site_of(url: str) -> str:
    return urllib.parse.urlsplit(url).hostname or ""


# The corpus's own hosts: what reaches the replay server from elsewhere is the browser's own
# background traffic (accounts.google.com and the like), not a request of the copy.
SITES = (
    {site_of(u) for u in json.loads((DEV / "corpus" / "index.json").read_text())}
    if DEV.exists()
    else set()
)


# ---- the parts: replay server, daemon, browser, SingleFile ----------------------------------


def start_replay(workdir: Path) -> tuple[subprocess.Popen, dict]:
    args = [sys.executable, str(DEV / "replay.py"), "--http", "0", "--https", "0", "--control", "0",
            "--certs", str(workdir / "certs")]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, json.loads(proc.stdout.readline())


def control(info: dict, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{info['control']}{path}", timeout=10) as r:
        return json.loads(r.read())


def pk(home: Path, *args: str) -> str:
    env = {**os.environ, "PAGEKEEPER_HOME": str(home)}
    done = subprocess.run([str(PAGEKEEPER), "--home", str(home), *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"pagekeeper {' '.join(args)}: {done.stderr or done.stdout}")
    return done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_daemon(home: Path, profile: Path) -> int:
    port = free_port()
    (home / "config.json").write_text(json.dumps({"port": port}))
    for attempt in range(3):  # a starved machine may take longer than the CLI waits
        try:
            pk(home, "serve", "--port", str(port), "--detach")
            break
        except SystemExit:
            if attempt == 2:
                raise
    pk(home, "install", "--browser", "chromium", "--profile-dir", str(profile))
    return port


def launch(playwright, ext_dir: Path, profile: Path, rules: str, home: Path):
    args = [f"--disable-extensions-except={ext_dir}", f"--load-extension={ext_dir}", *FLAGS,
            f"--host-resolver-rules={rules}", "--ignore-certificate-errors",
            "--disable-features=HttpsUpgrades"]  # fmt: skip
    context = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, headless=True, args=args, viewport=VIEWPORT,
        ignore_https_errors=True, env={**os.environ, "PAGEKEEPER_HOME": str(home)},
    )  # fmt: skip
    ours = f"chrome-extension://{EXTENSION_ID}/"
    worker = next((w for w in context.service_workers if w.url.startswith(ours)), None)
    worker = worker or context.wait_for_event("serviceworker", timeout=15000)
    return context, worker


def singlefile_cli(workdir: Path) -> Path | None:
    """single-file-cli from ./node_modules, or installed with npm into a scratch folder."""
    local = ROOT / "node_modules" / ".bin" / "single-file"
    if local.exists():
        return local
    target = workdir / "singlefile"
    done = subprocess.run(["npm", "install", "--prefix", str(target), "--no-audit", "--no-fund",
                           "--silent", SINGLEFILE_PACKAGE], capture_output=True, timeout=600)  # fmt: skip
    found = target / "node_modules" / ".bin" / "single-file"
    return found if done.returncode == 0 and found.exists() else None


def singlefile_save(cli: Path, url: str, out: Path, rules: str) -> float:
    args = [f"--host-resolver-rules={rules}", "--ignore-certificate-errors",
            "--disable-features=HttpsUpgrades", *FLAGS]  # fmt: skip
    started = time.perf_counter()
    subprocess.run([str(cli), url, str(out), f"--browser-executable-path={CHROMIUM}",
                    f"--browser-args={json.dumps(args)}"], capture_output=True, timeout=180)  # fmt: skip
    return time.perf_counter() - started


# ---- rendering, archiving, scoring -----------------------------------------------------------


def settle(page, scripted: bool) -> None:
    """Load, fonts, scroll to the bottom and back (lazy images), 1 s. A sealed copy runs no
    script, so there the scrolling is done with the End and Home keys (not the mouse: a pointer
    left on the page would show :hover styles the live render does not have)."""
    page.wait_for_load_state("load")
    if scripted:
        page.evaluate("document.fonts.ready.then(() => 1)")
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_timeout(300)
        page.evaluate("window.scrollTo(0, 0)")
    else:
        page.keyboard.press("End")
        page.wait_for_timeout(300)
        page.keyboard.press("Home")
    page.wait_for_timeout(1000)


def tab_id(worker, url: str) -> int:
    return worker.evaluate("async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id", url)  # fmt: skip


def archive(context, worker, url: str) -> tuple[dict, float]:
    tab = tab_id(worker, url)
    ours = context.new_page()
    ours.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    started = time.perf_counter()
    reply = ours.evaluate("(id) => chrome.runtime.sendMessage({ type: 'archive_tab', params: { tabId: id } })", tab)  # fmt: skip
    took = time.perf_counter() - started
    ours.close()
    if not reply.get("ok"):
        raise RuntimeError(f"{url}: {reply.get('error')}")
    return reply["result"], took


def shot_of(
    context, url: str, scripted: bool, allowed: tuple[str, ...]
) -> tuple[list[bytes], list[str]]:
    """Screenshots of a copy as it opens and, for ours, after its banner is hidden; and the
    requests it made outside `allowed`."""
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(url)
    settle(page, scripted)
    shots = [page.screenshot()]
    if not scripted:
        hide_banner(page)
        page.wait_for_timeout(300)
        shots.append(page.screenshot())
    page.close()
    return shots, [u for u in asked if not u.startswith(allowed)]


def score(context, live: bytes, copy: bytes) -> float:
    page = context.new_page()
    share = matching_share(page, live, copy)
    page.close()
    return share


# ---- the synthetic pages for the timings -------------------------------------------------------


def noise(n: int, seed: str) -> bytes:
    return hashlib.shake_256(seed.encode()).digest(n)


def timing_site(count: int, each: int, seed: str = "") -> ThreadingHTTPServer:
    """A page of `count` images of `each` bytes (random bytes labelled image/png: the browser
    shows broken images, the capture still fetches and stores every one)."""
    images = {f"/img/{i}.png": noise(each, f"{seed}{count}-{i}") for i in range(count)}
    tags = "".join(f'<img src="/img/{i}.png" width="8" height="8">' for i in range(count))
    page = f"<!doctype html><title>{count} resources</title><p>timing page</p>{tags}".encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            body = images.get(self.path, page if self.path == "/" else None)
            self.send_response(200 if body is not None else 404)
            body = body or b""
            self.send_header("Content-Type", "text/html" if self.path == "/" else "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "max-age=600")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


FETCH_ALL = """async () => {
  const urls = [...document.images].map((i) => i.src);
  const started = performance.now();
  await Promise.all(urls.map((u) => fetch(u, { cache: 'force-cache' }).then((r) => r.arrayBuffer())));
  return (performance.now() - started) / 1000;
}"""


def browser_cpu() -> float:
    """CPU seconds used so far by the Chromium processes this bench started (/proc: utime +
    stime of each live descendant named chrom*), the page's and the extension's work included."""
    procs = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, fields = (
            text[text.index("(") + 1 : text.rindex(")")],
            text[text.rindex(")") + 2 :].split(),
        )
        procs[int(stat.parent.name)] = (int(fields[1]), name, int(fields[11]) + int(fields[12]))
    mine, frontier = set(), {os.getpid()}
    while frontier:
        mine |= frontier
        frontier = {pid for pid, (ppid, _, _) in procs.items() if ppid in frontier} - mine
    ticks = sum(
        t for pid, (_, name, t) in procs.items() if pid in mine and name.startswith("chrom")
    )
    return ticks / os.sysconf("SC_CLK_TCK")


def timed_runs(
    context, worker, label: str
) -> tuple[list[float], list[float], list[dict], ThreadingHTTPServer]:
    """Three pages of new bytes each (a re-capture of known bytes would send nothing): the
    archive times, the bare in-page fetch of the same URLs, the phases; the last site is left up."""
    runs, floors, phases = [], [], []
    for run in range(3):
        server = timing_site(100, 50 * 1024, seed=f"timing-{label}-{run}")
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("load")
        floors.append(page.evaluate(FETCH_ALL))
        cpu = browser_cpu()
        result, took = archive(context, worker, url)
        runs.append(took)
        phases.append({**progress_of(worker, url), "browser_cpu_s": round(browser_cpu() - cpu, 2)})
        page.close()
        if run < 2:
            server.shutdown()
    return runs, floors, phases, server


def capture_time(context, worker, cli, rules: str, workdir: Path) -> dict:
    runs, floors, phases, server = timed_runs(context, worker, "host")
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    singlefile = singlefile_save(cli, url, workdir / "timing.html", rules) if cli else None
    server.shutdown()
    return {"ours_s": statistics.median(runs), "runs": runs, "fetch_floor_s": statistics.median(floors),
            "singlefile_s": singlefile, "phases": phases}  # fmt: skip


def extension_share(playwright, ext_dir: Path, workdir: Path, rules: str) -> dict:
    """The same timing pages archived through the extension against the stand-in host
    (tests/extension/capture_fake_host.py: it writes each part to a file and answers, one message
    at a time, with the real host's part size): the browser's share of the capture time."""
    state, profile = workdir / "standin", workdir / "standin-profile"
    state.mkdir()
    (profile / "NativeMessagingHosts").mkdir(parents=True)
    manifest = fake_manifest(state, allowed_origins=[f"chrome-extension://{EXTENSION_ID}/"])
    (profile / "NativeMessagingHosts" / "com.pagekeeper.host.json").write_text(json.dumps(manifest))
    (state / "config.json").write_text(json.dumps({"part_bytes": 8 * 2**20}))
    context, worker = launch(playwright, ext_dir, profile, rules, workdir / "standin-home")
    runs, _floors, phases, server = timed_runs(context, worker, "standin")
    server.shutdown()
    context.close()
    return {"ours_s": statistics.median(runs), "runs": runs, "phases": phases}


def progress_of(worker, url: str) -> dict:
    """ms from the start to the end of each capture phase, and the ms the send loop waited on
    the page's reads and on the host's replies (storage.session, capture/progress.js)."""
    return worker.evaluate(
        """async (u) => { const all = await chrome.storage.session.get(null);
             const p = Object.values(all).find((p) => p?.url === u);
             return { ...(p?.timings ?? {}), waits: p?.waits ?? {} }; }""",
        url,
    )


def large_page(context, worker) -> dict:
    server = timing_site(300, 500 * 1024)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    result, took = archive(context, worker, url)
    page.close()
    server.shutdown()
    return {
        "seconds": took,
        **(result.get("resources") or {"stored": "?", "missing": "?", "bytes_total": "?"}),
    }


# ---- the run ---------------------------------------------------------------------------------


def fidelity(context, worker, info, cli, workdir: Path, pages: list[dict], daemon: str,
             shots: Path | None = None) -> list[dict]:  # fmt: skip
    rows = []
    for page_info in pages:
        url = page_info["url"]
        page = context.new_page()
        page.goto(url)
        settle(page, scripted=True)
        live = page.screenshot()
        result, took = archive(context, worker, page.url)
        page.close()
        row = {"id": page_info["id"], "url": url, "capture_s": took, "live": live,
               "version_url": result["version_url"], "resources": result.get("resources")}  # fmt: skip
        if cli:
            out = workdir / f"{page_info['id']}.html"
            row["singlefile_s"] = singlefile_save(cli, url, out, info["rules"])
            row["singlefile_file"] = out if out.exists() else None
        rows.append(row)
    control(info, "/mode?set=gone")
    for row in rows:
        address = open_copy(context, row["version_url"])
        before = control(info, "/log?since=0")["seq"]
        (opened, copy), outside = shot_of(context, address, False, (daemon, "data:"))
        row["ours"] = score(context, row["live"], copy)
        row["ours_opened"] = score(context, row["live"], opened)
        save(shots, row["id"], live=row["live"], ours=copy, ours_opened=opened)
        reached = [
            e["url"]
            for e in control(info, f"/log?since={before}")["log"]
            if site_of(e["url"]) in SITES
        ]
        row["ours_outside"] = len(outside) + len(reached)
        row["ours_outside_urls"] = outside + reached
        if row.get("singlefile_file"):
            before = control(info, "/log?since=0")["seq"]
            (copy,), outside = shot_of(context, row["singlefile_file"].as_uri(), True, ("file:", "data:", "blob:"))  # fmt: skip
            row["singlefile"] = score(context, row["live"], copy)
            save(shots, row["id"], singlefile=copy)
            reached = [
                e["url"]
                for e in control(info, f"/log?since={before}")["log"]
                if site_of(e["url"]) in SITES
            ]
            row["singlefile_outside"] = len(outside) + len(reached)
    control(info, "/mode?set=live")
    return rows


def fmt(value, spec: str = ".4f") -> str:
    return "-" if value is None else format(value, spec)


def missing_count(resources: dict) -> str:
    missing = resources.get("missing")
    return str(len(missing) if isinstance(missing, list) else missing)


def save(folder: Path | None, page_id: str, **shots: bytes) -> None:
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
        for name, png in shots.items():
            (folder / f"{page_id}-{name}.png").write_bytes(png)


def report(
    rows: list[dict], timing: dict | None, large: dict | None, share: dict | None = None
) -> None:
    print(
        "page                 split      ours    opened  single  ours-sf  outside ours/sf  stored/missing  capture s"
    )
    for split, ids in (("tune", TUNE), ("held-out", HELD_OUT)):
        chosen = [r for r in rows if r["id"] in ids]
        for r in chosen:
            sf = r.get("singlefile")
            gap = None if sf is None else r["ours"] - sf
            res = r.get("resources") or {}
            outside = f"{r['ours_outside']} / {r.get('singlefile_outside', '-')}"
            stored = f"{res.get('stored', '?')} / {missing_count(res)}"
            print(f"{r['id']:20} {split:9} {fmt(r['ours']):>6}  {fmt(r['ours_opened']):>6}  {fmt(sf):>6}  {fmt(gap, '+.4f'):>7}"
                  f"  {outside:>15}  {stored:>14}  {r['capture_s']:9.2f}")  # fmt: skip
        if chosen:
            sfs = [r["singlefile"] for r in chosen if r.get("singlefile") is not None]
            ours = statistics.mean(r["ours"] for r in chosen)
            opened = statistics.mean(r["ours_opened"] for r in chosen)
            behind = sum(1 for r in chosen if r.get("singlefile") is not None and r["ours"] < r["singlefile"])  # fmt: skip
            print(f"{'mean ' + split:20} {'':9} {ours:.4f}  {opened:.4f}  "
                  f"{fmt(statistics.mean(sfs) if sfs else None):>6}  behind SingleFile on {behind} of {len(chosen)}")  # fmt: skip
    for r in rows:
        if r["ours_outside_urls"]:
            print(f"  outside requests from our copy of {r['id']}: {r['ours_outside_urls'][:5]}")
    if timing:
        runs = ", ".join(f"{x:.2f}" for x in timing["runs"])
        floor = timing["fetch_floor_s"]
        print(f"\ncapture time, 100 resources / 5 MB: ours {timing['ours_s']:.2f} s (median of {runs};"
              f" goal <= 1.5 s); bare in-page fetch of the same URLs {floor:.2f} s"
              f" (ours / fetch = {timing['ours_s'] / max(floor, 1e-3):.1f}x)")  # fmt: skip
        print(f"  phases (ms from the start to each end): {timing['phases']}")
        if timing["singlefile_s"]:
            sf = timing["singlefile_s"]
            print(f"  SingleFile CLI on the same page: {sf:.2f} s, its browser start included"
                  f" (ours / SingleFile = {timing['ours_s'] / sf:.2f})")  # fmt: skip
    if share:
        runs = ", ".join(f"{x:.2f}" for x in share["runs"])
        print(f"  the extension's share: the same pages against the stand-in host (writes parts to files):"
              f" {share['ours_s']:.2f} s (median of {runs}); phases {share['phases']}")  # fmt: skip
    if large:
        print(f"large page, 300 resources / 150 MB: {large['seconds']:.1f} s, stored {large['stored']},"
              f" missing {missing_count(large)}, bytes_total {large['bytes_total']}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", help="comma-separated page ids (default: all)")
    parser.add_argument("--no-singlefile", action="store_true")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--no-large", action="store_true")
    parser.add_argument("--shots", type=Path, help="save live/ours/singlefile screenshots here")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists() or not DEV.exists():
        print(f"skipped: needs {CHROMIUM} and {DEV}")
        return 0

    pages = json.loads((DEV / "pages.json").read_text())
    wanted = set(args.pages.split(",")) if args.pages else set(TUNE + HELD_OUT)
    pages = [p for p in pages if p["id"] in wanted]
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        workdir = Path(tmp)
        replay, info = start_replay(workdir)
        home, profile = workdir / "home", workdir / "profile"
        home.mkdir()
        profile.mkdir()
        ext_dir = build_extension.build(workdir / "dist")["chromium"]
        port = start_daemon(home, profile)
        cli = None if args.no_singlefile else singlefile_cli(workdir)
        if not args.no_singlefile and cli is None:
            print("SingleFile could not be installed (npm): baseline left out")
        try:
            with sync_playwright() as p:
                context, worker = launch(p, ext_dir, profile, info["rules"], home)
                daemon = f"http://127.0.0.1:{port}/"
                rows = fidelity(context, worker, info, cli, workdir, pages, daemon, args.shots)
                timing = None if args.no_timing else capture_time(context, worker, cli, info["rules"], workdir)  # fmt: skip
                large = None if args.no_large else large_page(context, worker)
                context.close()
                share = (
                    None if args.no_timing else extension_share(p, ext_dir, workdir, info["rules"])
                )
        finally:
            pk(home, "stop")
            replay.terminate()
        report(rows, timing, large, share)
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
