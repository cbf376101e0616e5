"""Fixtures for host tests: real daemons in tmp homes (tests/host/daemon_fixtures.py)."""

from tests.host.daemon_fixtures import daemon, home  # noqa: F401
