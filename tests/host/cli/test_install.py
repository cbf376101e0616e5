"""``pagekeeper doctor`` (host/cli/commands/install.py): a missing manifest names the command
that writes it, and following that advice (with the same scope) makes the manifest ok; a
mistyped --profile-dir is a typed error."""

from __future__ import annotations

import contextlib
import json

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


def test_install_into_a_mistyped_profile_dir_is_a_typed_error_and_writes_nothing(capsys, tmp_path):
    """A profile dir whose folder does not exist is a typo: invalid_input (exit 2), no folder
    made; a new profile dir inside an existing folder is still installed into (a browser makes
    its --user-data-dir at its first start), and a file is no profile dir."""
    home = make_home(tmp_path)
    typo = tmp_path / "no-such-folder" / "profile"
    scope = ["--browser", "chromium", "--home", str(home), "--json"]
    assert main(["install", *scope, "--profile-dir", str(typo)]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "invalid_input" and "does not exist" in error["message"]
    assert not typo.parent.exists()
    afile = tmp_path / "a-file"
    afile.write_text("")
    assert main(["install", *scope, "--profile-dir", str(afile)]) == 2
    assert "not a folder" in json.loads(capsys.readouterr().out)["error"]["message"]
    fresh = tmp_path / "fresh-profile"
    assert main(["install", *scope, "--profile-dir", str(fresh)]) == 0
    assert (fresh / "NativeMessagingHosts").is_dir()
