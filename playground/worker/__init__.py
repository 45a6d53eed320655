"""The sandboxed worker process: how it starts, locks down and serves one job (life/), the jobs (jobs/: one module per
job kind, named after it, and their helpers), the user's function as the jobs call it (functions/), the lessons its
errors teach (lessons/) and what it measures of compiled programs (measurement/). The server imports none of it
(tests/test_import_boundaries.py).
"""
