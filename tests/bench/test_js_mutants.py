"""The ES-module mutants of tests/bench/mutate.py (js_mutants.py): each operator makes the one
change it names, never inside a string, a template's text, a regular expression or a comment,
keeps every line where it was, and every mutant of the extension's modules is still JavaScript
(a mutant that does not parse would fail its tests and be counted as killed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import js_mutants  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def mutants(source: str) -> dict[str, str]:
    """{what: mutant text} of every mutant of ``source``."""
    return {s.what: js_mutants.mutant_text(source, s.index) for s in js_mutants.sites(source, None)}


def test_each_operator_makes_the_one_change_it_names():
    got = mutants("if (a <= b && c !== 2) x.y(1);\nwhile (ok || done) return true;\n")
    assert (
        got["compare <= → <"] == "if (a < b && c !== 2) x.y(1);\nwhile (ok || done) return true;\n"
    )
    assert got["compare !== → ==="].startswith("if (a <= b && c === 2)")
    assert got["logic && → ||"].startswith("if (a <= b || c !== 2)")
    assert got["logic || → &&"].endswith("while (ok && done) return true;\n")
    assert got["negate if (a <= b && c !== 2)"].startswith("if (!(a <= b && c !== 2)) x.y(1);")
    assert got["number 2 → 3"].startswith("if (a <= b && c !== 3)")
    assert got["number 1 → 2"].startswith("if (a <= b && c !== 2) x.y(2);")
    assert got["drop statement x.y(1)"].startswith("if (a <= b && c !== 2) ;\n")
    assert got["drop return true"].endswith("while (ok || done) ;\n")
    assert got["bool true → false"].endswith("return false;\n")


def test_an_await_a_throw_and_a_statement_on_its_own_line_are_dropped():
    source = "async function f() {\n  await store.set({ a: 1 });\n  x = await g();\n  throw new Error('no');\n}\n"
    got = mutants(source)
    assert got["drop statement await store.set({ a: 1 })"] == source.replace(
        "await store.set({ a: 1 });", ";"
    )
    assert got["drop await (await g();)"] == source.replace("await g()", "g()")
    assert got["drop throw new Error('no')"] == source.replace("throw new Error('no');", ";")
    assert got["drop statement x = await g()"] == source.replace("x = await g();", ";")


def test_a_statement_spanning_lines_is_dropped_with_its_lines_kept():
    source = "f();\nremoveListener(a,\n  b);\ng();\n"
    got = mutants(source)["drop statement removeListener(a, b)"]
    assert got == "f();\n;\n\ng();\n"


def test_object_members_methods_and_declarations_are_not_statements():
    source = "const o = {\n  a,\n  b: 1,\n  m(x) {\n    return x;\n  },\n};\n"
    whats = [s.what for s in js_mutants.sites(source, None)]
    assert not [w for w in whats if w.startswith("drop statement")], whats


def test_strings_template_text_regexes_and_comments_are_never_mutated():
    source = (
        "// a < b && true\n/* 1 === 2 */\n"
        "const s = 'a < b' + \"c && d\" + `e || 1 ${n < 2} true`;\n"
        "const r = /a<b|1/g.test(s) ? x / 2 : 0;\n"
    )
    whats = [s.what for s in js_mutants.sites(source, None)]
    assert whats == ["compare < → <=", "number 2 → 3", "number 2 → 3", "number 0 → 1"]
    # the division after `x` is a division, not a regular expression: its 2 is seen
    assert js_mutants.mutant_text(source, 0).count("${n <= 2}") == 1


def test_numbers_each_form_plus_one():
    got = mutants("a(0x10, 2_000, 0.5, 1e3);\n")
    assert "number 0x10 → 0x11" in got and "number 2_000 → 2001" in got
    assert "number 0.5 → 1.5" in got and "number 1e3 → 1001.0" in got


def test_lines_select_mutants_by_the_source_line_and_keep_their_numbers():
    source = "a(1);\nb(2);\nc(3);\n"
    every = js_mutants.sites(source, None)
    second = js_mutants.sites(source, (2, 2))
    assert [s.line for s in second] == [2, 2] and {s.index for s in second} < {
        s.index for s in every
    }
    for s in second:  # the number names the same mutant with or without --lines
        assert js_mutants.mutant_text(source, s.index).startswith("a(1);\n")
        assert js_mutants.mutant_text(source, s.index) != source


MODULES = sorted((ROOT / "extension").rglob("*.js"))


@pytest.mark.skipif(
    not (shutil.which("node") and (ROOT / "node_modules" / "acorn").exists()),
    reason="needs node and node_modules (make node_modules/.installed)",
)
def test_every_mutant_of_the_extension_parses_and_keeps_its_lines():
    texts = []
    for path in MODULES:
        source = path.read_text()
        for site in js_mutants.sites(source, None):
            text = js_mutants.mutant(source, site.index)
            assert text.count("\n") == source.count("\n") + 1, (path.name, site.what)
            assert text != js_mutants.MARKER + source, (path.name, site.what)
            texts.append([f"{path.name}: {site.what}", text])
    assert len(texts) > 500
    script = """
      const acorn = require('acorn');
      const all = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const bad = [];
      for (const [name, text] of all) {
        try { acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'module' }); }
        catch (e) { bad.push(`${name}: ${e.message}`); }
      }
      process.stdout.write(JSON.stringify(bad));
    """
    done = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == []
