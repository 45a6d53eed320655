"""Pure builders for the Derivatives tab: a /derivatives or /gradient response in, Markdown and figures out."""

from __future__ import annotations

import ast

from playground import derivative_notes, messages, user_ast
from playground.messages import numbers
from playground.server.ui import markdown as md
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.figures import plots
from playground.server.ui.picked_function import picked_note

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, WARNING, BUSY = (md.verdict(kind) for kind in ("ok", "warning", "busy"))


def running_orders(language: str = "en", code: str = "") -> str:
    """The Differentiate status while its job runs: where ``code`` has a Python ``if``, ``while`` or ternary (which
    may read x, so that jit cannot trace it), that such a function is differentiated point by point, slower."""
    tree = user_ast.try_parse(code)
    branches = tree is not None and any(isinstance(node, (ast.If, ast.While, ast.IfExp)) for node in ast.walk(tree))
    key = "deriv.running_branches" if branches else "deriv.running_orders"
    return f"{md.verdict('busy', language)} {messages.say(key, language)}"


def running_gradient(language: str = "en") -> str:
    """The gradient's status while its job runs."""
    return f"{md.verdict('busy', language)} {messages.say('deriv.running_gradient', language)}"


def render_orders(response: dict, language: str = "en", code: str = "") -> tuple:
    """(status, curves, checks table, growth figure) for a /derivatives response; our words in ``language``; the
    status says which function ran where ``code`` (the source that was sent) does not make it plain."""
    if not response.get("ok"):  # which function it tried, too: a wrong one is a common cause
        return _with_picked(error_markdown(response["error"], language, labels=LABELS["derivatives"]), code,
                            language), None, "", None
    orders, xs = response["orders"], response["xs"]
    point_by_point = response.get("point_by_point")
    eqns, ops = response.get("eqn_counts") or [], response.get("hlo_op_counts") or []
    rows = "\n".join(
        f"| {plots.order_label(o['n'])} | {_reference(o.get('reference'), language)} | "
        f"{_error_text(o.get('max_error'), language)} | {_count(eqns, i, language)} | {_count(ops, i, language)} |"
        for i, o in enumerate(orders)
    )
    table = messages.say("deriv.table_head", language) + "\n|---|---|---|---|---|\n" + rows
    table += "".join(f"\n\n{md.verdict('warning', language)} {md.text(note)}" for note in _notes(response, language))
    if point_by_point is None:
        figure = plots.derivatives_figure(xs, orders, language=language)
        done = messages.say("deriv.done", language, function=md.code(response["function"]), count=len(orders) - 1,
                            points=numbers.number(len(xs), language), dtype=md.text(response.get("dtype", "float64")))
        status = _with_breaks(f"{md.verdict('ok', language)} {done}", response, language)
        return _with_picked(status, code, language), figure, table, plots.growth_figure(eqns, ops, language)
    figure = plots.derivatives_figure(xs, orders, point_by_point=True, language=language)
    table += "\n\n" + messages.say("deriv.no_sizes", language)
    status = _with_breaks(point_by_point_status(response, language), response, language)
    return _with_picked(status, code, language), figure, table, None


def _notes(response: dict, language: str) -> list[str]:
    """The reply's notes, those its facts say (points left out, where f is not smooth) written again in
    ``language`` (the others, a dtype other than float64, stay the API's English)."""
    english = derivative_notes.notes(response)
    others = [note for note in response.get("notes") or [] if note not in english]
    return others + derivative_notes.notes(response, language)


def _with_breaks(status: str, response: dict, language: str) -> str:
    """The status, and under it where f is not smooth: the curves show a jump that autodiff's slopes do not."""
    breaks = response.get("breaks")
    line = derivative_notes.headline(response["function"], breaks, language) if breaks else None
    return f"{status}\n\n{md.verdict('warning', language)} {md.text(line)}" if line else status


def _with_picked(status: str, code: str, language: str) -> str:
    note = picked_note(code, language)
    return f"{status}\n\n{note}" if note else status


