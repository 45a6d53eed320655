"""The server's side of training: the line for the slots, a run's stream from the device owner, its results and the
drawn digit's prediction, and ``make data`` (fetch_cli); the training itself is playground/owner/training/."""
