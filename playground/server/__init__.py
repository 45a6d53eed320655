"""What only the web server process runs: its page (ui/, Gradio), the API, the job queue and its pools, result
caching, links, plots and the server's own finishing of replies (graphs, diffs); training/ drives the training
workers. It never imports JAX or playground.worker (tests/test_import_boundaries.py).
"""
