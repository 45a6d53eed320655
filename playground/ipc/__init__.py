"""What the three processes (server, sandboxed worker, device owner) share to start, talk to and bound each other:
the wire format (protocol.py), a child's channel (child_channel.py), a clean start (bootstrap.py), a child's own
start and end (child_life.py), the limits a job may use (limits.py), readings of a process's memory (procfs.py)
and the safe way into a scratch folder (scratch.py).
Standard library only; it imports no other part of playground (tests/test_import_boundaries.py).
"""
