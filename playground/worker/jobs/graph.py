"""The program as a picture's data: the jaxpr and the optimised HLO as dataflow graphs. Runs inside a worker.

A graph is JSON: ``nodes`` (an id, a label, a kind, the user's line, the
cluster it sits in), ``edges`` (from, to, dashed or not) and ``clusters``
(boxes drawn around nodes, nested by ``parent``). In the jaxpr graph each
equation is a node and each variable an edge; an equation that holds jaxprs
(``pjit``, ``cond``, ``scan``, ``while``, ``custom_jvp_call``) is a cluster
around its own node and one cluster per inner jaxpr. In the HLO graph each
fusion is a cluster around the operations it fused: "five jaxpr operations,
one kernel". Both stop at ``max_nodes``, counting what they left out.
playground/server/compiler/graph_render.py draws them.
"""

from __future__ import annotations

import contextlib

from jax._src import source_info_util
from jax.extend.core import ClosedJaxpr, Jaxpr, Literal

from playground.errors import USER_FILENAME
from playground.ipc.limits import Limits
from playground.worker.functions import source_map, user_jit, usercode
from playground.worker.jobs import about, inspect
from playground.worker.jobs.device import Device, exported_call
from playground.worker.measurement import hlo_text

MAX_NODES = 300  # per graph: past it, the graph says how many it left out
MAX_LABEL = 120
_MAX_DEPTH = 6  # computations called from computations: deeper ones are drawn as one node
_PLUMBING = {"get-tuple-element", "tuple", "bitcast"}


class GraphBuilder:
    """Nodes, edges and clusters, with ids made here (never taken from the program's own names)."""

    def __init__(self, max_nodes: int) -> None:
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.clusters: list[dict] = []
        self.max_nodes = max_nodes
        self.left_out = 0

    def node(self, label: str, kind: str, line: int | None = None, cluster: str | None = None) -> str | None:
        if len(self.nodes) >= self.max_nodes:
            self.left_out += 1
            return None
        ident = f"n{len(self.nodes)}"
        self.nodes.append({"id": ident, "label": label[:MAX_LABEL], "kind": kind,
                           "line": line if type(line) is int and line > 0 else None, "cluster": cluster})
        return ident

    def cluster(self, label: str, kind: str, parent: str | None = None) -> str:
        ident = f"c{len(self.clusters)}"
        self.clusters.append({"id": ident, "label": label[:MAX_LABEL], "kind": kind, "parent": parent})
        return ident

    def edge(self, source: str | None, target: str | None, dashed: bool = False) -> None:
        edge = {"from": source, "to": target, "dashed": dashed}
        if source is not None and target is not None and len(self.edges) < 4 * self.max_nodes and (
                not self.edges or edge not in self.edges[-8:]):  # x * x reads x once, as one arrow
            self.edges.append(edge)

    def to_dict(self) -> dict:
        return {"nodes": self.nodes, "edges": self.edges, "clusters": self.clusters,
                "left_out": self.left_out}


# -- the jaxpr ------------------------------------------------------------------------------------------------------

def jaxpr_graph(closed: ClosedJaxpr, max_nodes: int) -> dict:
    """The jaxpr as a dataflow graph: inputs, one node per equation, outputs; inner jaxprs as clusters.

    Variables are named a, b, c, ... in the order they appear, as JAX prints a jaxpr.
    """
    graph = GraphBuilder(max_nodes)
    _draw_jaxpr(graph, closed.jaxpr, None, "input", "output", 0, _Names())
    return graph.to_dict()


class _Names:
    """a, b, ..., z, ba, bb, ...: a name for each variable, the first time it is asked for."""

    def __init__(self) -> None:
        self._names: dict = {}

    def __call__(self, var) -> str:
        if var not in self._names:
            n, name = len(self._names), ""
            while True:
                n, digit = divmod(n, 26)
                name = chr(ord("a") + digit) + name
                if n == 0:
                    break
            self._names[var] = name
        return f"{self._names[var]}:{var.aval.str_short(short_dtypes=True)}"


