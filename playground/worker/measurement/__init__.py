"""What a job reads off a compiled program: HLO text as data, kernels and their costs, the memory timeline, the
program's size. No timing here: playground/measure/ times calls.
"""
