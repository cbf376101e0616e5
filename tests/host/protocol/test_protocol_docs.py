"""host/PROTOCOL.md documents every message type and every error code, and nothing that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.errors import all_codes
from host.protocol.dispatch import HANDLERS, merge_handlers
from host.protocol.envelope import PROTOCOL_VERSION

DOC = (Path(__file__).resolve().parents[3] / "host" / "PROTOCOL.md").read_text("utf-8")


def documented_types() -> set[str]:
    return set(re.findall(r"^### `([a-z_]+)`", DOC, flags=re.M))


def test_every_handler_is_documented():
    missing = set(HANDLERS) - documented_types()
    assert not missing, f"document these message types in host/PROTOCOL.md: {sorted(missing)}"


def test_no_documented_type_without_handler():
    extra = documented_types() - set(HANDLERS)
    assert not extra, f"PROTOCOL.md documents types with no handler: {sorted(extra)}"


def test_every_error_code_is_documented():
    table = set(re.findall(r"^\| `([a-z_]+)` \|", DOC, flags=re.M))
    assert set(all_codes()) <= table, sorted(set(all_codes()) - table)


# Protocol version 1's codes: append-only, so each of them must stay (renaming one breaks clients).
CODES_V1 = {
    "internal",
    "invalid_input",
    "invalid_url",
    "decode_error",
    "bad_request",
    "unknown_type",
    "not_found",
    "too_large",
    "storage",
    "unavailable",
    "fetch_failed",
    "forbidden",
}


def test_the_issues_minimum_message_types_exist():
    required = {"ping", "nav_error", "archive_page", "versions", "similar", "search", "open"}
    required |= {"check", "stats", "get_token", "visited"}
    assert required <= set(HANDLERS), sorted(required - set(HANDLERS))


def test_error_codes_are_append_only():
    assert set(all_codes()) >= CODES_V1, sorted(CODES_V1 - set(all_codes()))


def test_protocol_version_is_stated():
    assert f"Protocol version: **{PROTOCOL_VERSION}**" in DOC


def test_one_dict_and_duplicates_fail():

    assert all(callable(h) for h in HANDLERS.values())
    with pytest.raises(RuntimeError, match="defined twice"):
        merge_handlers(("core", "core"))
