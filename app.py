"""JAX Playground: the Hugging Face Space's app file (``python app.py``); it starts playground/server/launch.py."""

from playground.server.launch import run

if __name__ == "__main__":
    run()