def point_by_point_status(response: dict, language: str = "en") -> str:
    """Why jit was left out, how many points were done in how long, and what to do if not all of them, in
    ``language``."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    run, order = response["point_by_point"], len(response["orders"]) - 1
    done, grid = run["points"], run["grid_points"]
    done_text, grid_text = numbers.number(done, language), numbers.number(grid, language)
    head = say("deriv.pbp_head", function=md.code(response["function"]), order=order, done=done_text, grid=grid_text,
               dtype=md.text(response.get("dtype", "float64")))
    timing = say("deriv.pbp_timing", all=say("deriv.pbp_all") if done == grid else "", done=done_text,
                 seconds=numbers.number(run["seconds"], language, 1),
                 each=numbers.duration(run["seconds"] / done, language), order=order)
    why = derivative_notes.untraced(run["at"], "derivatives", response["function"], language)
    if done < grid:
        timing += say("deriv.pbp_stopped", budget=numbers.number(run["budget_s"], language), done=done_text,
                      grid=grid_text)
    return "\n\n".join([f"{md.verdict('ok', language)} {head}",
                         f"{md.verdict('warning', language)} {md.text(why)}", timing])


def pick_jaxpr(response: dict, order: float, language: str = "en") -> str:
    """The jaxpr of one derivative order, headed by a comment in ``language``."""
    response = response or {}
    if response.get("point_by_point"):
        return messages.say("deriv.no_jaxpr", language)
    jaxprs = response.get("jaxprs") or []
    n = int(order)
    if not jaxprs:
        return ""
    if n >= len(jaxprs):
        return messages.say("deriv.orders_computed", language, n=len(jaxprs) - 1)
    return f"{messages.say('deriv.grad_applied', language, label=plots.order_label(n), n=n)}\n{jaxprs[n]}"


def render_gradient(response: dict, language: str = "en") -> tuple:
    """(status, Hessian heatmap, jacfwd vs jacrev table) for a /gradient response, in ``language`` (the reply's
    ``without_jit`` and ``explanation`` are the API's English: the page writes their facts again)."""
    if not response.get("ok"):
        return error_markdown(response["error"], language, labels=LABELS["gradient"]), None, ""
    gradient = ", ".join(_value_text(g, language) for g in response["gradient"])
    status = f"{md.verdict('ok', language)} f = {_value_text(response['value'], language)}; ∇f = [{gradient}]"
    if response.get("without_jit_at"):
        why = derivative_notes.untraced(response["without_jit_at"], "gradient", response["function"], language)
        status += f"\n\n{md.verdict('warning', language)} {md.text(why)}"
    rows = "\n".join(
        f"| {name} | {j['shape'][0]} × {j['shape'][1]} | {numbers.duration(j['jacfwd_s'], language)} | "
        f"{numbers.duration(j['jacrev_s'], language)} |"
        for name, j in response["jacobians"].items()
    )
    table = (messages.say("deriv.jacobian_function", language) + "\n\n"
             + messages.say("deriv.jacobian_head", language) + "\n|---|---|---|---|\n" + rows + "\n\n"
             + messages.say("deriv.forward_reverse", language))
    return status, plots.hessian_figure(response["hessian"], language), table


def _count(counts: list[int], i: int, language: str) -> str:
    return numbers.number(counts[i], language) if i < len(counts) else "—"


def _reference(reference: str | None, language: str) -> str:
    """What an order was checked against ("closed form", "finite differences": the reply's words) in ``language``."""
    return messages.say(f"deriv.{reference}", language) if reference else "—"


def _value_text(value: float | None, language: str = "en") -> str:
    """A number, or what JSON could not carry: the API sends inf and nan as null."""
    return messages.say("deriv.not_finite", language) if value is None else numbers.figures(value, language, 6)


def _error_text(error: float | None, language: str) -> str:
    return "—" if error is None else numbers.scientific(error, language)
