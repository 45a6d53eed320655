"""Pure figure builders: API results in, plotly Figures out (no I/O, no gradio)."""

from __future__ import annotations

import plotly.graph_objects as go

_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_LAYOUT = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 50, "b": 50}, "height": 420}


def order_label(n: int) -> str:
    """f, f′, f″, f‴, then f⁽⁴⁾, f⁽⁵⁾, ..."""
    return {0: "f", 1: "f′", 2: "f″", 3: "f‴"}.get(n, f"f⁽{str(n).translate(_SUPERSCRIPTS)}⁾")


def derivatives_figure(xs: list[float], orders: list[dict]) -> go.Figure:
    """One line per derivative order over the grid."""
    fig = go.Figure([
        go.Scatter(x=xs, y=order["ys"], mode="lines", name=order_label(order["n"]),
                   hovertemplate=f"{order_label(order['n'])}(%{{x:.3g}}) = %{{y:.4g}}<extra></extra>")
        for order in orders
    ])
    fig.update_layout(title="f and its derivatives (vmap of nested grad)", xaxis_title="x", yaxis_title="value",
                      **_LAYOUT)
    return fig


def growth_figure(eqn_counts: list[int], hlo_op_counts: list[int]) -> go.Figure:
    """How the program grows with the order: jaxpr equations before, HLO instructions after XLA."""
    orders = [order_label(n) for n in range(len(eqn_counts))]
    fig = go.Figure([
        go.Bar(x=orders, y=eqn_counts, name="jaxpr equations (grad applied n times)"),
        go.Bar(x=orders, y=hlo_op_counts, name="optimised HLO instructions (after jit)"),
    ])
    fig.update_layout(title="Program size by derivative order", barmode="group", yaxis_title="count", **_LAYOUT)
    return fig


def hessian_figure(hessian: list[list[float]]) -> go.Figure:
    fig = go.Figure(go.Heatmap(z=hessian, colorscale="RdBu", zmid=0,
                               hovertemplate="∂²f/∂x%{y}∂x%{x} = %{z:.4g}<extra></extra>"))
    fig.update_layout(title="Hessian: jacfwd(jacrev(f))", xaxis_title="j", yaxis_title="i",
                      yaxis_autorange="reversed", xaxis_dtick=1, yaxis_dtick=1, **{**_LAYOUT, "height": 380})
    return fig


def timings_figure(title: str, x_title: str, xs: list[int], series: dict[str, list]) -> go.Figure:
    """Seconds against size on log-log axes, one line per way of running; missing values are skipped."""
    fig = go.Figure()
    for name, seconds in series.items():
        points = [(x, s) for x, s in zip(xs, seconds, strict=True) if s is not None]
        if points:
            fig.add_trace(go.Scatter(x=[p[0] for p in points], y=[p[1] for p in points], mode="lines+markers",
                                     name=name, hovertemplate=f"{name}: %{{y:.3g}} s at %{{x}}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title="seconds (median)", xaxis_type="log",
                      yaxis_type="log", **_LAYOUT)
    return fig
