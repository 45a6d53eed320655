"""Graphs as SVG: a graph's JSON (worker/jobs/graph.py) -> Graphviz's DOT -> ``dot -Tsvg``. Runs in the server.

The graph came from a worker, so it is untrusted data: it was checked against
its schema (replies.py), every id is one we can trust to be a plain name, and
every label is escaped here before Graphviz sees it. Graphviz's SVG is then
parsed and rebuilt from an allow-list of elements and attributes, so that
nothing but shapes and text reaches the page. Without Graphviz (``dot`` not on
PATH) or when it fails, the reply says why and keeps the DOT text.

>>> print(to_dot({"nodes": [{"id": "n0", "label": 'say "hi"', "kind": "op", "line": None, "cluster": None}],
...               "edges": [], "clusters": []}, {}).splitlines()[-2])
  "n0" [label="say \\"hi\\"", fillcolor="#ffffff"];
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

RENDER_TIMEOUT_S = 10.0
MAX_SVG_BYTES = 4 << 20
INSTALL_HINT = ("Graphviz draws these pictures and is not installed here: `apt install graphviz` (Debian, Ubuntu; "
                "packages.txt on a Hugging Face Space), `brew install graphviz` (macOS), `winget install graphviz` "
                "(Windows). The DOT text is in the API response.")
_KIND_STYLE = {
    "input": 'shape=invhouse, fillcolor="#e8f1ff"',
    "inner_input": 'shape=invhouse, fillcolor="#f4f4f4"',
    "output": 'shape=house, fillcolor="#e8f1ff"',
    "inner_output": 'shape=house, fillcolor="#f4f4f4"',
    "constant": 'shape=box, fillcolor="#f4f4f4"',
    "literal": 'shape=plaintext, style="", fontsize=9',
    "plumbing": 'fillcolor="#f7f7f7", fontcolor="#666666"',
}
_CLUSTER_STYLE = {
    "fusion": 'style="rounded,filled"; fillcolor="#fff8e6"; color="#d08700"; penwidth=2',
    "call": 'style="rounded"; color="#7a7a7a"',
    "jaxpr": 'style="rounded,dashed"; color="#4a76c9"',
    "computation": 'style="rounded,dashed"; color="#4a76c9"',
}
_SVG = "{http://www.w3.org/2000/svg}"
_ALLOWED_ELEMENTS = {"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "rect"}
_ALLOWED_ATTRIBUTES = {"width", "height", "viewBox", "transform", "id", "class", "fill", "stroke", "stroke-width",
                       "stroke-dasharray", "points", "d", "cx", "cy", "rx", "ry", "x", "y", "text-anchor",
                       "font-family", "font-size", "font-weight", "fill-opacity", "stroke-opacity"}
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def quoted(text: str) -> str:
    """A DOT string: backslashes and quotes escaped (so Graphviz's own escapes, like \\N, stay literal), newlines
    Graphviz's, control characters gone."""
    text = _CONTROL.sub("", text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def to_dot(graph: dict, colour: dict[int, str]) -> str:
    """The DOT text of a graph; nodes from a line of the user's code take that line's colour."""
    children: dict = {}
    for cluster in graph["clusters"]:
        children.setdefault(cluster["parent"], []).append(cluster)
    members: dict = {}
    for node in graph["nodes"]:
        members.setdefault(node["cluster"], []).append(node["id"])
    lines = ["digraph program {", '  graph [rankdir=TB, fontname="Helvetica", fontsize=10, nodesep=0.25, '
             'ranksep=0.3];', '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10, '
             'margin="0.08,0.03", height=0.3];', '  edge [color="#888888", arrowsize=0.6];']

    def emit(parent: str | None, indent: str) -> None:
        for cluster in children.get(parent, []):
            lines.append(f"{indent}subgraph cluster_{cluster['id']} {{")
            lines.append(f"{indent}  label={quoted(cluster['label'])}; "
                         f"{_CLUSTER_STYLE.get(cluster['kind'], '')};")
            emit(cluster["id"], indent + "  ")
            lines.append(f"{indent}}}")
        if parent is not None and members.get(parent):
            lines.append(f"{indent}{'; '.join(map(quoted, members[parent]))};")

    emit(None, "  ")
    for edge in graph["edges"]:
        lines.append(f"  {quoted(edge['from'])} -> {quoted(edge['to'])}{' [style=dashed]' if edge['dashed'] else ''};")
    for node in graph["nodes"]:
        style = _KIND_STYLE.get(node["kind"], "")
        fill = colour.get(node["line"], "#ffffff") if node["kind"] == "op" else None
        attributes = [f"label={quoted(node['label'])}"]
        if style:
            attributes.append(style)
        if fill:
            attributes.append(f'fillcolor="{fill}"')
        lines.append(f"  {quoted(node['id'])} [{', '.join(attributes)}];")
    lines.append("}")
    return "\n".join(lines)


def renderer() -> str | None:
    """Graphviz's ``dot`` program, or None where it is not installed."""
    return shutil.which("dot")


def render(dot_text: str) -> tuple[str, str | None]:
    """(the SVG, None) or ("", why not): Graphviz run on the DOT text, bounded in time and output."""
    program = renderer()
    if program is None:
        return "", INSTALL_HINT
    try:
        done = subprocess.run([program, "-Tsvg"], input=dot_text.encode(), capture_output=True,
                              timeout=RENDER_TIMEOUT_S, env={"PATH": "/usr/bin:/bin"}, check=False)
    except subprocess.TimeoutExpired:
        return "", f"Graphviz took over {RENDER_TIMEOUT_S:g} s to lay the graph out and was stopped."
    except OSError as exc:
        return "", f"Graphviz could not be started: {exc.strerror or exc}."
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip()[:300] or f"exit status {done.returncode}"
        return "", f"Graphviz could not draw this graph: {reason}"
    if len(done.stdout) > MAX_SVG_BYTES:
        return "", (f"The picture is too large to show ({len(done.stdout) / 2**20:.1f} MB of SVG, the limit is "
                    f"{MAX_SVG_BYTES >> 20} MB).")
    try:
        return clean_svg(done.stdout), None
    except ET.ParseError as exc:
        return "", f"Graphviz's picture could not be read: {exc}"


def clean_svg(svg: bytes) -> str:
    """The SVG rebuilt from allowed elements and attributes only (no scripts, links, styles or foreign content)."""
    start = svg.find(b"<svg")
    root = ET.fromstring(svg[start:] if start >= 0 else svg)  # no prologue or DOCTYPE, so no entities

    def keep(element: ET.Element) -> ET.Element | None:
        tag = element.tag.removeprefix(_SVG)
        if tag not in _ALLOWED_ELEMENTS:
            return None
        copy = ET.Element(tag, {k: v for k, v in element.attrib.items() if k in _ALLOWED_ATTRIBUTES})
        copy.text, copy.tail = element.text, element.tail
        for child in element:
            kept = keep(child)
            if kept is not None:
                copy.append(kept)
        return copy

    cleaned = keep(root)
    if cleaned is None:
        raise ET.ParseError("the picture is not an SVG")
    cleaned.set("xmlns", "http://www.w3.org/2000/svg")
    cleaned.set("style", "max-width:100%;height:auto")
    return ET.tostring(cleaned, encoding="unicode")


def draw(graph: dict, colour: dict[int, str]) -> dict:
    """``{"svg", "dot", "problem"}``: the picture (empty when it could not be drawn), its DOT text, and why not."""
    dot_text = to_dot(graph, colour)
    svg, problem = render(dot_text)
    return {"svg": svg, "dot": dot_text, "problem": problem}
