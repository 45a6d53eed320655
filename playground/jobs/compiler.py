"""The Compiler tab's jobs: XLA's passes one by one, the program as graphs, and two versions compared."""

from __future__ import annotations

from typing import Any

from playground import compiler_settings, replies
from playground.errors import error_dict
from playground.jobs import JobKind
from playground.jobs.arguments import ARGS, MAX_CODE_CHARS, ON_ACCELERATOR, STATIC_ARGNUMS, Argument, Form, code, text
from playground.jobs.inspect import INSPECT, on_accelerator_if_asked
from playground.replies import COUNT, LINE_MAP, MAYBE_AMOUNT, MAYBE_LINE, SECONDS, SHORT, TEXT
from playground.schema import Either, Flag, ListOf, Name, Null, OneOf, Record, Text, Whole

POSITION = 20
_FINISH = "playground.server.compiler.replies:finish_"
_AS_IN_INSPECT = "``code`` and ``args`` as in ``inspect``."


def _setting(name: str, value: Any) -> dict | None:
    if value in ("", *compiler_settings.SETTINGS):
        return None
    return error_dict("invalid_input", f"`{name}` must be one of {', '.join(map(repr, compiler_settings.SETTINGS))} "
                                       f"(or empty, with a second function), got {str(value)[:80]!r}.")


def _one_version_b(arguments: dict) -> dict | None:
    if bool(arguments["second_code"].strip()) == bool(arguments["setting"]):
        return error_dict("invalid_input", "Compare needs version B: either `second_code` (a second function) or "
                                           "`setting` (e.g. 'fusion: off'), not both and not neither.")
    return None


SECOND_CODE = text("second_code", 'B as another function on the same arguments ("": B is A under ``setting``).', "",
                   MAX_CODE_CHARS)
SETTING = Argument("setting", _setting, 'what B changes when there is no second_code, e.g. "fusion: off" (see '
                   "above).", str, Form("choice", choices=tuple(compiler_settings.SETTINGS)), "")

# The reply's every field, checked in the server before anything uses it (playground/replies.py).
MODULE_INDEX = Either((Whole(0, 100_000), Null()))
PASSES = replies.ok(
    function=Name(), device=Text(400), exhaustive=Flag(),
    passes=ListOf(Record({"index": COUNT, "pipeline": Text(300), "name": Text(300), "nested": Flag(),
                          "changed": Either((Flag(), Null())), "instructions": COUNT, "before": MODULE_INDEX,
                          "after": MODULE_INDEX}), 2_000),
    modules=ListOf(TEXT, 100_000), module_lines=ListOf(LINE_MAP, 100_000),
    counts=Record({"passes": COUNT, "changed": COUNT, "unchanged": COUNT, "pipelines": COUNT}),
    compile_s=SECONDS, dump_bytes=COUNT, notices=ListOf(SHORT, 100),
)

NODE_ID = Name()  # ids are made by worker/jobs/graph.py (n0, c0, ...); Graphviz gets nothing else unquoted
GRAPH_DATA = Record({
    "nodes": ListOf(Record({"id": NODE_ID, "label": Text(200), "kind": OneOf((
        "input", "inner_input", "output", "inner_output", "constant", "literal", "op", "plumbing")),
        "line": MAYBE_LINE, "cluster": Either((NODE_ID, Null()))}), 1_000),
    "edges": ListOf(Record({"from": NODE_ID, "to": NODE_ID, "dashed": Flag()}), 4_000),
    "clusters": ListOf(Record({"id": NODE_ID, "label": Text(200), "kind": OneOf((
        "fusion", "call", "jaxpr", "computation")), "parent": Either((NODE_ID, Null()))}), 1_000),
    "left_out": COUNT,
})
GRAPH = replies.ok(
    function=Name(), device=Text(400), jaxpr_graph=GRAPH_DATA, hlo_graph=GRAPH_DATA,
    fusions=ListOf(Record({"label": Text(200), "operations": ListOf(Text(200), 1_000)}), 1_000),
)

