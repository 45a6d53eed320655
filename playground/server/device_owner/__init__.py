"""Everything the server knows of the device owner: which accelerator this host has (accelerator.py), starting the
owner on it (starting.py, process.py) with what its driver may open (device_grants.py), the handle every caller
shares (handle.py), the line of jobs it runs (device_pool.py) and the device's ceilings it measures
(kept_ceilings.py). No JAX here: the owner's own code is playground/owner/.
"""
