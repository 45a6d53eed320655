"""playground.server.compiler.graph_render: graph -> DOT -> SVG with Graphviz; labels escaped, SVG rebuilt from an
allow-list."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import pytest

from playground.server.compiler import graph_render
from playground.server.compiler.graph_render import clean_svg, draw, quoted, render, to_dot

needs_dot = pytest.mark.usefixtures("graphviz")
SVG = "{http://www.w3.org/2000/svg}"


def _node(ident: str, label: str, kind: str = "op", line: int | None = None, cluster: str | None = None) -> dict:
    return {"id": ident, "label": label, "kind": kind, "line": line, "cluster": cluster}


SMALL = {
    "nodes": [_node("n0", "x\nf32[4]", "input"), _node("n1", "multiply\nf32[4]", line=2, cluster="c1"),
              _node("n2", "add\nf32[4]", line=3, cluster="c1"), _node("n3", "negate\nf32[4]", cluster="c0"),
              _node("n4", "output\nf32[4]", "output")],
    "edges": [{"from": "n0", "to": "n1", "dashed": False}, {"from": "n1", "to": "n2", "dashed": False},
              {"from": "n2", "to": "n3", "dashed": True}, {"from": "n3", "to": "n4", "dashed": False}],
    "clusters": [{"id": "c0", "label": "call", "kind": "call", "parent": None},
                 {"id": "c1", "label": "fusion: multiply_add_fusion", "kind": "fusion", "parent": "c0"}],
    "left_out": 0,
}


def _svg_root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter() if g.tag in (f"{SVG}g", "g") and g.get("class") == kind]


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter() if t.tag in (f"{SVG}text", "text")]


def _one_node_graph(label: str) -> dict:
    return {"nodes": [_node("n0", label)], "edges": [], "clusters": []}


def _script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


# -- quoted -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("plain", '"plain"'),
    ('say "hi"', r'"say \"hi\""'),
    ("a\\b", r'"a\\b"'),
    ("two\nlines", r'"two\nlines"'),
    ("\\N", r'"\\N"'),  # Graphviz's own escape (the node's name) stays literal
    ("tab\there\rbell\x07nul\x00esc\x1bdel\x7f", '"tabherebellnulescdel"'),
    ("", '""'),
    ("ends with \\", r'"ends with \\"'),
])
def test_quoted_escapes_backslashes_quotes_newlines_and_drops_control_characters(text, expected):
    assert quoted(text) == expected


def test_quoted_leaves_no_unescaped_quote_inside():
    for text in ('a\\"; } digraph x { b', '"', '\\"', '\\\\"', 'x\\', '"]; n9 [label="evil'):
        inner = quoted(text)[1:-1]
        i = 0
        while i < len(inner):
            if inner[i] == "\\":
                i += 2  # an escape pair
                continue
            assert inner[i] != '"', (text, inner)
            i += 1


# -- to_dot and real Graphviz -----------------------------------------------------------------------------------------

def test_to_dot_nests_clusters_and_lists_members_inside_their_cluster():
    dot = to_dot(SMALL, {})
    lines = dot.splitlines()
    outer = next(i for i, line in enumerate(lines) if "subgraph cluster_c0 {" in line)
    inner = next(i for i, line in enumerate(lines) if "subgraph cluster_c1 {" in line)
    assert outer < inner
    assert lines[inner + 2].strip() == '"n1"; "n2";'
    assert dot.startswith("digraph program {") and dot.endswith("}")
    assert '"n2" -> "n3" [style=dashed];' in dot
    assert '"n0" -> "n1";' in dot


def test_to_dot_colours_op_nodes_by_their_line_and_white_without_one():
    dot = to_dot(SMALL, {2: "#fde2e4"})
    lines = {line.split(" [")[0].strip(): line for line in dot.splitlines() if line.strip().startswith('"n')
             and "->" not in line}
    assert 'fillcolor="#fde2e4"' in lines['"n1"']
    assert 'fillcolor="#ffffff"' in lines['"n2"']  # line 3 has no colour
    assert 'fillcolor="#e8f1ff"' in lines['"n0"'] and "fde2e4" not in lines['"n0"']  # inputs keep their own


@needs_dot
def test_to_dot_renders_with_real_graphviz_one_group_per_cluster():
    svg, problem = render(to_dot(SMALL, {2: "#fde2e4"}))
    assert problem is None
    root = _svg_root(svg)
    assert len(_groups(root, "cluster")) == len(SMALL["clusters"])
    assert len(_groups(root, "node")) == len(SMALL["nodes"])
    assert len(_groups(root, "edge")) == len(SMALL["edges"])
    texts = _texts(root)
    for label in ("call", "fusion: multiply_add_fusion", "multiply", "f32[4]"):
        assert label in texts
    assert svg.count('<g id="clust') == 2


@needs_dot
@pytest.mark.parametrize("label", ['a\\"; } digraph x { b', 'ends with \\', '"]; n9 [label="evil',
                                   'x\\"]; n9 [label="evil', "}\n}\ndigraph y {"])
def test_a_hostile_label_stays_one_label_of_one_node(label):
    svg, problem = render(to_dot(_one_node_graph(label), {}))
    assert problem is None, problem
    root = _svg_root(svg)
    [node] = _groups(root, "node")
    assert [t.text for t in node.iter() if t.tag == f"{SVG}title"] == ["n0"]
    assert _texts(node) == label.split("\n")


@needs_dot
def test_graphviz_escapes_in_labels_are_shown_as_typed():
    svg, problem = render(to_dot(_one_node_graph("\\N \\G \\L"), {}))
    assert problem is None
    assert _texts(_svg_root(svg)) == ["\\N \\G \\L"]


@needs_dot
def test_markup_in_a_label_arrives_as_text():
    svg, problem = render(to_dot(_one_node_graph("<script>alert(1)</script>"), {}))
    assert problem is None
    assert "<script" not in svg
    assert _texts(_svg_root(svg)) == ["<script>alert(1)</script>"]


# -- clean_svg --------------------------------------------------------------------------------------------------------

MALICIOUS = b"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100pt" height="50pt"
     onload="alert('svg')" viewBox="0 0 100 50">
<script type="text/javascript">alert('script')</script>
<style>text { fill: red; background: url(https://evil.example/x) }</style>
<g id="graph0" class="graph" onclick="alert('g')" style="cursor:pointer" transform="translate(4 46)">
  <title>program</title>
  <a xlink:href="javascript:alert('a')" href="javascript:alert('a2')"><text x="1" y="2">inside a link</text></a>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">html</div></foreignObject>
  <image xlink:href="https://evil.example/i.png" width="1" height="1"/>
  <use xlink:href="#graph0"/>
  <polygon fill="white" stroke="black" points="0,0 1,1" onmouseover="alert('p')" xlink:href="#x"/>
  <text x="5" y="6" onmouseover="alert('t')" font-size="10" style="fill:red">kept &lt;b&gt; text</text>
  <animate attributeName="href" to="javascript:alert(1)"/>
  <set attributeName="onclick" to="alert(1)"/>
  <iframe src="https://evil.example"/>
</g>
</svg>
"""


