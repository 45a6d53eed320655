"""The web server process: its page (ui/, Gradio; its figures in ui/figures/), the API, the job queue, result
caching and links, the server's own finishing of replies (graphs, diffs), the pools of sandboxed workers (pools/), its
handle on the device owner (device_owner/) and the training service (training/). It never imports JAX, the worker or
the owner's process (tests/test_import_boundaries.py).
"""
