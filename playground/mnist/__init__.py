"""MNIST-style training for the Train tab: data, the MLP, the training loop, and the worker that runs it.

Each module's name says which side of the process boundary it runs on:

- ``server_*``: in the Gradio server process, which never imports JAX
  (server_service: the training service behind api.py; server_worker_handle:
  one training worker as the server sees it; server_slots: the line for the
  workers; server_results: each session's latest run and /predict;
  server_inference: the MLP's forward pass in NumPy);
- ``worker_*``: in the training worker process, which owns the accelerator
  (worker_main: its main; worker_loop: the training loop; worker_steps: the
  jitted steps; worker_model: the MLP);
- the rest, on either side and without JAX: config (TrainConfig), catalogue
  (the datasets), fetch (folder, cache or download) with download (pooch) and
  idx (the file format), load (files -> arrays), preprocess (drawings -> MNIST
  frames), params_file (weights on disk), results (confusion matrix, digit
  grid); fetch_cli is ``make data``.
"""
