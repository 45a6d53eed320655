"""The Inspect tab's job: trace, lower, compile and run the user's function."""

from __future__ import annotations

from playground import replies
from playground.errors import TITLES, cap_text
from playground.jobs import JobKind
from playground.jobs.arguments import ARGS, ON_ACCELERATOR, STATIC_ARGNUMS, code, text
from playground.replies import COUNT, LINE_MAP, MAYBE_AMOUNT, MAYBE_LINE, SECONDS, SHORT, TEXT, TREE
from playground.schema import Either, Flag, ListOf, MapOf, Name, Null, OneOf, Record, Text, Whole

POSITION = 10


def on_accelerator_if_asked(job: dict) -> str:
    """The pool of the jobs that compile for the CPU unless ``on_accelerator`` asks for the host's GPU or TPU."""
    return "device" if job["on_accelerator"] else "sandbox"


def _checks_unfinished(early: dict, failure: dict) -> dict:
    error = failure["error"]
    note = (f"The checks after the stages did not finish ({TITLES[error['kind']].lower()}): {error['message']} "
            "The result and the three texts above are complete; the behavioural purity checks and the second call "
            "are not.")
    return {**early, "pending": [], "warnings": [*early["warnings"], cap_text(note, 2000)]}


# The reply's every field, checked in the server before anything uses it (playground/replies.py).
INSPECT = replies.ok(
    function=Name(), device=Text(400), static_argnums=ListOf(Whole(0, 63), 64),
    jit=Record({"own": Flag(), "static_from": OneOf(("field", "your jit", "a jitted helper")),
                "note": Either((SHORT, Null()))}),
    result=TEXT, jaxpr=TEXT, stablehlo=TEXT, hlo=TEXT, hlo_locations=TEXT,
    line_map=Record({"jaxpr": LINE_MAP, "stablehlo": LINE_MAP, "hlo": LINE_MAP}),
    trace_s=SECONDS, lower_s=SECONDS, compile_s=SECONDS, run_s=SECONDS,
    cost=Record({"flops": MAYBE_AMOUNT, "bytes_accessed": MAYBE_AMOUNT, "transcendentals": MAYBE_AMOUNT,
                 "unavailable": MapOf(OneOf(("flops", "bytes_accessed", "transcendentals")), SHORT, 3)}),
    memory=Record({}, {name: Either((COUNT, Null())) for name in
                       ("argument_bytes", "output_bytes", "temp_bytes", "generated_code_bytes", "alias_bytes")}
                  | {"unavailable": SHORT}),
    pytree=Record({"inputs": TREE, "outputs": TREE}),
    retrace=Either((Null(), Record({"retraced": Either((Flag(), Null())), "explanation": TEXT}))),
    purity=ListOf(Record({"check": OneOf(("static", "behavioural")), "line": MAYBE_LINE, "message": SHORT}), 1_000),
    pending=ListOf(OneOf(("purity", "retrace")), 2),  # checks still running: an early reply's, empty in the final
    stdout=TEXT, warnings=ListOf(SHORT, 1_000),
)

DOC = """Trace, lower and compile the function in ``code`` (named ``f``, else the last ``def``) on ``args``.

``args`` is a Python expression with ``jax``, ``jnp``, ``np`` and ``lax`` in
scope; a tuple gives several positional arguments. ``static_argnums`` is
passed to ``jax.jit``. With ``second_args``, the jitted function is called
again on them, and ``retrace`` says whether JAX traced again, and why.

When the code jits the function itself (``@jax.jit``, ``@partial(jax.jit,
static_argnames=...)``), that jitted function is inspected, with its own
static arguments; ``jit`` says so (``own``, ``static_from``, and a ``note``
when the field and the code disagree).

Inspect compiles for the CPU; ``on_accelerator=True`` compiles in a worker
holding the host's GPU or TPU instead (where there is none, on the CPU).
``device`` says which.

Like every job endpoint it streams; its early update comes as soon as the
stages are done, with ``pending`` naming the checks that still run the
function (``purity``, ``retrace``). The result is ``{"ok": True, "function",
"device", "result", "jaxpr", "stablehlo", "hlo", "hlo_locations", "trace_s",
"lower_s", "compile_s", "run_s", "cost", "memory", "pytree", "line_map",
"static_argnums", "jit", "retrace", "purity", "pending", "stdout", "warnings",
"cache", "done"}`` or an error dict."""

KINDS = (JobKind(
    "inspect", "playground.worker.jobs.inspect:inspect_job", (
        code(), ARGS, STATIC_ARGNUMS,
        text("second_args", 'arguments of a second call, to see whether JAX traces again ("": no second call).', ""),
        ON_ACCELERATOR),
    INSPECT, DOC,
    pool=on_accelerator_if_asked, device=True, early=True, after_early=_checks_unfinished),)
