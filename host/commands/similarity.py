"""CLI commands of this group (registered by host/cli.py)."""


def register(sub, common) -> None:
    """Add this group's subcommands to the parser."""
