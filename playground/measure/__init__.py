"""What the sandboxed worker and the device owner both do with JAX: time a call honestly, compare two results.

Imports JAX: the server never imports this package (tests/test_import_boundaries.py).
"""
