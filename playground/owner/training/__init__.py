"""The training worker: a long-lived trusted process (our code on checked hyperparameters, never user code) that
trains the MLP with JAX and optax and streams its progress to the server (playground/server/training/)."""
