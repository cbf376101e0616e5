"""The hook folders hold ``sitecustomize.py`` files that a daemon started by a test loads from
its ``PYTHONPATH``; they are no test modules, and pytest must not import them: files of
that one name collide as the top-level module ``sitecustomize`` (``--doctest-modules`` failed
to collect this folder), and imported here a hook would patch the test process itself."""

collect_ignore = ["decode_hook", "start_hook", "stop_hook"]
