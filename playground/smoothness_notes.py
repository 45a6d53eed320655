"""The Derivatives job's warnings about where f is not smooth, written from the reply's facts in any language.

The worker finds the facts (derivative_references.py: where a finite-difference
check is off far beyond rounding; jumps.py: where f jumps between grid points)
and sends them as ``breaks``, with these warnings in English among its
``notes``; the page writes the same facts again in its reader's language:

>>> breaks = {"checks": [{"n": 1, "x": 0.0, "off": 1.0}, {"n": 2, "x": 0.0, "off": 1.6e5}], "jumps": [],
...           "jumps_found": 0}
>>> notes("f", breaks)[0][:86]
'Orders 1 and 2: the finite-difference checks are off by up to 1.6e+05 at x = 0, far be'

Standard library only: the worker and the server both import it.
"""

from __future__ import annotations

from playground import messages

MAX_JUMPS_LISTED = 5  # the reply lists the first few jumps, and counts them all


def notes(function: str, breaks: dict, language: str = messages.DEFAULT) -> list[str]:
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
