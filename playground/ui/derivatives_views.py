"""Pure builders for the Derivatives tab: a /derivatives or /gradient response in, Markdown and figures out."""

from __future__ import annotations

from playground import plots
from playground.ui import markdown as md
from playground.ui.inspect_views import error_markdown

# Verdict labels: a word on a colour (markdown.verdict), read right without an emoji font.
OK, WARNING, BUSY = (md.verdict(kind) for kind in ("ok", "warning", "busy"))

FORWARD_REVERSE = ("**Forward or reverse?** `jacfwd` pushes one tangent per *input* through the function, `jacrev` "
                   "pulls one cotangent per *output* back: for a wide Jacobian (few outputs, many inputs) reverse "
                   "mode wins, for a tall one (many outputs, few inputs) forward mode does.")
RUNNING_ORDERS = (BUSY + " Differentiating… A function whose Python `if` or `while` reads x cannot be traced by "
                  "`jit` and `vmap`; it is then differentiated point by point without jit, which takes longer.")
RUNNING_GRADIENT = BUSY + " Computing the gradient and the Hessian, and timing jacfwd against jacrev…"
NO_JAXPR = ("# No jaxpr: the function was evaluated point by point without jit, and its Python control flow may "
            "take another path at each point, so there is no one program to show.")


def render_orders(response: dict) -> tuple:
    """(status, curves, checks table, growth figure) for a /derivatives response."""
    if not response.get("ok"):
        return error_markdown(response["error"]), None, "", None
    orders, xs = response["orders"], response["xs"]
    point_by_point = response.get("point_by_point")
    eqns, ops = response.get("eqn_counts") or [], response.get("hlo_op_counts") or []
    rows = "\n".join(
        f"| {plots.order_label(o['n'])} | {o.get('reference') or '—'} | {_error_text(o.get('max_error'))} | "
        f"{_count(eqns, i)} | {_count(ops, i)} |"
        for i, o in enumerate(orders)
    )
    table = ("| order | checked against | max error | jaxpr equations | HLO instructions |\n|---|---|---|---|---|\n"
             + rows)
    figure = plots.derivatives_figure(xs, orders)
    if point_by_point is None:
        status = (f"{OK} {md.code(response['function'])}: {len(orders) - 1} derivatives on {len(xs)} points, in "
                  f"{md.text(response.get('dtype', 'float64'))}.")
        return status, figure, table, plots.growth_figure(eqns, ops)
    figure.update_layout(title="f and its derivatives (nested grad, point by point without jit)")
    table += "\n\nNo program sizes: without jit there is no one program, only the path taken at each point."
    return point_by_point_status(response), figure, table, None


def point_by_point_status(response: dict) -> str:
    """Why jit was left out, how many points were done in how long, and what to do if not all of them."""
    run, order = response["point_by_point"], len(response["orders"]) - 1
    done, grid = run["points"], run["grid_points"]
    head = (f"{OK} {md.code(response['function'])}: {order} derivatives on {done} of {grid} grid points, point by "
            f"point without jit, in {md.text(response.get('dtype', 'float64'))}.")
    timing = (f"⏱ Point by point without jit: {'all ' if done == grid else ''}{done} points in {run['seconds']:.1f} s, "
              f"{_duration(run['seconds'] / done)} a point (three eager calls each: one for f and its {order} "
              "derivatives, two at x ± h for their finite-difference checks; the first point also compiles each "
              "operation it meets).")
    if done < grid:
        timing += (f" It stopped before its {run['budget_s']:.0f} s for this ran out, so that the job finishes "
                   f"within its time limit; the {done} points are spread over the whole range. For all {grid}, ask "
                   "for fewer points or a lower order.")
    return "\n\n".join([head, f"{WARNING} {md.text(run['reason'])}", timing])


def pick_jaxpr(response: dict, order: float) -> str:
    response = response or {}
    if response.get("point_by_point"):
        return NO_JAXPR
    jaxprs = response.get("jaxprs") or []
    n = int(order)
    if not jaxprs:
        return ""
    if n >= len(jaxprs):
        return f"(orders up to {len(jaxprs) - 1} were computed)"
    return f"# {plots.order_label(n)}: grad applied {n} times\n{jaxprs[n]}"


def render_gradient(response: dict) -> tuple:
    """(status, Hessian heatmap, jacfwd vs jacrev table) for a /gradient response."""
    if not response.get("ok"):
        return error_markdown(response["error"]), None, ""
    gradient = ", ".join(_value_text(g) for g in response["gradient"])
    status = f"{OK} f = {_value_text(response['value'])}; ∇f = [{gradient}]"
    if response.get("without_jit"):
        status += f"\n\n{WARNING} {md.text(response['without_jit'])}"
    rows = "\n".join(
        f"| {name} | {j['shape'][0]} × {j['shape'][1]} | {j['jacfwd_s'] * 1e3:.3f} ms | {j['jacrev_s'] * 1e3:.3f} ms |"
        for name, j in response["jacobians"].items()
    )
    table = ("| Jacobian | shape (outputs × inputs) | jacfwd | jacrev |\n|---|---|---|---|\n" + rows + "\n\n"
             + (md.text(response["explanation"]) if response.get("explanation") else FORWARD_REVERSE))
    return status, plots.hessian_figure(response["hessian"]), table


def _count(counts: list[int], i: int) -> str:
    return str(counts[i]) if i < len(counts) else "—"


def _duration(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1e3:.0f} ms"


def _value_text(value: float | None) -> str:
    """A number, or what JSON could not carry: the API sends inf and nan as null."""
    return "inf or nan" if value is None else f"{value:.6g}"


def _error_text(error: float | None) -> str:
    return "—" if error is None else f"{error:.2e}"
