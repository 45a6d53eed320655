"""The training runs, in the device owner: our code on checked hyperparameters, never user code, training the MLP
with JAX and optax and streaming its progress to the server (playground/server/training/)."""
