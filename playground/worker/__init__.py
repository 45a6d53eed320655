"""What runs inside a sandboxed worker process: the jobs (one module per job kind, named after it) and what they
share. The server imports none of it (tests/test_import_boundaries.py).
"""
