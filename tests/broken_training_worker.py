"""A test double of playground/owner/training/main.py that dies at import, as a real one did on a GPU host whose
interpreter lacked a package: the run must end with an error update that names it, not an exception."""

import a_package_this_interpreter_lacks  # noqa: F401
