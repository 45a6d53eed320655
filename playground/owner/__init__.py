"""The device owner: the one long-lived process that opens the accelerator (main.py starts it, serve.py answers),
runs every job's device work in sessions and trains the MNIST MLP (training/). The server reaches it through
server/device_owner/; it imports neither the server nor the worker (tests/test_import_boundaries.py).
"""
