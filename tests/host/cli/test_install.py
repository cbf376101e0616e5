"""``pagekeeper doctor`` (host/cli/commands/install.py): a missing manifest names the command
that writes it, and following that advice (with the same scope) makes the manifest ok."""

from __future__ import annotations

import contextlib

from host.cli.entry import main
from tests.host.daemon_fixtures import make_home


def test_doctor_names_the_fix_for_a_missing_manifest_and_the_fix_works(capsys, tmp_path):
    home, profile = make_home(tmp_path), tmp_path / "profile"
    scope = ["--browser", "chromium", "--profile-dir", str(profile), "--home", str(home)]
    assert main(["doctor", *scope]) == 1
    said = capsys.readouterr().out
    assert "chromium: missing; pagekeeper install writes it" in said, said
    assert main(["install", *scope]) == 0
    capsys.readouterr()
    main(["doctor", *scope])  # exit 1 still: no daemon runs in this home (doctor counts that)
    assert "chromium: ok" in capsys.readouterr().out


def test_each_scope_option_says_what_it_does(capsys):
    for command, verb in (("install", "install into"), ("uninstall", "remove it from")):
        with contextlib.suppress(SystemExit):  # argparse's --help exits
            main([command, "--help"])
        assert f"to {verb}" in " ".join(capsys.readouterr().out.split()), command
