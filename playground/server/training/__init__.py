"""The server's side of training: one training worker per slot, a run's stream, its results and the drawn digit's
prediction; the worker itself is playground/owner/training/."""
