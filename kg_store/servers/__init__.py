"""Start and stop local graph servers (Virtuoso, FalkorDB) for tests, benchmarks and demos.

Each server is a context manager that owns a work folder and a child process bound to
127.0.0.1, and stops it on exit.
"""
