"""MNIST-style training: data (IDX files, cache, download), the MLP, the training loop, and its worker."""
