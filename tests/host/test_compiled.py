"""The compiled suggestion and extraction modules (host/compiled.py): chosen by the CLI and the
daemon only when every module is built for this Python from the tree's very sources and data, the
pure modules otherwise; the same answers either way.

The choice is made before the engine's first import, so each case runs in a fresh process.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
from pathlib import Path
from types import ModuleType

import pytest

import host.compiled as compiled_module
from host.cli.commands.install import render_doctor
from host.compiled import (
    MODULES,
    ROOT,
    cannot_build,
    running,
    runs_everywhere,
    stale_compiled,
    why_not,
)
from host.home import Home
from tests.host.daemon_fixtures import make_home, pk, start_daemon, stop_daemon

# a sample of the suggestion tests, run again on the compiled build
SAMPLE = (
    "tests/engine/urls/test_typos.py",
    "tests/engine/urls/test_suggest_tld.py",
    "tests/engine/urls/test_dictionary.py",
)
# and of the extraction's: the main text on the fixture pages (the block walk, the labelled
# filter), the context model, the visible text, the token counts (test_extract_speed.py, which
# swaps a module's function for a counting stand-in, is left out: a compiled module calls its
# own functions directly)
EXTRACT_SAMPLE = (
    "tests/engine/html/test_extract.py",
    "tests/engine/html/test_context.py",
    "tests/engine/html/test_visible.py",
    "tests/engine/html/test_tokens.py",
)
URLS = (
    "http://gooogle.com/",
    "http://face.book.com/",
    "http://githubcom.com/",
    "http://yaaho.com/",
)
CHOOSE = """
import json, sys
from pathlib import Path
from host.compiled import running, use_compiled
why = use_compiled(compiled=Path(sys.argv[1]))
print(json.dumps({"why": why, "first": sys.path[0]}))
if sys.argv[2:] == ["import"]:
    print(json.dumps(running()))
