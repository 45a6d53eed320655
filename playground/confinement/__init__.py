"""How a child process locks itself down: every sandbox worker, and the device owner. rlimits, capabilities,
Landlock and the seccomp filter, layer by layer (lockdown.py), or the rlimits alone where nothing else is offered
(rlimits.py).
"""
