"""PageKeeper's engine: pure logic for URLs, HTML, the archive and liveness.

No sockets, no stdio, no environment. Files are touched only through
``engine.archive.store``. See ARCHITECTURE.md.
"""

__version__ = "0.1.0"