"""


def _copy(tmp_path: Path, extensions: bool = True) -> Path:
    """A copy of the tree's engine, with an empty file for each compiled module: an
    "extension" that fails if anything tries to import it."""
    compiled = tmp_path / "compiled"
    shutil.copytree(
        ROOT / "engine", compiled / "engine", ignore=shutil.ignore_patterns("__pycache__")
    )
    if extensions:
        for module in MODULES:
            (compiled / (module.replace(".", "/") + EXTENSION_SUFFIXES[0])).write_bytes(b"")
    return compiled


def _choose(compiled: Path, *args: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-c", CHOOSE, str(compiled), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_copy_built_from_these_sources_goes_first_on_the_import_path(tmp_path):
    compiled = _copy(tmp_path)
    assert _choose(compiled) == [{"why": "", "first": str(compiled)}]


def test_an_edited_source_falls_back_to_the_pure_modules(tmp_path):
    compiled = _copy(tmp_path)
    typos = compiled / "engine" / "urls" / "typos.py"
    typos.write_text(typos.read_text() + "# edited\n")
    # the empty extensions are never imported: the pure modules answer, and say why
    choice, build = _choose(compiled, "import")
    assert choice["why"] == "built from other sources (engine/urls/typos.py)"
    assert choice["first"] != str(compiled)
    assert build == {"build": "pure", "why": choice["why"]}


def test_a_changed_data_file_is_stale(tmp_path):
    compiled = _copy(tmp_path)
    lexicon = compiled / "engine" / "data" / "lexicon.txt.gz"
    data = lexicon.read_bytes()
    lexicon.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # same size, other bytes
    assert stale_compiled(ROOT, compiled) == ["engine/data/lexicon.txt.gz"]


@pytest.mark.parametrize("module", ["engine/urls/typos", "engine/html/extract"])
def test_a_module_not_built_for_this_python_falls_back(tmp_path, module):
    compiled = _copy(tmp_path)
    (compiled / (module + EXTENSION_SUFFIXES[0])).unlink()
    (choice,) = _choose(compiled)
    assert choice["why"] == f"not built for this Python (1 of {len(MODULES)} modules missing)"
    assert choice["first"] != str(compiled)


def test_no_copy_at_all_falls_back(tmp_path):
    (choice,) = _choose(tmp_path / "nothing")
    assert choice["why"] == "not built; `make compiled-engine` in a source checkout builds them"
    assert choice["first"] != str(tmp_path / "nothing")


def test_the_choice_comes_before_the_engine_or_not_at_all(tmp_path):
    compiled = _copy(tmp_path)
    code = "import engine.urls.typos; " + CHOOSE
    done = subprocess.run(
        [sys.executable, "-c", code, str(compiled)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    choice = json.loads(done.stdout)
    assert choice == {"why": "the engine was imported before the choice", "first": choice["first"]}
    assert choice["first"] != str(compiled)


def test_the_makefile_compiles_the_modules_the_choice_checks():
    makefile = (ROOT / "Makefile").read_text()
    listed = re.search(r"COMPILED_MODULES := (.*?)\n(?!\t)", makefile, re.S)
    assert listed is not None
    paths = listed.group(1).replace("\\", " ").split()
    assert sorted(p.removesuffix(".py").replace("/", ".") for p in paths) == sorted(MODULES)


def test_doctor_says_which_build_runs():
    base = {"ok": True, "manifests": [], "token_readable": True, "daemon": {"running": False}}
    pure_build = {"build": "pure", "why": "no C compiler (gcc)"}
    compiled_build = {"build": "compiled", "why": ""}
    pure = {**base, "suggestions": pure_build, "extraction": pure_build}
    compiled = {**base, "suggestions": compiled_build, "extraction": compiled_build}
    assert render_doctor(pure).endswith(
        "\nsuggestions: pure Python (no C compiler (gcc))"
        "\nextraction: pure Python (no C compiler (gcc))"
    )
    assert render_doctor(compiled).endswith(
        "\nsuggestions: compiled (mypyc)\nextraction: compiled (mypyc)"
    )
    # the areas apart: each line says its own area's build
    mixed = {**base, "suggestions": compiled_build, "extraction": pure_build}
    assert render_doctor(mixed).endswith(
        "\nsuggestions: compiled (mypyc)\nextraction: pure Python (no C compiler (gcc))"
    )


def test_each_area_is_told_by_its_own_modules(monkeypatch):
    """doctor's ``extraction`` is the extractor's build, not the suggester's: in this process
    the engine is pure; a compiled extractor in its place is told apart."""
    compiled = ModuleType("engine.html.extract")
    compiled.__loader__ = ExtensionFileLoader("engine.html.extract", "extract.so")
    monkeypatch.setitem(sys.modules, "engine.html.extract", compiled)
    assert running("extraction") == {"build": "compiled", "why": ""}
    assert running("suggestions")["build"] == "pure"
    assert runs_everywhere() == {
        "suggestions": running("suggestions"),
        "extraction": {"build": "compiled", "why": ""},
    }


# The first test that asks for `built` waits for the build in its own time: its limit is the
# build's and its own run's (pytest-timeout counts a fixture's setup in the test that needs it).
BUILD_S, RUN_S = 900, 600
WITH_BUILD = pytest.mark.timeout(BUILD_S + RUN_S)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The compiled build: `make compiled-engine`'s when it is built from these sources, else
    one made here (mypyc at -O0: the same code, built in less time); skipped where it cannot
    be built (no C compiler, no Python headers, no mypyc)."""
    if not why_not():
        return ROOT / "build" / "compiled"
    if why := cannot_build():
        pytest.skip(f"the compiled modules cannot be built here: {why}")
    mypyc = Path(sys.executable).with_name("mypyc")
    if not mypyc.exists():
        pytest.skip("the compiled modules cannot be built here: no mypyc (pip install mypy)")
    out = _copy(tmp_path_factory.mktemp("built"), extensions=False)
    sources = [m.replace(".", "/") + ".py" for m in MODULES]
    env = {**os.environ, "MYPYC_OPT_LEVEL": "0"}
    subprocess.run(
        [str(mypyc), *sources], cwd=out, env=env, capture_output=True, timeout=BUILD_S, check=True
    )
    assert why_not(ROOT, out) == ""
    return out


