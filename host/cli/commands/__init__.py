"""CLI command groups; each module exposes ``register(sub, common)`` (see host/cli/command.py)."""
