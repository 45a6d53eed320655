"""The jobs: one module per job kind, named after it (the registry in playground/jobs/ names each handler), what
only that job uses beside it, the handlers' lookup (handlers.py) and a job's line to the device owner (device.py).
"""