@pytest.mark.slow
@WITH_BUILD
@pytest.mark.parametrize(
    ("area", "sample"), [("suggestions", SAMPLE), ("extraction", EXTRACT_SAMPLE)]
)
def test_a_sample_of_each_areas_tests_passes_on_the_compiled_build(built, area, sample):
    code = (
        "import sys; from pathlib import Path; from host.compiled import use_compiled, running; "
        "assert use_compiled(compiled=Path(sys.argv[1])) == ''; import engine.urls.suggest; "
        "import engine.html.extract, engine.html.visible; "
        "assert running(sys.argv[2])['build'] == 'compiled', running(sys.argv[2]); import pytest; "
        "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:xdist', *sys.argv[3:]]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(built), area, *sample],
        cwd=ROOT, capture_output=True, text=True, timeout=RUN_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


@pytest.mark.slow
@WITH_BUILD
def test_the_cli_answers_the_same_on_both_builds(built, tmp_path):
    code = (
        "import json, sys; from pathlib import Path; from host.compiled import use_compiled, running\n"
        "if sys.argv[1]: use_compiled(compiled=Path(sys.argv[1]))\n"
        "from host.cli.entry import main\n"
        "for url in sys.argv[3:]: main(['--home', sys.argv[2], 'suggest', url, '--json'])\n"
        "print(json.dumps(running()))"
    )
    answers = {}
    for which in ("", str(built)):
        done = subprocess.run(
            [sys.executable, "-c", code, which, str(tmp_path), *URLS],
            cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
        )  # fmt: skip
        *lines, build = done.stdout.splitlines()
        answers[json.loads(build)["build"]] = lines
    assert set(answers) == {"pure", "compiled"}
    assert answers["compiled"] == answers["pure"]
    assert len(answers["pure"]) == len(URLS)


def _as_chosen_here() -> dict:
    """What an entry point that chose reports for this tree's own ``build/compiled``."""
    why = why_not()
    return {"build": "compiled", "why": ""} if not why else {"build": "pure", "why": why}


def test_the_cli_chooses_before_its_first_engine_import(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "host.cli", "--home", str(tmp_path), "doctor", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    doctor = json.loads(done.stdout)
    assert doctor["suggestions"] == doctor["extraction"] == _as_chosen_here()


def test_the_daemon_chooses_before_its_first_engine_import():
    code = (
        "import json, runpy, sys; sys.argv = ['pagekeeper serve', '--help']\n"
        "try: runpy.run_module('host.daemon', run_name='__main__')\n"
        "except SystemExit: pass\n"
        "from host.compiled import runs_everywhere; print(json.dumps(runs_everywhere()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == {"suggestions": _as_chosen_here(), "extraction": _as_chosen_here()}


def test_a_machine_without_a_compiler_or_the_headers_cannot_build(monkeypatch, tmp_path, capsys):
    assert compiled_module.cannot_build() == "" or "no " in compiled_module.cannot_build()
    monkeypatch.setattr(compiled_module.shutil, "which", lambda name: None)
    assert compiled_module.cannot_build().startswith("no C compiler")
    assert compiled_module.main(["can-build"]) == 1
    line = capsys.readouterr().out
    assert line.startswith("suggestions and extraction: the pure Python modules run (no C compiler")
    assert line.count("\n") == 1
    monkeypatch.setattr(compiled_module.shutil, "which", lambda name: name)
    monkeypatch.setattr(compiled_module.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    assert compiled_module.cannot_build().startswith("no Python headers")
    (tmp_path / "Python.h").write_text("")
    assert compiled_module.cannot_build() == ""


def test_a_copy_found_fresh_is_not_read_again_while_no_file_changes(tmp_path, monkeypatch):
    compiled = _copy(tmp_path)
    assert stale_compiled(ROOT, compiled) == []
    assert (compiled / "sources.stamp").is_file()

    def no_read(path):
        raise AssertionError(f"read {path} again")

    monkeypatch.setattr(Path, "read_bytes", no_read)
    assert stale_compiled(ROOT, compiled) == []


def _edit_same_size(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))


def test_a_copy_changed_after_it_was_found_fresh_is_stale(tmp_path):
    compiled = _copy(tmp_path)
    assert stale_compiled(ROOT, compiled) == []
    _edit_same_size(compiled / "engine" / "data" / "lexicon.txt.gz")
    assert stale_compiled(ROOT, compiled) == ["engine/data/lexicon.txt.gz"]


def test_a_source_changed_after_its_copy_was_found_fresh_is_stale(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "engine", root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    compiled = _copy(tmp_path)
    assert stale_compiled(root, compiled) == []
    _edit_same_size(root / "engine" / "urls" / "typos.py")
    assert stale_compiled(root, compiled) == ["engine/urls/typos.py"]


def test_a_stale_copy_keeps_no_stamp_and_is_compared_again(tmp_path):
    compiled = _copy(tmp_path)
    lexicon = compiled / "engine" / "data" / "lexicon.txt.gz"
    original = lexicon.read_bytes()
    _edit_same_size(lexicon)
    assert stale_compiled(ROOT, compiled) == ["engine/data/lexicon.txt.gz"]
    assert not (compiled / "sources.stamp").exists()
    lexicon.write_bytes(original)  # put back: the bytes decide, not the stamp
    assert stale_compiled(ROOT, compiled) == []


def test_a_stamp_that_cannot_be_written_leaves_nothing_behind(tmp_path, monkeypatch):
    compiled = _copy(tmp_path)

    def refuse(src, dst):
        raise PermissionError(dst)

    monkeypatch.setattr(os, "replace", refuse)
    assert stale_compiled(ROOT, compiled) == []
    assert sorted(p.name for p in compiled.iterdir() if p.is_file()) == []


def test_the_daemons_start_line_names_the_build_doctor_names(tmp_path):
    """A user reading a slow daemon's log can tell whether it runs the pure modules, and why:
    the start line says what doctor says, from the real daemon's log."""
    home = make_home(tmp_path)
    try:
        start_daemon(home)
    finally:
        stop_daemon(home)
    doctor = json.loads(pk(home, "doctor", "--json", check=False).stdout)
    (start,) = [
        line for line in Home(home).daemon_log.read_text().splitlines() if "serving on" in line
    ]
    said = compiled_module.described
    assert start.endswith(
        f"; suggestions: {said(doctor['suggestions'])}; extraction: {said(doctor['extraction'])}"
    )
    for area in ("suggestions", "extraction"):
        assert doctor[area]["build"] == "compiled" or doctor[area]["why"]  # pure says why


# -- the choice in process (the tests above make it in a fresh process, which the mutation
# runner cannot see; these hold each rule of it on its own) ---------------------------------


@pytest.fixture
def fresh_process(monkeypatch):
    """This process as an entry point sees it before the engine's first import: no
    ``engine`` module, its own import path and choice (all put back after)."""
    monkeypatch.delitem(sys.modules, "engine")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setitem(compiled_module.chosen, "why", "not chosen yet")


def test_a_fresh_copy_is_put_first_and_the_choice_kept(tmp_path, fresh_process):
    compiled = _copy(tmp_path)
    assert compiled_module.use_compiled(ROOT, compiled) == ""
    assert sys.path[0] == str(compiled) and compiled_module.chosen["why"] == ""


def test_a_stale_copy_is_not_put_on_the_path_and_the_reason_is_kept(tmp_path, fresh_process):
    compiled = _copy(tmp_path)
    _edit_same_size(compiled / "engine" / "urls" / "typos.py")
    why = compiled_module.use_compiled(ROOT, compiled)
    assert why == "built from other sources (engine/urls/typos.py)"
    assert str(compiled) not in sys.path and compiled_module.chosen["why"] == why


def test_after_the_engine_is_imported_even_a_fresh_copy_is_not_used(tmp_path, monkeypatch):
    """A module imported from one build and another from the other would mix two codes."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setitem(compiled_module.chosen, "why", "not chosen yet")
    compiled = _copy(tmp_path)
    why = compiled_module.use_compiled(ROOT, compiled)
    assert why == "the engine was imported before the choice"
    assert str(compiled) not in sys.path and compiled_module.chosen["why"] == why


def test_the_binary_runs_the_build_it_holds_and_touches_no_path(
    tmp_path, fresh_process, monkeypatch
):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    before = list(sys.path)
    assert compiled_module.use_compiled(ROOT, tmp_path / "nothing") == ""
    assert sys.path == before and compiled_module.chosen["why"] == ""


def test_running_names_the_build_by_how_the_modules_were_loaded(monkeypatch):
    import engine.urls.typos as typos  # noqa: PLC0415

    monkeypatch.setitem(compiled_module.chosen, "why", "no C compiler (gcc)")
    assert compiled_module.running() == {"build": "pure", "why": "no C compiler (gcc)"}
    monkeypatch.setitem(compiled_module.chosen, "why", "")  # chosen, yet the sources loaded
    assert compiled_module.running() == {
        "build": "pure",
        "why": "the compiled modules did not load",
    }
    loader = ExtensionFileLoader("engine.urls.typos", "typos" + EXTENSION_SUFFIXES[0])
    monkeypatch.setattr(typos, "__loader__", loader)
    assert compiled_module.running() == {"build": "compiled", "why": ""}
    assert compiled_module.described(compiled_module.running()) == "compiled (mypyc)"


def test_the_missing_modules_are_named_in_their_order(tmp_path):
    compiled = _copy(tmp_path)
    assert compiled_module.missing_modules(compiled) == []
    for module in (MODULES[5], MODULES[1]):
        (compiled / (module.replace(".", "/") + EXTENSION_SUFFIXES[0])).unlink()
    assert compiled_module.missing_modules(compiled) == [MODULES[1], MODULES[5]]
    assert (
        why_not(ROOT, compiled)
        == f"not built for this Python (2 of {len(MODULES)} modules missing)"
    )


def test_why_not_names_three_stale_files_and_nothing_when_fresh(tmp_path):
    compiled = _copy(tmp_path)
    assert why_not(ROOT, compiled) == ""
    assert why_not(ROOT, tmp_path / "nothing").startswith(
        f"not built; {compiled_module.BUILD_HINT}"
    )
    names = ("urls/typos.py", "urls/keyboard.py", "urls/segments.py", "urls/dictionary.py")
    for name in names:
        _edit_same_size(compiled / "engine" / name)
    shown = sorted(f"engine/{n}" for n in names)[:3]
    assert why_not(ROOT, compiled) == f"built from other sources ({', '.join(shown)})"


def test_a_source_with_no_copy_is_stale(tmp_path):
    """A file of the tree missing from the copy (added since the build) is named, not an error."""
    compiled = _copy(tmp_path)
    (compiled / "engine" / "urls" / "keyboard.py").unlink()
    assert stale_compiled(ROOT, compiled) == ["engine/urls/keyboard.py"]


def test_the_bytecode_cache_is_no_source(tmp_path):
    """``__pycache__`` differs between any two trees (each writes its own .pyc): not compared."""
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "engine", root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "engine" / "urls" / "__pycache__").mkdir()
    (root / "engine" / "urls" / "__pycache__" / "typos.cpython-311.pyc").write_bytes(b"pyc")
    assert stale_compiled(root, _copy(tmp_path)) == []


def test_a_stamp_that_cannot_be_created_leaves_the_answer_standing(tmp_path, monkeypatch):
    """No stamp file could be made at all (a folder the process cannot write): the copy is
    still judged fresh by its bytes, and nothing is left behind."""
    compiled = _copy(tmp_path)

    def refuse(self, *args, **kwargs):
        raise PermissionError(self)

    monkeypatch.setattr(Path, "write_text", refuse)
    assert stale_compiled(ROOT, compiled) == []
    assert not any(p.name.startswith("sources.stamp") for p in compiled.iterdir())


def test_the_named_compiler_or_plain_cc_can_build(monkeypatch, tmp_path):
    """mypyc calls the compiler Python was built with (sysconfig's CC, first word), else cc."""
    (tmp_path / "Python.h").write_text("")
    monkeypatch.setattr(compiled_module.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    config = {"CC": "clang-17 -pthread"}
    monkeypatch.setattr(compiled_module.sysconfig, "get_config_var", config.get)
    found: set[str] = {"clang-17"}
    monkeypatch.setattr(compiled_module.shutil, "which", lambda n: n if n in found else None)
    assert cannot_build() == ""
    found = {"cc"}
    assert cannot_build() == ""
    found = set()
    assert cannot_build() == "no C compiler (clang-17)"
    config.clear()  # no CC recorded: cc
    assert cannot_build() == "no C compiler (cc)"
    found = {"cc"}
    assert cannot_build() == ""


def test_the_makefile_entry_answers_by_exit_status(monkeypatch, capsys):
    monkeypatch.setattr(compiled_module, "why_not", lambda: "")
    assert compiled_module.main(["fresh"]) == 0
    monkeypatch.setattr(compiled_module, "why_not", lambda: "not built")
    assert compiled_module.main(["fresh"]) == 1
    monkeypatch.setattr(compiled_module, "cannot_build", lambda: "")
    assert compiled_module.main(["can-build"]) == 0
    assert capsys.readouterr().out == ""
    assert compiled_module.main(["fresh", "can-build"]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err == "usage: python -m host.compiled fresh | can-build\n"


def test_the_makefile_reads_the_answer_from_the_exit_status():
    """The Makefile runs ``python -m host.compiled fresh`` and acts on its status: the module's
    own entry must exit with :func:`main`'s answer, not 0 whatever it says."""
    done = subprocess.run(
        [sys.executable, "-m", "host.compiled", "neither"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "usage: python -m host.compiled fresh | can-build\n"