def _draw_jaxpr(graph: GraphBuilder, jaxpr: Jaxpr, cluster: str | None, input_kind: str, output_kind: str,
                depth: int, names: _Names) -> list:
    made: dict = {}  # Var -> the node that produced it
    for var in (*jaxpr.constvars, *jaxpr.invars):
        kind = "constant" if var in jaxpr.constvars else input_kind
        made[var] = graph.node(names(var), kind, cluster=cluster)
    for eqn in jaxpr.eqns:
        inner = _inner_jaxprs(eqn.params) if depth < _MAX_DEPTH else []
        line = _user_line(eqn)
        label = f"{eqn.primitive.name}\n{' '.join(names(v) for v in eqn.outvars)}"
        if inner:
            box = graph.cluster(eqn.primitive.name, "call", cluster)
            node = graph.node(label, "op", line, box)
            for role, sub in inner:
                sub_box = graph.cluster(role, "jaxpr", box)
                inputs = _draw_jaxpr(graph, sub, sub_box, "inner_input", "inner_output", depth + 1, names)
                for target in inputs:
                    graph.edge(node, target, dashed=True)
        else:
            node = graph.node(label, "op", line, cluster)
        for var in eqn.invars:
            graph.edge(_source(graph, made, var, cluster), node)
        for var in eqn.outvars:
            made[var] = node
    for i, var in enumerate(jaxpr.outvars):
        out = graph.node(f"out {i}: {var.aval.str_short(short_dtypes=True)}", output_kind, cluster=cluster)
        graph.edge(_source(graph, made, var, cluster), out)
    return [made[var] for var in jaxpr.invars if made.get(var)]


def _source(graph: GraphBuilder, made: dict, var, cluster: str | None) -> str | None:
    if isinstance(var, Literal):
        return graph.node(str(var.val)[:40], "literal", cluster=cluster)
    return made.get(var)


def _inner_jaxprs(params: dict) -> list[tuple[str, Jaxpr]]:
    """The jaxprs an equation holds, each with the name of its parameter (``branches[1]`` for a cond)."""
    found = []
    for key, value in params.items():
        values = value if isinstance(value, (tuple, list)) else (value,)
        for i, item in enumerate(values):
            jaxpr = item.jaxpr if isinstance(item, ClosedJaxpr) else item
            if isinstance(jaxpr, Jaxpr):
                found.append((f"{key}[{i}]" if len(values) > 1 else key, jaxpr))
    return found


def _user_line(eqn) -> int | None:
    """The innermost line of the user's code that made this equation (JAX's own frames are skipped)."""
    try:
        frames = source_info_util.user_frames(eqn.source_info.traceback)
        return next((frame.start_line for frame in frames if frame.file_name == USER_FILENAME), None)
    except Exception:  # an internal of JAX's: without it, the node has no colour
        return None


# -- the optimised HLO ----------------------------------------------------------------------------------------------

def hlo_graph(text: str, user_lines: list[int | None], max_nodes: int) -> dict:
    """The ENTRY computation as a dataflow graph; each fusion a cluster around what it fused, loops and branches
    clusters around their computations."""
    computations = {c.name: c for c in hlo_text.parse(text, user_lines)}
    entry = next((c for c in computations.values() if c.entry), None)
    graph = GraphBuilder(max_nodes)
    if entry is not None:
        sources = _draw_computation(graph, computations, entry, None, {}, 0)
        root = next((i for i in entry.instructions if i.root), None)
        if root is not None:
            graph.edge(sources.get(root.name), graph.node(f"output\n{root.shape}", "output"))
    return graph.to_dict()


