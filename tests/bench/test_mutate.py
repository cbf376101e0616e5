"""The statement-drop runner (tests/bench/mutate.py) never leaves a mutant in the source: it
writes the original back at the end, when a stop signal arrives (SIGTERM, SIGINT, SIGHUP; a
run in the background too, where the shell ignores SIGINT), and, after a run killed where no
handler runs (SIGKILL), when the next run starts.

Each test runs the real script on a small module and a slow test file in a temporary folder,
and signals it while a mutant stands in the module's place."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import mutate  # noqa: E402

SCRIPT = Path(__file__).with_name("mutate.py")

MODULE = '''"""A module with two statements to drop."""


def check(value):
    if value < 0:
        raise ValueError(value)
    print(value)
    return value
'''

# Slow enough that a signal arrives while a mutant is in place; a mark file says that a test
# run on a mutant has begun, another that it ran to its end.
TESTS = """import time
from pathlib import Path

import pytest

from target import check


def test_check():
    mutated = Path("target.py").read_text().startswith("# MUTANT")
    if mutated:
        Path("started").write_text("")
    time.sleep(0.6)
    if mutated:
        Path("finished").write_text("")
    with pytest.raises(ValueError):
        check(-1)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "target.py").write_text(MODULE)
    (tmp_path / "test_target.py").write_text(TESTS)
    return tmp_path


def _start(project: Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), "target.py", "test_target.py"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **kwargs,
    )


def _wait_for_a_mutant(project: Path, proc: subprocess.Popen) -> None:
    """Until the module holds a mutant and its test run has begun."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the run ended first: {proc.stdout.read()}")
        if (project / "started").exists():
            return
        time.sleep(0.02)
    pytest.fail("no mutant was written in 30 s")


def _listed(project: Path, module: str) -> str:
    """What ``mutate.py MODULE test_target.py --list`` prints in ``project`` (a start: it
    restores first a module that a killed run left mutated)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), module, "test_target.py", "--list"],
        cwd=project, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def _assert_restored(project: Path) -> None:
    assert (project / "target.py").read_text() == MODULE
    assert not mutate.saved_path(project / "target.py").exists()
    assert not list(project.glob(".*mutate-part"))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_stopped_by_a_signal_writes_the_original_back(project, sig):
    proc = _start(project)
    _wait_for_a_mutant(project, proc)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    assert f"stopped by {sig.name}" in out
    assert "after 0 of 2 mutants" in out  # how far it got
    _assert_restored(project)


def test_a_run_in_the_background_restores_on_sigint_too(project):
    """A job started with ``&`` has SIGINT ignored by its shell; the run still stops on it."""
    proc = _start(project, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    _wait_for_a_mutant(project, proc)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    _assert_restored(project)


def test_a_stopped_run_kills_the_test_run_under_way(project):
    proc = _start(project)
    _wait_for_a_mutant(project, proc)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    time.sleep(1.0)  # longer than the test's sleep: a test run left alive would finish it
    assert not (project / "finished").exists()


def test_the_next_run_restores_a_module_a_killed_run_left_mutated(project):
    proc = _start(project)
    _wait_for_a_mutant(project, proc)
    proc.kill()  # no handler runs: the mutant stays, its original kept beside it
    proc.communicate(timeout=30)
    assert (project / "target.py").read_text().startswith(mutate.MARKER)
    assert mutate.saved_path(project / "target.py").read_text() == MODULE

    listed = _listed(project, "target.py")
    assert "restored target.py" in listed
    _assert_restored(project)
    assert "drop raise" in listed  # the sites of the original, not of the mutant


def test_a_mutant_without_its_original_is_refused_not_taken_for_the_source(project):
    module = project / "target.py"
    module.write_text(mutate.mutant(MODULE, 0))
    with pytest.raises(SystemExit, match="holds a mutant and its original is gone"):
        mutate.recover(module)
    assert module.read_text().startswith(mutate.MARKER)  # left for the user to restore


def test_a_kept_copy_beside_an_unmutated_module_is_only_removed(project):
    """A run stopped after it wrote the original back, before it forgot its copy: the module
    (maybe edited since) is left as it is."""
    module = project / "target.py"
    module.write_text(MODULE + "# edited since\n")
    mutate.save_original(module, MODULE)
    assert "was not mutated" in mutate.recover(module)
    assert module.read_text() == MODULE + "# edited since\n"
    assert not mutate.saved_path(module).exists()


def test_a_finished_run_leaves_the_original_and_no_copy(project):
    proc = _start(project)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "made 2, killed 1 (+0 by time-out), survived 1" in out  # print() dropped survives
    _assert_restored(project)


JS_MODULE = """// A module with a comparison, a return and a statement to mutate.
export function check(value) {
  if (value < 0) throw new Error('negative');
  console.log(value);
  return value;
}
"""

# The browser tests of an ES module run in pytest too; this one reads the module's text.
JS_TESTS = """import time
from pathlib import Path


def test_check():
    text = Path("target.js").read_text()
    if text.startswith("// MUTANT"):
        Path("started").write_text("")
    time.sleep(0.6)
    assert "if (value < 0) throw new Error('negative');" in text
"""


@pytest.fixture
def js_project(tmp_path: Path) -> Path:
    (tmp_path / "target.js").write_text(JS_MODULE)
    (tmp_path / "test_target.py").write_text(JS_TESTS)
    return tmp_path


def _start_js(project: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), "target.js", "test_target.py", *args],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_an_es_module_is_restored_on_a_signal_and_after_a_kill(js_project):
    module = js_project / "target.js"
    proc = _start_js(js_project)
    _wait_for_a_mutant(js_project, proc)
    assert module.read_text().startswith(mutate.marker_of(module))  # a // comment in JavaScript
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "stopped by SIGTERM" in out, out
    assert module.read_text() == JS_MODULE and not mutate.saved_path(module).exists()

    (js_project / "started").unlink()
    proc = _start_js(js_project)
    _wait_for_a_mutant(js_project, proc)
    proc.kill()
    proc.communicate(timeout=30)
    assert module.read_text().startswith("// MUTANT")
    listed = _listed(js_project, "target.js")
    assert "restored target.js" in listed
    assert module.read_text() == JS_MODULE and not mutate.saved_path(module).exists()
    assert "compare < → <=" in listed  # the original's mutants, not the mutant's


def test_an_es_module_run_counts_what_its_tests_kill(js_project):
    """Its test reads only the `if … throw` line: every mutant there is killed, the others
    (the dropped console.log, the dropped return) survive and are named."""
    proc = _start_js(js_project)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    assert "SURVIVED" in out and "drop statement console.log(value)" in out
    assert "drop return value" in out and "compare < → <=" not in out.split("made")[0]
    assert "survived 2;" in out, out
    assert (js_project / "target.js").read_text() == JS_MODULE


def test_mutants_picks_survivors_by_their_numbers(js_project):
    listed = subprocess.run(
        [sys.executable, str(SCRIPT), "target.js", "--mutants", "1,4", "test_target.py", "--list"],
        cwd=js_project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["1", "4"]
    assert "drop statement console.log(value)" in listed.stdout
