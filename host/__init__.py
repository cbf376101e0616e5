"""PageKeeper's host: every kind of I/O around the pure engine.

Native-messaging framing, the archive daemon (HTTP + websocket), the CLI,
fetching live pages, and the installer. See ARCHITECTURE.md.
"""