def test_clean_svg_keeps_only_shapes_and_text():
    cleaned = clean_svg(MALICIOUS)
    lowered = cleaned.lower()
    for word in ("<script", "<style", "<foreignobject", "<a ", "<a>", "<image", "<use", "<animate", "<set", "<iframe",
                 "javascript:", "alert", "href", "onload", "onclick", "onmouseover", "evil.example", "doctype",
                 "<div", "inside a link"):
        assert word not in lowered, word
    root = _svg_root(cleaned)
    assert root.tag == f"{SVG}svg"
    assert root.get("style") == "max-width:100%;height:auto"  # ours, not the picture's
    assert (root.get("width"), root.get("viewBox")) == ("100pt", "0 0 100 50")
    [polygon] = [e for e in root.iter() if e.tag == f"{SVG}polygon"]
    assert polygon.attrib == {"fill": "white", "stroke": "black", "points": "0,0 1,1"}
    [text] = [e for e in root.iter() if e.tag == f"{SVG}text"]
    assert text.text == "kept <b> text"
    assert text.attrib == {"x": "5", "y": "6", "font-size": "10"}
    assert "&lt;b&gt;" in cleaned


def test_every_element_and_attribute_left_is_on_the_allow_lists():
    root = _svg_root(clean_svg(MALICIOUS))
    for element in root.iter():
        assert element.tag.removeprefix(SVG) in graph_render._ALLOWED_ELEMENTS
        assert set(element.attrib) <= graph_render._ALLOWED_ATTRIBUTES | {"style"} if element is root else \
            set(element.attrib) <= graph_render._ALLOWED_ATTRIBUTES


def test_clean_svg_without_a_namespace_and_with_elements_of_other_namespaces():
    cleaned = clean_svg(b'<svg><g xmlns:s="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml">'
                        b'<h:script>alert(1)</h:script><s:text>ok</s:text><text>fine</text></g></svg>')
    assert "script" not in cleaned and "alert" not in cleaned
    assert _texts(_svg_root(cleaned)) == ["ok", "fine"]


def test_clean_svg_refuses_what_is_not_an_svg():
    with pytest.raises(ET.ParseError):
        clean_svg(b"<html><body>no</body></html>")
    with pytest.raises(ET.ParseError):
        clean_svg(b"not xml at all")
    with pytest.raises(ET.ParseError):
        clean_svg(b"<svg><text>unclosed</svg>")


def test_clean_svg_never_expands_entities():
    bomb = (b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
            b"<svg><text>&b;</text></svg>")
    with pytest.raises(ET.ParseError):  # the DOCTYPE is cut off, so the entity is unknown
        clean_svg(bomb)


