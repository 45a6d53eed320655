"""A worker's life: the template that forks workers (template.py), a forked worker (forked.py) or a spawned one
(spawned.py: the local process mode), its warm-up, namespaces and thread gate. It runs jobs without knowing any:
the job's module is named to it as text (tests/test_import_boundaries.py).
"""
