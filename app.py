"""JAX Playground: the Hugging Face Space's app file (``python app.py``); the start itself is playground/launch.py."""

from playground.launch import run

if __name__ == "__main__":
    run()
