"""The Pallas job: a kernel the user writes, its grid mapped and run in TPU interpret mode in the CPU sandbox,
checked against the user's plain-``jnp`` reference (an API endpoint and MCP tool; About names it)."""

from __future__ import annotations

from playground import replies
from playground.jobs import JobKind
from playground.jobs.arguments import code, text
from playground.replies import COUNT, MAYBE_AMOUNT, SECONDS, SHAPE, SHORT, TEXT
from playground.schema import Either, Flag, ListOf, Name, Null, OneOf, Real, Record, Text, Whole

POSITION = 58
MAX_POINTS = 4_096  # worker/jobs/pallas_grid.py's: the grid points mapped
ROLE = OneOf(("input", "output"))
INDEX = Whole(-(2**62), 2**62)  # a block's number along one axis, as the index map gave it (outside ones too)
FINDING = Record(
    {"kind": OneOf(("tile", "outside", "missed", "revisited", "out_shape", "mismatch")), "role": ROLE,
     "index": Whole(0, 4_096)},
    {"point": COUNT, "block": ListOf(INDEX, 64), "extent": ListOf(COUNT, 64), "blocks": ListOf(ListOf(COUNT, 64), 16),
     "count": COUNT, "block_shape": SHAPE, "array_shape": SHAPE, "axis": Whole(0, 63), "multiple": COUNT,
     "first": COUNT, "again": COUNT})
OPERAND = Record({"role": ROLE, "index": Whole(0, 4_096), "array_shape": SHAPE, "dtype": Text(40),
                  "block_shape": SHAPE, "squeezed": ListOf(Flag(), 64),
                  "blocks": ListOf(ListOf(INDEX, 64), MAX_POINTS)})
CALL = Record({"name": Text(200), "grid": SHAPE, "points": COUNT, "total": COUNT, "operands": ListOf(OPERAND, 256),
               "findings": ListOf(FINDING, 1_024)})
LEAVES = ListOf(Record({"shape": SHAPE, "dtype": Text(40)}), 1_000)

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
PALLAS = replies.ok(
    function=Name(), reference=Name(), mode=OneOf(("interpret",)), ran=Flag(), calls=ListOf(CALL, 8),
    grid_unreadable=Either((SHORT, Null())), result=LEAVES, expected=LEAVES, matches=Flag(),
    max_error=MAYBE_AMOUNT, tolerance=Real(0.0), nans=COUNT, findings=ListOf(FINDING, 8_192), interpret_s=SECONDS,
    reference_s=SECONDS, stdout=TEXT,
)

DOC = """Run a Pallas kernel in TPU interpret mode on the CPU, map its grid, and check it against a reference.

``code`` defines the kernel, the function that calls it with
``pl.pallas_call`` (named ``f``, else the last ``def`` that is neither
``reference`` nor a kernel, whose parameters all end in ``_ref``), and
``reference``: the same computation in plain ``jnp``. ``args`` are their
arguments, one Python expression (a tuple gives several).

``calls`` has each ``pallas_call``: its ``grid`` and, for every operand
(``role`` input or output, its ``index``), its ``array_shape``,
``block_shape`` and, for each grid point in row-major order, the block it
touches (``blocks``, in block units). ``findings`` are facts about what is
wrong: ``tile`` (a block shape a TPU refuses: its last two dimensions not
multiples of 8 and 128, nor the array's), ``outside`` (a grid point maps to a
block past the array), ``missed`` (output blocks no grid point writes),
``revisited`` (an output block written again after other blocks),
``out_shape`` (the kernel's result and the reference's differ in shapes or
dtypes), ``mismatch`` (values apart by more than ``tolerance``). A kernel
with an ``outside`` or ``revisited`` block is not run (``ran`` False, its
``result`` empty): interpret mode stops at those, and a TPU cannot run them.
``matches`` and ``max_error`` compare the results, ``tolerance`` being what
rounding explains for the reference's sums done in another order; ``nans`` counts NaNs in the
kernel's result where the reference has none (interpret mode fills memory no
program instance wrote with NaN)."""

KINDS = (JobKind(
    "pallas", "playground.worker.jobs.pallas:pallas_job", (
        code("Python source defining the kernel, the function ``f`` that calls it with ``pl.pallas_call``, and "
             "``reference`` (plain jnp); jax, jnp, np, lax in scope."),
        text("args", "the arguments of ``f`` and ``reference`` as one Python expression; a tuple gives several.")),
    PALLAS, DOC, timed=True),)
