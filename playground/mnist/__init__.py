"""The Train tab's data, shared by the server and the device owner, without JAX: config (TrainConfig),
catalogue (the datasets), fetch (folder, cache or download) with download (pooch) and idx (the file format),
preprocess (drawings -> MNIST frames), params_file (weights on disk), places (where the datasets are, a value the
server's settings hold).

The training runs in the device owner (playground/owner/training/), the server's side of it playground/server/training/.
"""
