"""The server's side of the device owner: starting its process (process.py), the handle every caller shares
(handle.py), and what the owner may open for jobs (device_grants.py). No JAX here: the owner's own code is
playground/owner/.
"""
