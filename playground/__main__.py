"""``python -m playground``: the app on http://127.0.0.1:7860, on any OS (no make needed)."""

from playground.server.launch import run

run()
