"""The Derivatives job's warnings, each written once for all the orders it concerns, from the reply's facts, in
any language.

The worker finds the facts (derivative_references.py: the grid points left out
of an order's max_error, and where a finite-difference check is off far beyond
rounding; jumps.py: where f jumps between grid points) and sends them as
``left_out`` and ``breaks``, with these warnings in English among its
``notes``; the page writes the same facts again in its reader's language:

>>> reply = {"function": "f", "xs": [-1.0, 0.0, 1.0], "left_out": [],
...          "breaks": {"checks": [{"n": 1, "x": 0.0, "off": 1.0}, {"n": 2, "x": 0.0, "off": 1.6e5}], "jumps": [],
...                     "jumps_found": 0}}
>>> notes(reply)[0][:86]
'Orders 1 and 2: the finite-difference checks are off by up to 1.6e+05 at x = 0, far be'

Standard library only: the worker and the server both import it.
"""

from __future__ import annotations

from playground import messages

MAX_JUMPS_LISTED = 5  # the reply lists the first few jumps, and counts them all


def untraced(at: dict, job: str, function: str, language: str = messages.DEFAULT) -> str:
    """Why ``jit`` could not trace ``function``, from the facts of where it needed a value (``at``:
    pointwise_derivatives.untraced_at) and what ran instead, for the "derivatives" job (each grid point on its
    own) or the "gradient" job (at the point).

    >>> at = {"line": 2, "source": "if x < 3:", "parameter": "x", "exception": "TracerBoolConversionError"}
    >>> untraced(at, "gradient", "f", "de")[:83]
    '`jit` konnte `f` nicht tracen: Zeile 2 (`if x < 3:`) braucht den Wert von `x` (`Tra'
    """
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    name = f"`{function}`"
    where = (say("deriv.untraced_line", line=at["line"], code=at["source"]) if at["line"] is not None
             else say("deriv.untraced_some_line"))
    value = (say("deriv.untraced_value", parameter=f"`{at['parameter']}`") if at["parameter"] is not None
             else say("deriv.untraced_input"))
    traced_by = "`jit(vmap(grad))`" if job == "derivatives" else "`jit`"
    return say("deriv.untraced", traced_by=traced_by, function=name, where=where, value=value,
               exception=f"`{at['exception']}`", instead=say(f"deriv.untraced_instead_{job}", function=name))


def notes(reply: dict, language: str = messages.DEFAULT) -> list[str]:
    """The warnings a /derivatives reply's facts call for, each once for all the orders it concerns: points left
    out of max_error, then where f is not smooth."""
    return _left_out(reply["left_out"], len(reply["xs"]), language) + _breaks(reply["function"], reply["breaks"],
                                                                              language)


def _left_out(left_out: list[dict], grid: int, language: str) -> list[str]:
    """One warning for all the orders that leave points out, the orders that leave out the same said together."""
    counts = [(o["points"], o["reference"], o["derivative"]) for o in left_out]
    groups = []
    for points, reference, derivative in dict.fromkeys(counts):
        orders = [str(o["n"]) for o, count in zip(left_out, counts, strict=True)
                  if count == (points, reference, derivative)]
        key = "deriv.left_out_one" if len(orders) == 1 else "deriv.left_out_many"
        groups.append(messages.say(key, language, orders=messages.listed(orders, language), points=points, grid=grid,
                                   reference=reference, derivative=derivative))
    return [messages.say("deriv.left_out", language, groups=messages.listed(groups, language))] if groups else []


def _breaks(function: str, breaks: dict, language: str) -> list[str]:
    """One warning for all the orders whose check is off, one for all the jumps of f; none where there are none."""
    said = []
    checks = breaks["checks"]
    if checks:
        orders = messages.listed([str(check["n"]) for check in checks], language)
        where = messages.listed(list(dict.fromkeys(_number(check["x"]) for check in checks)), language)
        off = f"{max(check['off'] for check in checks):.2g}"
        key = "deriv.check_off_one" if len(checks) == 1 else "deriv.check_off_many"
        said.append(messages.say(key, language, orders=orders, off=off, where=where))
    jumps = breaks["jumps"]
    if jumps:
        places = [_place(jump, language) for jump in jumps]
        more = breaks["jumps_found"] - len(jumps)
        if more > 0:
            places.append(messages.say("deriv.jumps_more", language, count=more))
        said.append(messages.say("deriv.jumps", language, function=f"`{function}`",
                                 where=messages.listed(places, language)))
    return said


def headline(function: str, breaks: dict, language: str = messages.DEFAULT) -> str | None:
    """One line for the status, where the curves are: where f jumps, else where a check found it not smooth.

    >>> headline("f", {"checks": [], "jumps": [{"x": 0.0, "size": 1.0, "point": False, "between": None}],
    ...                "jumps_found": 1})
    '`f` jumps at x = 0: the warnings under the checks say more.'
    """
    jumps, checks = breaks["jumps"], breaks["checks"]
    if jumps:
        places = [_number(jump["x"]) for jump in jumps]
        if breaks["jumps_found"] > len(jumps):
            places.append(messages.say("deriv.jumps_more", language, count=breaks["jumps_found"] - len(jumps)))
        return messages.say("deriv.headline_jumps", language, function=f"`{function}`",
                            where=messages.listed(places, language))
    if checks:
        where = messages.listed(list(dict.fromkeys(_number(check["x"]) for check in checks)), language)
        return messages.say("deriv.headline_unsmooth", language, function=f"`{function}`", where=where)
    return None


def _place(jump: dict, language: str) -> str:
    if jump["between"] is not None:
        low, high = jump["between"]
        return messages.say("deriv.jump_between", language, low=_number(low), high=_number(high))
    size = messages.say("deriv.not_finite", language) if jump["size"] is None else f"{jump['size']:.3g}"
    key = "deriv.point_off" if jump["point"] else "deriv.jump_at"
    return messages.say(key, language, x=_number(jump["x"]), size=size)


def _number(x: float) -> str:
    return f"{x:.6g}"
