"""Benchmark: how fast PageKeeper's error page is on screen after a failed navigation (issue 7).

Run: ``.venv/bin/python tests/bench/bench_error_page.py [--rounds N]``. Needs Debian's Chromium.

Real parts only: the built extension in headless Chromium, the real ``pagekeeper native`` host
installed into the profile, a real daemon. Every typo domain fails DNS on this machine.

* shown after the error event, warm (goal <= 150 ms): the page's own figure, ``data-shown-ms``
  = first frame after render − ``webNavigation.onErrorOccurred``'s timeStamp;
* from navigation start to the page on screen, ours vs. Chromium's own error page in a bare
  profile (the baseline, same run, same polling of ``page.url``): what the extension adds.

The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.chromium import FLAGS  # noqa: E402
from tests.extension.conftest import CHROMIUM, EXTENSION_ID, build_extension, free_port, launch, pk  # noqa: E402

WORDS = ("gooogle", "wikipeda", "exmaple", "githbu", "yahooo", "amazn", "facebok", "reddti")
OURS = f"chrome-extension://{EXTENSION_ID}/error/error.html"


def typo_urls(rounds: int) -> list[str]:
    """Distinct failing URLs (the extension ignores a repeat of one failure for 4 s)."""
    return [f"http://{WORDS[n % len(WORDS)]}{n}.com/" for n in range(rounds)]


def navigate(page, url: str) -> None:
    with contextlib.suppress(PlaywrightError):  # net::ERR_NAME_NOT_RESOLVED, or our redirect
        page.goto(url, wait_until="commit", timeout=10000)


def blank(page) -> None:
    """Leave the last page (an error page may still be loading: wait for the blank one)."""
    with contextlib.suppress(PlaywrightError):
        page.goto("about:blank", wait_until="commit", timeout=10000)
    wait_url(page, "about:blank", time.perf_counter())
    page.wait_for_timeout(100)  # let the tab settle


def wait_url(page, prefix: str, start: float, limit: float = 10.0) -> float:
    """Seconds from ``start`` until the tab shows a URL starting with ``prefix``."""
    while not page.url.startswith(prefix):
        if time.perf_counter() - start > limit:
            raise TimeoutError(f"{prefix} not shown within {limit} s (at {page.url})")
        page.wait_for_timeout(5)
    return time.perf_counter() - start


def ours(context, urls: list[str]) -> tuple[list[int], list[float]]:
    """(data-shown-ms per failure, wall ms from navigation start to our page rendered)."""
    page = context.new_page()
    navigate(page, "http://warmup-typo.com/")  # the first lookup loads the dictionary
    page.wait_for_selector("html[data-shown-ms]", timeout=15000)
    shown, wall = [], []
    for url in urls:
        blank(page)
        start = time.perf_counter()
        navigate(page, url)
        wait_url(page, OURS, start)
        page.wait_for_selector("html[data-shown-ms]", timeout=10000)
        wall.append((time.perf_counter() - start) * 1000)
        shown.append(int(page.locator("html").get_attribute("data-shown-ms")))
    page.close()
    return shown, wall


def chromium_own(playwright, profile: Path, urls: list[str]) -> list[float]:
    """Wall ms from navigation start to Chromium's own error page, bare profile."""
    context = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=str(CHROMIUM), headless=True, args=FLAGS
    )
    page = context.new_page()
    navigate(page, "http://warmup-typo.com/")
    wait_url(page, "chrome-error://", time.perf_counter())
    wall = []
    for url in urls:
        blank(page)
        start = time.perf_counter()
        navigate(page, url)
        wall.append(wait_url(page, "chrome-error://", start) * 1000)
    context.close()
    return wall


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered):.0f} ms, p90 {p90:.0f} ms, n={len(ordered)}"


def run(rounds: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="pk-bench-error-"))
    extension = build_extension.build(tmp / "dist")["chromium"]
    home, profile = tmp / "home", tmp / "profile"
    home.mkdir()
    port = free_port()
    (home / "config.json").write_text(json.dumps({"port": port}))
    pk(home, "serve", "--port", str(port), "--detach")
    try:
        pk(home, "install", "--browser", "chromium", "--profile-dir", str(profile))
        env = {**os.environ, "PAGEKEEPER_HOME": str(home)}
        urls = typo_urls(rounds)
        with sync_playwright() as playwright:
            context = launch(playwright, extension, profile, env)
            try:
                shown, wall = ours(context, urls)
            finally:
                context.close()
            baseline = chromium_own(playwright, tmp / "bare", urls)
    finally:
        pk(home, "stop", check=False)
    return {"shown": shown, "wall": wall, "baseline": baseline}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is not installed (apt-get install chromium)")
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    found = run(args.rounds)
    median_shown = statistics.median(found["shown"])
    verdict = "ok" if median_shown <= 150 else "MISSED"
    print(f"== error page, warm, {args.rounds} distinct failing URLs")
    print(f"  shown after the error event: {summary(found['shown'])}  (goal <= 150 ms: {verdict})")
    print(f"  navigation start -> our page rendered: {summary(found['wall'])}")
    print(
        f"  baseline, navigation start -> Chromium's own error page: {summary(found['baseline'])}"
    )
    ratio = statistics.median(found["wall"]) / statistics.median(found["baseline"])
    print(f"  ratio ours / Chromium's own page (medians): {ratio:.2f}x")


if __name__ == "__main__":
    main()
