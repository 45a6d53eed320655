"""The user's function as the jobs call it: made from source (usercode.py), its own jit honoured, its call
signature, pytrees, real scalars, values as views show them, and which source line made each line of IR.
"""