COMPARE_VARIANT = Record({
    "label": Text(100), "what": SHORT, "function": Name(), "jaxpr": TEXT, "hlo": TEXT, "jaxpr_equations": COUNT,
    "hlo_instructions": COUNT, "kernels": COUNT, "cost": INSPECT.required["cost"], "memory": INSPECT.required["memory"],
    "compile_s": SECONDS, "result": TEXT,
    "run": Either((Null(), Record({"min_s": SECONDS, "median_s": SECONDS, "iqr_s": SECONDS, "q1_s": SECONDS,
                                   "q3_s": SECONDS, "runs": Whole(1, 1_000)}))),
})
COMPARE = replies.ok(
    device=Text(400), setting=Either((Text(100), Null())), variants=ListOf(COMPARE_VARIANT, 2),
    same_result=Either((Flag(), Null())), max_abs_diff=MAYBE_AMOUNT, notes=ListOf(SHORT, 100),
)

KINDS = (
    JobKind("passes", "playground.worker.jobs.passes:passes_job", (code(), ARGS, STATIC_ARGNUMS, ON_ACCELERATOR),
            PASSES, f"""XLA's optimisation passes on the function, one by one, in the order they ran.

{_AS_IN_INSPECT} The function is compiled once with
XLA's dump of every pass (into the job's scratch folder). Returns ``{{"ok",
"function", "device", "passes": [{{"index", "pipeline", "name", "nested",
"changed", "instructions", "before", "after", "about"}}], "modules",
"module_lines", "counts", "exhaustive", "compile_s", "dump_bytes",
"notices"}}``: ``changed`` is whether the module's text after the pass differs
from the text before it; ``before``/``after`` index ``modules`` (each distinct
module text once; null past the size cap); ``nested`` marks a pipeline that
ran inside another, listed as one pass; ``about`` is a sentence on the
passes worth knowing first.""", pool=on_accelerator_if_asked, device=True, finish=_FINISH + "passes"),
    JobKind("graph", "playground.worker.jobs.graph:graph_job", (code(), ARGS, STATIC_ARGNUMS, ON_ACCELERATOR),
            GRAPH, f"""The program as pictures: the jaxpr and the optimised HLO as dataflow graphs, in SVG.

{_AS_IN_INSPECT} Returns ``{{"ok", "function", "device",
"jaxpr_svg", "hlo_svg", "jaxpr_graph", "hlo_graph", "jaxpr_dot", "hlo_dot",
"fusions", "renderer", "line_colours"}}``. In the jaxpr graph nested jaxprs
(``pjit``, ``cond``, ``scan``, ``while``, ``custom_jvp_call``) are clusters; in the
HLO graph each fusion is a box around the operations it fused (``fusions``
lists them). Nodes take the colour of the user line that made them
(``line_colours``). Without Graphviz the SVGs are empty and ``renderer`` says why.""",
            pool=on_accelerator_if_asked, device=True, finish=_FINISH + "graph"),
    JobKind("compare", "playground.worker.jobs.compare:compare_job", (
        code(), ARGS, SECOND_CODE, SETTING, STATIC_ARGNUMS, ON_ACCELERATOR), COMPARE,
        """Two versions side by side: A is the function as written; B is ``second_code`` (another function, on
the same arguments) or the function under ``setting``: "fusion: off", "cse: off", "algsimp: off",
"x64: on" or "donate: on".

Returns ``{"ok", "device", "setting", "variants": [A, B], "diff": {"jaxpr", "hlo"},
"b_over_a", "same_result", "max_abs_diff", "notes"}``; each variant has ``label``,
``what``, ``jaxpr``, ``hlo``, ``kernels``, ``hlo_instructions``, ``jaxpr_equations``,
``cost``, ``memory``, ``compile_s``, ``run`` (``median_s``, ``iqr_s``, ``runs``:
both timed in the same job, in turn) and ``result``.""",
        pool=on_accelerator_if_asked, device=True, timed=True, together=_one_version_b,
        finish=_FINISH + "compare"),
)
