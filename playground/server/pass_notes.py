"""One plain sentence for each XLA pass a learner should know, by the name XLA gives it in a dump.

>>> about("fusion")[:44]
'Fusion: merges elementwise operations and th'
>>> about("float-normalization-bf16") is None
True
"""

from __future__ import annotations

NOTES = {
    "fusion": "Fusion: merges elementwise operations and their producers into one loop (one kernel), so "
              "intermediate results stay in registers instead of going through memory.",
    "priority-fusion": "Fusion on a GPU: merges producers into consumers in order of benefit, guided by a cost "
                       "model of memory traffic and kernel launches.",
    "multi_output_fusion": "Multi-output fusion: merges sibling loops that read the same inputs into one "
                           "kernel with several outputs, reading the inputs once.",
    "horizontal-loop-fusion": "Horizontal fusion: launches several small independent kernels as one, "
                              "saving kernel launches on a GPU.",
    "fusion-wrapper": "Wraps each operation left unfused into a fusion of its own, so that every kernel is "
                      "emitted the same way.",
    "cse": "Common subexpression elimination: computes an operation that appears twice with the same inputs "
           "once (x*x in x + x*x + x*x*x).",
    "algsimp": "Algebraic simplification: rewrites with algebra's rules (x*1 -> x, a reshape of a reshape -> one "
               "reshape, a transpose into a dot's operand).",
    "constant_folding": "Constant folding: computes at compile time what depends only on constants.",
    "dce": "Dead code elimination: removes operations whose results nothing uses.",
    "layout-assignment": "Layout assignment: chooses how each array lies in memory (which dimension is "
                         "contiguous), shown as {1,0} after each shape.",
    "copy-insertion": "Copy insertion: adds the copies needed so that no buffer is overwritten while still in "
                      "use, e.g. a loop's state or an output that is also an input.",
    "simplification": "The simplification pipeline: algebraic simplification, dead code elimination and "
                      "friends, run again and again until nothing changes.",
    "tuple-simplifier": "Removes tuples that are built only to be taken apart again.",
    "reshape-mover": "Moves reshapes and transposes past elementwise operations, so that fewer of them remain.",
    "call-inliner": "Inlines called computations (a nested jit becomes part of the program around it).",
    "flatten-call-graph": "Gives each call site a computation of its own, so that later passes may change one "
                          "without the others.",
    "while-loop-invariant-code-motion": "Moves work that is the same in every iteration of a while loop out "
                                        "of the loop.",
    "while-loop-simplifier": "Removes loops that run zero or one times, and loop state that is never used.",
    "conditional-simplifier": "Replaces a conditional whose predicate is a constant with the branch it takes.",
    "dot_decomposer": "Rewrites dot products into the canonical form the backends implement (batch, contracting "
                      "and free dimensions in a fixed order).",
    "transpose-folding": "Folds a transpose into the dot or convolution that uses it: the kernel reads the "
                         "operand transposed, no copy is made.",
    "cpu-parallel-task-assigner": "On a CPU: decides which large operations are split across several threads.",
    "gemm-rewriter": "On a GPU: turns dot products into calls of cuBLAS's matrix multiplication (a custom-call).",
    "gemm-fusion": "On a GPU: fuses a dot product with the operations around it into one Triton kernel.",
    "command-buffer-scheduling": "On a GPU: records sequences of kernels as CUDA graphs, launched at once.",
    "sort-rewriter": "On a GPU: replaces large sorts with a call of CUB's radix sort.",
    "scheduling": "Chooses the order in which the operations run, to keep the memory alive at once small.",
}


def about(name: str) -> str | None:
    """The sentence about pass ``name``, or None for a pass without one."""
    return NOTES.get(name)