def _draw_computation(graph: GraphBuilder, computations: dict, computation: hlo_text.Computation,
                      cluster: str | None, parameters: dict, depth: int) -> dict:
    """Draw one computation's instructions; ``parameters`` maps parameter numbers to nodes already drawn (a
    fusion's operands), the others become input nodes. Returns instruction name -> the node giving its value."""
    made: dict = {}
    for instruction in computation.instructions:
        if instruction.opcode == "parameter":
            if instruction.parameter in parameters:
                made[instruction.name] = parameters[instruction.parameter]
            else:
                kind = "input" if cluster is None else "inner_input"
                made[instruction.name] = graph.node(f"{instruction.name}\n{instruction.shape}", kind,
                                                    instruction.line, cluster)
            continue
        operands = [made.get(name) for name in instruction.operands]
        fused = dict(instruction.calls).get("calls") if instruction.opcode == "fusion" else None
        drawn_inside = _drawn_inside(instruction, computations)
        if fused in computations and depth < _MAX_DEPTH:
            box = graph.cluster(f"fusion: {instruction.name}", "fusion", cluster)
            inner = _draw_computation(graph, computations, computations[fused], box, dict(enumerate(operands)),
                                      depth + 1)
            root = next((i for i in computations[fused].instructions if i.root), None)
            made[instruction.name] = inner.get(root.name) if root else None
            continue
        label = f"{instruction.opcode}\n{instruction.shape}"
        if drawn_inside and depth < _MAX_DEPTH:
            box = graph.cluster(instruction.opcode, "call", cluster)
            node = graph.node(label, "op", instruction.line, box)
            for role, callee in drawn_inside:
                sub_box = graph.cluster(f"{role}: {callee}", "computation", box)
                inputs = _draw_computation(graph, computations, computations[callee], sub_box, {}, depth + 1)
                for name, target in inputs.items():
                    if _is_parameter(computations[callee], name):
                        graph.edge(node, target, dashed=True)
        else:
            node = graph.node(label, "plumbing" if instruction.opcode in _PLUMBING else "op", instruction.line,
                              cluster)
        for source in operands:
            graph.edge(source, node)
        made[instruction.name] = node
    return made


def _drawn_inside(instruction: hlo_text.Instruction, computations: dict) -> list[tuple[str, str]]:
    """The computations drawn inside an instruction's box: a loop's, a branch's, a call's; not a reduction's
    tiny ``to_apply`` (an add of two scalars), which its label implies."""
    return [(role, callee) for role, callee in instruction.calls if callee in computations
            and (role != "to_apply" or instruction.opcode == "call")]


def _is_parameter(computation: hlo_text.Computation, name: str) -> bool:
    return any(i.name == name and i.opcode == "parameter" for i in computation.instructions)


def fusion_boxes(graph: dict) -> list[dict]:
    """The fusion clusters of an HLO graph, each with the labels of the operations inside it."""
    return [{"label": c["label"], "operations": [n["label"].split("\n")[0] for n in graph["nodes"]
                                                  if n["cluster"] == c["id"]]}
            for c in graph["clusters"] if c["kind"] == "fusion"]


def graphs(code: str, args: str, static_argnums: tuple[int, ...] = (), max_nodes: int = MAX_NODES,
           device: Device | None = None) -> dict:
    """Trace and compile the user's function: its jaxpr graph and its optimised HLO graph, with the fusions
    (compiled on ``device``, where one is given: its compiler fuses otherwise)."""
    with contextlib.redirect_stdout(usercode.CappedText(0)):
        try:
            program, arguments, choice = inspect.prepared(code, args, static_argnums)
            choice, traced, _, _ = user_jit.trace(choice, arguments)
            if device is None:
                optimised, label = traced.lower().compile().as_text(), about.device_label()
            else:
                call = exported_call(device, choice.jitted, arguments, choice.static_argnums)
                optimised, label = device.compile(call["program"])["hlo"], device.label
        except Exception as exc:
            return inspect.explained_error(exc, code)
    text = source_map.redact_file_names(optimised)
    hlo = hlo_graph(text, source_map.hlo_lines(text), max_nodes)
    return {"ok": True, "function": program.name, "device": label,
            "jaxpr_graph": jaxpr_graph(traced.jaxpr, max_nodes), "hlo_graph": hlo, "fusions": fusion_boxes(hlo)}


def graph_job(limits: Limits, code: str, args: str, static_argnums: list[int], on_accelerator: bool,
              device: Device) -> dict:
    """The registry's "graph" job: compiled on the device where ``on_accelerator`` asked for it."""
    return graphs(code, args, tuple(static_argnums), device=device if on_accelerator else None)
