"""playground.server.ui.inspect_views: real /inspect responses (staging.inspect, in-process) into Markdown and HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from playground import line_colours
from playground.errors import ERROR_KINDS, TITLES
from playground.gallery import EXAMPLES
from playground.server.ui import inspect_views as views
from playground.server.ui.error_views import error_markdown
from playground.server.ui.inspect_views import (
    pytree_markdown,
    source_ir_html,
    stages_markdown,
    status_markdown,
)
from playground.server.ui.markdown import verdict
from playground.worker.jobs import inspect as staging

ERROR, OK, WARNING = (verdict("error"), verdict("ok"), verdict("warning"))  # the labels that replaced emoji

THREE_LINES = "def f(x):\n    y = jnp.sin(x)\n    z = y * 2\n    return z + 1\n"
TRACER_CODE = "def f(x):\n    if x > 0:\n        return x\n    return -x"


def inspect(code: str, args: str, static_argnums: tuple[int, ...] = (), second_args: str = "") -> dict:
    response = staging.inspect(code, args, 200_000, static_argnums, second_args)
    assert response["ok"], response
    return response


@pytest.fixture(scope="module")
def three_lines() -> dict:
    return inspect(THREE_LINES, "jnp.arange(3.0)")


# --- error_markdown -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_error_markdown_every_kind_has_its_own_title(kind):
    text = error_markdown({"kind": kind, "message": "details here", "line": None})
    assert text.startswith(f"{ERROR} **")
    first_line = text.splitlines()[0]
    assert first_line != f"{ERROR} **Error**", f"kind {kind!r} falls back to the generic title"
    assert "line" not in first_line
    assert text.endswith("```\ndetails here\n```")


def test_error_markdown_titles_are_distinct():
    titles = {error_markdown({"kind": k, "message": "m", "line": None}).splitlines()[0] for k in ERROR_KINDS}
    assert len(titles) == len(ERROR_KINDS)
    assert all(f"**{TITLES[k]}**" in error_markdown({"kind": k, "message": "m", "line": None}) for k in ERROR_KINDS)


def test_error_markdown_folds_the_details_of_a_short_server_message():
    from playground import messages
    from playground.errors import said_error

    error = said_error("unavailable", messages.piece("data.offline", dataset="MNIST"),
                       fix=messages.piece("data.offline_fix", folder="MNIST_DIR"),
                       details="Not in MNIST_DIR (not set), nor in the cache /c. <b>HTTP 404</b>")["error"]
    text = error_markdown(error)
    head, folded = text.split("<details>")
    assert head.startswith(f"{ERROR} **Not available here**\n\nMNIST is not on this machine")
    assert "**How to fix it:** Pick “digits”" in head and "`make data`" in head and "/c" not in head
    assert folded.startswith("<summary>Details</summary>") and "HTTP 404" in folded and folded.endswith("</details>")
    assert "```\nNot in MNIST_DIR" in folded  # in a code block: quoted, not markup
    german = error_markdown(error, "de")
    assert "ist nicht auf diesem Rechner" in german and "<summary>Details</summary>" in german
    assert "本机上没有 MNIST" in error_markdown(error, "zh") and "<summary>详细信息</summary>" in \
        error_markdown(error, "zh")


def test_error_markdown_with_line():
    text = error_markdown({"kind": "syntax", "message": "SyntaxError: invalid syntax", "line": 7})
    assert text.splitlines()[0] == f"{ERROR} **Syntax error on line 7**"


def test_error_markdown_without_line_key():
    assert error_markdown({"kind": "timeout", "message": "m"}).splitlines()[0] == f"{ERROR} **Too slow**"


def test_error_markdown_unknown_kind_is_generic():
    assert error_markdown({"kind": "something_new", "message": "m"}).startswith(f"{ERROR} **Error**")


@pytest.mark.parametrize("message", ["a\n```\n# heading", "```", "x ```` y", "``````\n**bold**"])
def test_error_markdown_message_cannot_close_the_code_fence(message):
    text = error_markdown({"kind": "user_exception", "message": message, "line": 2})
    assert text.count("```") == 2
    assert text.startswith(f"{ERROR} **Your code raised an exception on line 2**\n\n```\n")
    assert text.endswith("\n```")
    inside = text[text.index("```\n") + 4:-4]
    assert "```" not in inside
    assert "‘‘‘" in inside


def test_error_markdown_tracer_error_shows_title_explanation_fix_and_link():
    response = staging.inspect(TRACER_CODE, "2.0", 200_000)
    error = response["error"]
    assert {"title", "explanation", "fix", "doc_url"} <= set(error)
    text = error_markdown(error)
    parts = text.split("\n\n")
    assert parts[0] == f"{ERROR} **{error['title']} on line 2**"
    assert parts[1] == error["explanation"]  # nothing in it needed escaping
    assert f"**How to fix it:** {error['fix']}" in text  # its fenced example stays a code block
    assert "jnp.where" in text and "lax.cond" in text
    assert f"[Read more in the JAX documentation]({error['doc_url']})" in text
    # The message comes last, in its own fence, after the fix's own code block.
    assert text.index("How to fix it") < text.index("Read more") < text.rindex(error["message"].splitlines()[0])
    assert text.endswith("\n```")


def test_error_markdown_tracer_fields_are_optional():
    text = error_markdown({"kind": "user_exception", "message": "m", "line": 1, "title": "Custom title"})
    assert text.splitlines()[0] == f"{ERROR} **Custom title on line 1**"
    assert "How to fix it" not in text and "Read more" not in text


# --- status_markdown ----------------------------------------------------------------------------------------------


def test_status_markdown_clean_run(three_lines):
    assert status_markdown(three_lines) == f"{OK} Traced, lowered and compiled `f` for cpu."


@pytest.mark.parametrize(("code", "language", "said"), [
    ("def loss(w):\n    return jnp.sum(w ** 2)\ngrad_loss = jax.grad(loss)\n", "en",
     "- It ran `grad_loss = jax.grad(loss)`: the last function your code makes with a JAX transformation."),
    ("def loss(w):\n    return jnp.sum(w ** 2)\ngrad_loss = jax.grad(loss)\n", "de",
     "- Ausgeführt wurde `grad_loss = jax.grad(loss)`: die letzte Funktion, die dein Code mit einer "
     "JAX-Transformation erzeugt."),
    ("def loss(w):\n    return jnp.sum(w ** 2)\n", "zh", "- 运行的是 `loss`，即你的代码定义的最后一个函数"),
])
def test_status_markdown_says_which_function_ran_where_it_is_not_f(code, language, said):
    lines = status_markdown(inspect(code, "jnp.arange(3.0)"), language, code).splitlines()
    assert lines[1].startswith(said), lines


def test_status_markdown_says_nothing_of_the_pick_for_f(three_lines):
    assert len(status_markdown(three_lines, "en", THREE_LINES).splitlines()) == 1


def test_status_markdown_lists_purity_findings_with_their_lines():
    response = inspect("def f(x):\n    print('x is', x)\n    return x * 2\n", "jnp.arange(3.0)")
    text = status_markdown(response)
    (finding,) = response["purity"]
    assert f"- {WARNING} **Purity** ({finding['check']}) line 2: {finding['message']}" in text.splitlines()
    assert "jax.debug.print" in text


def test_status_markdown_finding_without_line():
    response = {"function": "g", "purity": [{"check": "behaviour", "line": None, "message": "two traces differ"}]}
    assert status_markdown(response).splitlines() == [
        f"{OK} Traced, lowered and compiled `g`.", f"- {WARNING} **Purity** (behaviour) two traces differ"]


@pytest.mark.parametrize(("retraced", "verdict"), [
    (True, "**Second call retraced.**"),
    (False, "**Second call reused the compiled program.**"),
    (None, "**Second call failed.**"),
])
def test_status_markdown_retrace_verdicts(retraced, verdict):
    text = status_markdown({"function": "f", "retrace": {"retraced": retraced, "explanation": "because\nreasons"}})
    assert f"- {verdict}\n\n```\nbecause\nreasons\n```" in text


def test_status_markdown_real_retrace_verdicts():
    again = inspect("def f(x):\n    return jnp.sum(x ** 2)\n", "jnp.ones(3)", second_args="jnp.ones(5)")
    assert "**Second call retraced.**" in status_markdown(again)
    assert "f32[5]" in status_markdown(again)
    same = inspect("def f(x):\n    return jnp.sum(x ** 2)\n", "jnp.ones(3)", second_args="jnp.zeros(3)")
    assert "**Second call reused the compiled program.**" in status_markdown(same)
    failed = inspect("def f(x):\n    return jnp.sum(x ** 2)\n", "jnp.ones(3)", second_args="undefined_name")
    assert "**Second call failed.**" in status_markdown(failed)
    assert "NameError" in status_markdown(failed)


def test_status_markdown_retrace_explanation_cannot_close_the_code_fence():
    code = 'def f(x):\n    if x.shape[0] > 3:\n        raise ValueError("```\\n# heading")\n    return x\n'
    response = inspect(code, "jnp.ones(3)", second_args="jnp.ones(5)")
    assert response["retrace"]["retraced"] is None
    assert status_markdown(response).count("```") == 2


def test_status_markdown_warnings_are_listed():
    text = status_markdown({"function": "f", "warnings": ["UserWarning: careful", "printed while traced"]})
    assert text.splitlines()[1:] == ["- UserWarning: careful", "- printed while traced"]


# --- stages_markdown ----------------------------------------------------------------------------------------------


def _table(text: str, heading: str) -> dict[str, str]:
    """The body rows of the table under ``#### heading`` (header and rule left out), label -> value."""
    section = text.split(f"#### {heading}")[1].split("####")[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    rule = next(i for i, line in enumerate(lines) if line.startswith("|---"))
    rows = [line.strip("|").split("|") for line in lines[rule + 1:]]
    return {label.strip(): value.strip() for label, value in rows}


SYNTHETIC = {
    "trace_s": 0.0123, "lower_s": 0.004, "compile_s": 1.5, "run_s": 0.00005,
    "cost": {"flops": 1_234_567.0, "bytes_accessed": 0.0, "transcendentals": None,
             "unavailable": {"transcendentals": "the cpu backend did not report transcendentals"}},
    "memory": {"argument_bytes": 16, "output_bytes": 4096, "temp_bytes": 0, "generated_code_bytes": 1_000_000},
}


def test_stages_markdown_timings_in_ms():
    stages = _table(stages_markdown(SYNTHETIC), "Stages")
    assert stages == {
        "trace (Python -> jaxpr)": "12.3 ms", "lower (jaxpr -> StableHLO)": "4.0 ms",
        "compile (StableHLO -> optimised HLO)": "1,500.0 ms", "run": "0.1 ms",
    }


def test_stages_markdown_cost_numbers_and_reasons_for_nulls():
    cost = _table(stages_markdown(SYNTHETIC), "Cost (XLA's estimate)")
    assert cost == {"flops": "1,234,567", "bytes accessed": "0",
                    "transcendentals": "not reported: the cpu backend did not report transcendentals"}


def test_stages_markdown_memory_rows():
    memory = _table(stages_markdown(SYNTHETIC), "Memory (XLA's plan)")
    assert memory == {"arguments": "16 B", "outputs": "4,096 B", "temporaries": "0 B",
                      "generated code": "1,000,000 B"}


def test_stages_markdown_memory_all_null_shows_the_reason():
    reason = "the gpu backend did not report memory use"
    memory = {"argument_bytes": None, "output_bytes": None, "temp_bytes": None, "generated_code_bytes": None,
              "unavailable": reason}
    rows = _table(stages_markdown({**SYNTHETIC, "memory": memory}), "Memory (XLA's plan)")
    assert rows == dict.fromkeys(("arguments", "outputs", "temporaries", "generated code"), reason)


def test_stages_markdown_real_response(three_lines):
    text = stages_markdown(three_lines)
    stages = _table(text, "Stages")
    assert len(stages) == 4
    for key, value in zip(("trace_s", "lower_s", "compile_s", "run_s"), stages.values(), strict=True):
        assert value == f"{three_lines[key] * 1000:.1f} ms"
    cost = _table(text, "Cost (XLA's estimate)")
    for label, key in (("flops", "flops"), ("bytes accessed", "bytes_accessed"), ("transcendentals",
                                                                                   "transcendentals")):
        value = three_lines["cost"][key]
        if value is None:
            assert cost[label] == "not reported: " + three_lines["cost"]["unavailable"][key]
        else:
            assert cost[label] == f"{value:,.0f}"
    memory = _table(text, "Memory (XLA's plan)")
    if three_lines["memory"].get("argument_bytes") is not None:
        assert memory["arguments"] == "12 B"  # three float32s
        assert memory["outputs"] == "12 B"


# --- pytree_markdown ----------------------------------------------------------------------------------------------


def test_pytree_markdown_key_paths_and_root():
    response = inspect(EXAMPLES[0].code, EXAMPLES[0].args)
    text = pytree_markdown(response["pytree"])
    inputs, outputs = text.split("#### Outputs")
    assert inputs.startswith("#### Inputs\n`PyTreeDef((*,))`")
    assert "| `[0]` | [4] | float32 |" in inputs
    assert "`PyTreeDef(*)`" in outputs
    assert "| `(root)` | [4] | float32 |" in outputs
    assert "Static argument" not in text


def test_pytree_markdown_nested_inputs():
    mlp = next(e for e in EXAMPLES if "MLP" in e.name)
    response = inspect(mlp.code, mlp.args)
    text = pytree_markdown(response["pytree"])
    inputs = text.split("#### Outputs")[0]
    assert f"`{response['pytree']['inputs']['treedef']}`" in inputs
    rows = [line for line in inputs.splitlines() if line.startswith("| `")]
    assert len(rows) == 5  # w1, b1, w2, b2 and x
    assert "| `[0]['w1']` | [3, 4] | float32 |" in rows
    assert "| `[1]` | [3] | float32 |" in rows


def test_pytree_markdown_static_arguments():
    response = inspect("def f(x, n):\n    return x * n\n", "(jnp.ones(3), 2)", static_argnums=(1,))
    text = pytree_markdown(response["pytree"])
    assert "Static argument 1: `2` (part of the cache key, not traced)" in text
    inputs = text.split("#### Outputs")[0]
    assert [line for line in inputs.splitlines() if line.startswith("| `")] == ["| `[0]` | [3] | float32 |"]


# --- source_ir_html -----------------------------------------------------------------------------------------------


class Panes(HTMLParser):
    """Each pane's title, its rows (data-line, background colour, title attribute, text) and notices."""

    def __init__(self, html_text: str):
        super().__init__()
        self.panes: dict[str, dict] = {}
        self._title: str | None = None
        self._pane: dict | None = None
        self._row: dict | None = None
        self.feed(html_text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "b":
            self._title = ""
        elif tag == "div" and "data-line" in attrs:
            match = re.search(r"background:([^;]+);", attrs.get("style") or "")
            self._row = {"line": attrs["data-line"], "background": match and match.group(1),
                         "title": attrs.get("title"), "text": ""}
        elif tag == "div" and not attrs and self._pane is not None:
            self._row = {"notice": True, "text": ""}

    def handle_data(self, data):
        if self._title is not None:
            self._title += data
        elif self._row is not None:
            self._row["text"] += data

    def handle_endtag(self, tag):
        if tag == "b":
            self._pane = self.panes[self._title] = {"rows": [], "notices": []}
            self._title = None
        elif tag == "div" and self._row is not None:
            row, self._row = self._row, None
            self._pane["notices" if row.pop("notice", False) else "rows"].append(row)


def test_source_ir_html_has_three_panes_with_every_line(three_lines):
    panes = Panes(source_ir_html(THREE_LINES, three_lines)).panes
    assert list(panes) == ["Your code", "jaxpr", "StableHLO"]
    source = panes["Your code"]["rows"]
    assert [r["text"] for r in source] == [f"{i:>3}  {t}" for i, t in enumerate(THREE_LINES.splitlines(), 1)]
    assert [r["line"] for r in source] == ["1", "2", "3", "4"]
    for pane, key in (("jaxpr", "jaxpr"), ("StableHLO", "stablehlo")):
        rows = panes[pane]["rows"]
        assert [r["text"] for r in rows] == [t or "\xa0" for t in three_lines[key].splitlines()]
        assert [r["line"] for r in rows] == [str(n) if n else "" for n in three_lines["line_map"][key]]
        assert panes[pane]["notices"] == []


def test_source_ir_html_each_user_line_shares_its_colour_with_its_ir(three_lines):
    line_map = three_lines["line_map"]
    assert {n for n in line_map["jaxpr"] if n} == {2, 3, 4}
    assert {n for n in line_map["stablehlo"] if n} == {2, 3, 4}
    panes = Panes(source_ir_html(THREE_LINES, three_lines)).panes
    source = {int(r["line"]): r["background"] for r in panes["Your code"]["rows"]}
    assert source[1] is None  # `def f(x):` produced no IR
    colours = {line: source[line] for line in (2, 3, 4)}
    assert all(colours.values())
    assert len(set(colours.values())) == 3, colours
    for pane in ("jaxpr", "StableHLO"):
        for row in panes[pane]["rows"]:
            if row["line"]:
                line = int(row["line"])
                assert row["background"] == colours[line], (pane, row)
                assert row["title"] == f"from line {line}"
            else:
                assert row["background"] is None and row["title"] is None, (pane, row)
    # Each user line is coloured in both IR panes.
    for line, colour in colours.items():
        for pane in ("jaxpr", "StableHLO"):
            assert any(r["background"] == colour for r in panes[pane]["rows"]), (pane, line)


def test_source_ir_html_distinct_colours_for_a_palette_of_lines():
    body = "".join(f"    x = jnp.sin(x) * {k}.0\n" for k in range(2, 2 + len(line_colours.PALETTE) - 1))
    code = f"def f(x):\n{body}    return x\n"
    response = inspect(code, "jnp.ones(2)")
    used = {n for n in response["line_map"]["jaxpr"] if n}
    assert len(used) == len(line_colours.PALETTE) - 1
    panes = Panes(source_ir_html(code, response)).panes
    colours = [r["background"] for r in panes["Your code"]["rows"] if r["background"]]
    assert len(colours) == len(used) == len(set(colours))


def test_source_ir_html_escapes_html_in_code_and_ir():
    code = "def f(x):\n    y = x < 2  # a & b </div><script>alert(1)</script>\n    return jnp.where(y, x, 0.0)\n"
    response = inspect(code, "jnp.arange(4.0)")
    page = source_ir_html(code, response)
    assert "x &lt; 2  # a &amp; b &lt;/div&gt;&lt;script&gt;" in page
    assert "<script>" not in page and "x < 2" not in page
    assert "tensor<" not in page and "tensor&lt;4xf32&gt;" in page
    panes = Panes(page).panes
    assert list(panes) == ["Your code", "jaxpr", "StableHLO"]
    assert panes["Your code"]["rows"][1]["text"] == "  2  " + code.splitlines()[1]
    assert [r["text"] for r in panes["StableHLO"]["rows"]] == response["stablehlo"].splitlines()


def test_source_ir_html_cuts_long_panes_with_a_notice():
    code = "def f(x):\n    for _ in range(500):\n        x = x + 1.0\n    return x\n"
    response = inspect(code, "jnp.ones(2)")
    panes = Panes(source_ir_html(code, response)).panes
    for pane, key in (("jaxpr", "jaxpr"), ("StableHLO", "stablehlo")):
        total = len(response[key].splitlines())
        assert total > views.DISPLAY_LINES
        rows = panes[pane]["rows"]
        assert len(rows) == views.DISPLAY_LINES
        assert [r["text"] for r in rows] == response[key].splitlines()[:views.DISPLAY_LINES]
        assert [n["text"] for n in panes[pane]["notices"]] == [f"… {total - views.DISPLAY_LINES:,} more lines"]
    assert panes["Your code"]["notices"] == []
    assert len(panes["Your code"]["rows"]) == 4


def test_source_ir_html_without_a_line_map_colours_nothing(three_lines):
    response = {k: v for k, v in three_lines.items() if k != "line_map"}
    panes = Panes(source_ir_html(THREE_LINES, response)).panes
    assert all(r["background"] is None for pane in panes.values() for r in pane["rows"])
    assert len(panes["jaxpr"]["rows"]) == len(three_lines["jaxpr"].splitlines())
