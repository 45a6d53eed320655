"""The compiler endpoints of the public API: /passes, /graph and /compare (see playground/server/api.py).

Each streams its updates like every job endpoint (``updates``); the last one
is the result or an error dict.
"""

from __future__ import annotations

from collections.abc import Iterator


class CompilerEndpoints:
    """XLA at work on the user's function: its passes, its program as pictures, two versions side by side.

    A part of PlaygroundAPI, whose ``updates`` runs each job.
    """

    def passes(self, code: str, args: str, static_argnums: list[int] | None = None,
               on_accelerator: bool = False) -> Iterator[dict]:
        """XLA's optimisation passes on the function, one by one, in the order they ran.

        ``code`` and ``args`` as in ``inspect``. The function is compiled once with
        XLA's dump of every pass (into the job's scratch folder). Returns ``{"ok",
        "function", "device", "passes": [{"index", "pipeline", "name", "nested",
        "changed", "instructions", "before", "after", "about"}], "modules",
        "module_lines", "counts", "exhaustive", "compile_s", "dump_bytes",
        "notices"}``: ``changed`` is whether the module's text after the pass differs
        from the text before it; ``before``/``after`` index ``modules`` (each distinct
        module text once; null past the size cap); ``nested`` marks a pipeline that
        ran inside another, listed as one pass; ``about`` is a sentence on the
        passes worth knowing first.

        Args:
            code: Python source defining the function (named ``f``, else the last ``def``); jax, jnp, np, lax in scope.
            args: its arguments as one Python expression, e.g. "jnp.arange(4.0)"; a tuple gives several.
            static_argnums: positions of the arguments ``jax.jit`` takes as static (null or []: none).
            on_accelerator: compile and run on the host's GPU or TPU (the CPU where it has none).

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("passes", code=code, args=args, static_argnums=static_argnums,
                                on_accelerator=on_accelerator)

    def graph(self, code: str, args: str, static_argnums: list[int] | None = None,
              on_accelerator: bool = False) -> Iterator[dict]:
        """The program as pictures: the jaxpr and the optimised HLO as dataflow graphs, in SVG.

        ``code`` and ``args`` as in ``inspect``. Returns ``{"ok", "function", "device",
        "jaxpr_svg", "hlo_svg", "jaxpr_graph", "hlo_graph", "jaxpr_dot", "hlo_dot",
        "fusions", "renderer", "line_colours"}``. In the jaxpr graph nested jaxprs
        (``pjit``, ``cond``, ``scan``, ``while``, ``custom_jvp_call``) are clusters; in the
        HLO graph each fusion is a box around the operations it fused (``fusions``
        lists them). Nodes take the colour of the user line that made them
        (``line_colours``). Without Graphviz the SVGs are empty and ``renderer`` says why.

        Args:
            code: Python source defining the function (named ``f``, else the last ``def``); jax, jnp, np, lax in scope.
            args: its arguments as one Python expression, e.g. "jnp.arange(4.0)"; a tuple gives several.
            static_argnums: positions of the arguments ``jax.jit`` takes as static (null or []: none).
            on_accelerator: compile and run on the host's GPU or TPU (the CPU where it has none).

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("graph", code=code, args=args, static_argnums=static_argnums,
                                on_accelerator=on_accelerator)

    def compare(self, code: str, args: str, second_code: str = "", setting: str = "",
                static_argnums: list[int] | None = None, on_accelerator: bool = False) -> Iterator[dict]:
        """Two versions side by side: A is the function as written; B is ``second_code`` (another function, on
        the same arguments) or the function under ``setting``: "fusion: off", "cse: off", "algsimp: off",
        "x64: on" or "donate: on".

        Returns ``{"ok", "device", "setting", "variants": [A, B], "diff": {"jaxpr", "hlo"},
        "b_over_a", "same_result", "max_abs_diff", "notes"}``; each variant has ``label``,
        ``what``, ``jaxpr``, ``hlo``, ``kernels``, ``hlo_instructions``, ``jaxpr_equations``,
        ``cost``, ``memory``, ``compile_s``, ``run`` (``median_s``, ``iqr_s``, ``runs``:
        both timed in the same job, in turn) and ``result``.

        Args:
            code: Python source defining the function (named ``f``, else the last ``def``); jax, jnp, np, lax in scope.
            args: its arguments as one Python expression, e.g. "jnp.arange(4.0)"; a tuple gives several.
            second_code: B as another function on the same arguments ("": B is A under ``setting``).
            setting: what B changes when there is no second_code, e.g. "fusion: off" (see above).
            static_argnums: positions of the arguments ``jax.jit`` takes as static (null or []: none).
            on_accelerator: compile and run on the host's GPU or TPU (the CPU where it has none).

        Returns:
            the last streamed update (``done`` True; earlier ones say where the job stands), the dict above
            or an error dict {"ok": False, "error": {"kind", "message", "line"}}
        """
        yield from self.updates("compare", code=code, args=args, second_code=second_code, setting=setting,
                                static_argnums=static_argnums, on_accelerator=on_accelerator)
