"""What runs inside a worker process: the sandboxed jobs (one module per job kind, named after it, and what they
share) and, in training/, the trusted training worker. The server imports none of it (tests/test_import_boundaries.py).
"""
