"""Errors that teach: the user's failures decided from facts (user_errors.py) and a lesson with its fix for each
kind of mistake (tracer, shape, array, transformation, memory)."""