# -- render and draw: without Graphviz, with a failing one ------------------------------------------------------------

def test_without_graphviz_render_gives_the_install_hint(monkeypatch):
    monkeypatch.setattr(graph_render, "renderer", lambda: None)
    assert render(to_dot(SMALL, {})) == ("", graph_render.INSTALL_HINT)
    drawn = draw(SMALL, {})
    assert drawn == {"svg": "", "dot": to_dot(SMALL, {}), "problem": graph_render.INSTALL_HINT}


def test_a_dot_that_fails_gives_its_message(tmp_path, monkeypatch):
    failing = _script(tmp_path, "dot", "echo 'Error: syntax error in line 3' >&2\nexit 1")
    monkeypatch.setattr(graph_render, "renderer", lambda: failing)
    svg, problem = render(to_dot(SMALL, {}))
    assert svg == ""
    assert problem == "Graphviz could not draw this graph: Error: syntax error in line 3"


def test_a_dot_that_fails_silently_gives_its_exit_status(tmp_path, monkeypatch):
    failing = _script(tmp_path, "dot", "exit 1")
    monkeypatch.setattr(graph_render, "renderer", lambda: failing)
    assert render("digraph {}") == ("", "Graphviz could not draw this graph: exit status 1")


def test_a_dot_that_cannot_start_says_so(tmp_path, monkeypatch):
    missing = str(tmp_path / "no-such-dot")
    monkeypatch.setattr(graph_render, "renderer", lambda: missing)
    svg, problem = render("digraph {}")
    assert svg == "" and problem.startswith("Graphviz could not be started")


def test_a_dot_that_hangs_is_stopped(tmp_path, monkeypatch):
    hanging = _script(tmp_path, "dot", "exec sleep 60")
    monkeypatch.setattr(graph_render, "renderer", lambda: hanging)
    monkeypatch.setattr(graph_render, "RENDER_TIMEOUT_S", 0.2)
    assert render("digraph {}") == ("", "Graphviz took over 0.2 s to lay the graph out and was stopped.")


def test_a_dot_that_prints_something_other_than_svg_is_refused(tmp_path, monkeypatch):
    garbage = _script(tmp_path, "dot", "echo '<svg><script>alert(1)'")
    monkeypatch.setattr(graph_render, "renderer", lambda: garbage)
    svg, problem = render("digraph {}")
    assert svg == "" and problem.startswith("Graphviz's picture could not be read")


def test_a_dots_output_is_cleaned(tmp_path, monkeypatch):
    sneaky = _script(tmp_path, "dot", "echo '<svg><script>alert(1)</script><text onclick=\"x\">t</text></svg>'")
    monkeypatch.setattr(graph_render, "renderer", lambda: sneaky)
    svg, problem = render("digraph {}")
    assert problem is None
    assert "script" not in svg and "onclick" not in svg and _texts(_svg_root(svg)) == ["t"]


def test_dot_runs_with_a_bare_environment(tmp_path, monkeypatch):
    reporter = _script(tmp_path, "dot", "printf '<svg><text>%s|%s</text></svg>' \"$PATH\" \"${SECRET_TOKEN:-none}\"")
    monkeypatch.setattr(graph_render, "renderer", lambda: reporter)
    monkeypatch.setenv("SECRET_TOKEN", "hf_should_not_leak")
    svg, problem = render("digraph {}")
    assert problem is None
    assert _texts(_svg_root(svg)) == ["/usr/bin:/bin|none"]


def test_a_picture_over_the_size_cap_is_refused_with_a_reason_about_its_size(tmp_path, monkeypatch):
    monkeypatch.setattr(graph_render, "MAX_SVG_BYTES", 10)
    big = _script(tmp_path, "dot", "echo '<svg><text>a picture of more than ten bytes</text></svg>'")
    monkeypatch.setattr(graph_render, "renderer", lambda: big)
    svg, problem = render("digraph {}")
    assert svg == ""
    assert problem and "exit status 0" not in problem  # Graphviz did not fail: the picture was too large


def test_the_renderer_is_dot_on_path(monkeypatch, tmp_path):
    fake = _script(tmp_path, "dot", "exit 0")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    assert graph_render.renderer() == fake
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert graph_render.renderer() is None


@needs_dot
def test_draw_gives_the_svg_its_dot_and_no_problem():
    drawn = draw(SMALL, {2: "#fde2e4"})
    assert set(drawn) == {"svg", "dot", "problem"}
    assert drawn["problem"] is None
    assert drawn["dot"] == to_dot(SMALL, {2: "#fde2e4"})
    assert drawn["svg"].startswith("<svg") and len(_groups(_svg_root(drawn["svg"]), "cluster")) == 2
    assert 'fill="#fde2e4"' in drawn["svg"]
