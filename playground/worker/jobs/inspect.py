"""What JAX sees of a function, stage by stage: trace -> lower -> compile -> run. Runs inside a worker.

``jax.jit(f).trace(x)`` gives the jaxpr, ``.lower()`` the StableHLO handed to
XLA, ``.compile()`` the optimised HLO with its cost and memory estimates; each
stage is timed on its own.

>>> print(inspect("def f(x):\\n    return x + x*x + x*x*x", "jnp.arange(4.0)", 10_000)["jaxpr"])
{ lambda ; a:f32[4]. let
    b:f32[4] = mul a a
    c:f32[4] = add a b
    d:f32[4] = mul a a
    e:f32[4] = mul d a
    f:f32[4] = add c e
  in (f,) }
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import math
import re
import time
import warnings
from collections.abc import Callable

import jax

from playground import messages, user_ast
from playground.errors import UserCodeError, cap_text
from playground.ipc.limits import Limits
from playground.measure import xla_estimates
from playground.worker.functions import call_signature, pytrees, source_map, user_jit, usercode, values
from playground.worker.jobs import about as runtime
from playground.worker.jobs import on_device, purity
from playground.worker.jobs.device import Device
from playground.worker.lessons import error_lessons, tracer_errors, user_errors


def inspect(code: str, args: str, max_chars: int, static_argnums: tuple[int, ...] = (),
            second_args: str = "", checks_budget_s: float = math.inf,
            early: Callable[[dict], None] | None = None, device: Device | None = None) -> dict:
    """Every stage of ``jax.jit`` on the user's function, plus purity and retracing checks.

    The stages come first: with ``early``, the reply without the checks that
    run the function again (``pending`` names them) is handed to it as soon as
    the stages are done, so the result and the three texts need not wait for
    them. The behavioural purity checks run the function eagerly (an eager op
    compiles a kernel on first use) and trace it twice more; they are skipped,
    with a note, when the stages alone took over ``checks_budget_s``. With ``device``, the program is compiled
    and run on the device (on_device.py); the checks still run here, on the CPU.
    """
    started = time.perf_counter()
    stdout = usercode.CappedText(max_chars)
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(stdout):
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)  # garbage collection noise, not the user's
        program = choice = None
        try:
            program, arguments, choice = prepared(code, args, static_argnums)
            stages = run_stages if device is None else functools.partial(on_device.run_stages, device)
            report, choice, out_info, value, printed_while_tracing = stages(choice, arguments, max_chars, stdout)
        except Exception as exc:
            return explained_error(exc, code, jitted_here=program.name if choice and not choice.own else None)
    notes = _stage_notes(caught, choice, printed_while_tracing)
    findings = purity.static_findings(code, program.defined_in)
    abstract = values.any_shape_dtype_struct(arguments)
    label = device.label if device is not None else runtime.device_label()
    reply = {**_stages_reply(program, choice, report, arguments, out_info, label), "retrace": None, "purity": findings,
             "pending": _pending_checks(abstract, second_args), "stdout": stdout.getvalue(),
             "warnings": _capped_notes(notes)}
    if early is not None and reply["pending"]:
        early(reply)
    with contextlib.redirect_stdout(usercode.CappedText(0)):  # these runs repeat the user's prints
        if abstract:
            notes.append(values.NOT_RUN)
        elif (spent := time.perf_counter() - started) <= checks_budget_s:
            jitted = purity.NOT_GIVEN if device is not None else value  # the checks compare runs on this CPU
            findings = findings + purity.behavioural_findings(program.function, arguments, choice.static_argnums,
                                                              jitted)
        else:
            notes.append(_checks_skipped_note(spent))
        retrace = (second_call(choice, arguments, second_args, program.namespace) if second_args.strip()
                   else None)
    return {**reply, "retrace": retrace, "purity": findings, "pending": [], "warnings": _capped_notes(notes)}


def _stage_notes(caught: list[warnings.WarningMessage], choice: user_jit.JitChoice,
                 printed_while_tracing: bool) -> list[str]:
    """The notes the stages leave: why the jit applied, the warnings they raised, and a print at trace time."""
    notes = [error_lessons.warning_note(w.category, str(w.message)) for w in caught]
    if choice.note:
        notes.insert(0, choice.note)
    if printed_while_tracing:
        notes.append("Your code printed while it was traced (shown under Output): under jit, print runs once, "
                     "at trace time, and sees tracers, not values. Use jax.debug.print to see values.")
    return notes


def _stages_reply(program: usercode.UserProgram, choice: user_jit.JitChoice, report: dict, arguments: tuple,
                  out_info: object, device: str) -> dict:
    """The reply's part on the stages: the function, the jit applied, the report and the input and output trees."""
    return {
        "ok": True,
        "function": program.name,
        "device": device,
        "static_argnums": list(choice.static_argnums),
        "jit": {"own": choice.own, "static_from": choice.static_from, "note": choice.note},
        **report,
        "pytree": {
            "inputs": pytrees.describe_inputs(arguments, choice.static_argnums),
            "outputs": pytrees.describe_tree(out_info),
        },
    }


def _pending_checks(abstract: bool, second_args: str) -> list[str]:
    """The checks still to run after the stages: purity needs concrete arguments, retrace a second set."""
    return [name for name, wanted in (("purity", not abstract), ("retrace", bool(second_args.strip()))) if wanted]


def _checks_skipped_note(spent: float) -> str:
    return (f"The behavioural purity checks were skipped: the stages took {spent:.1f} s (on a busy machine, waiting "
            "counts too), and they would trace the function twice more and run it eagerly, op by op, within the "
            "job's time limit.")


def _capped_notes(notes: list[str]) -> list[str]:
    return [cap_text(n, 2000) for n in notes]


def prepared(code: str, args: str, static_argnums: tuple[int, ...]) -> tuple:
    """The user's program, its arguments and the jit to apply: (program, arguments, choice), or it raises.

    The checks every job on one function shares: the code loads, the arguments
    evaluate to a pytree of arrays, they fit the function's signature, and the
    static_argnums are in range.
    """
    program = usercode.load(code)
    arguments = usercode.evaluate_args(args, program.namespace)
    usercode.check_tree(arguments)
    call_signature.check_call(program.function, program.name, arguments, arguments_field(arguments))
    check_static_argnums(static_argnums, len(arguments), program.name)
    return program, arguments, user_jit.choose(program.function, static_argnums, len(arguments))


def run_stages(choice: user_jit.JitChoice, arguments: tuple, max_chars: int,
               stdout: usercode.CappedText | None = None) -> tuple:
    """Trace, lower, compile and run, timing each: (report, the jit that applied, the output structure, the
    jitted result, whether the code printed while it was traced).

    The report holds the result, the three texts with their user-line maps, the
    stage timings, and XLA's cost and memory estimates. Python's ``print`` runs
    while JAX traces; ``jax.debug.print`` runs with the compiled program, later.
    """
    written = stdout.written if stdout is not None else 0
    choice, traced, t0, t1 = user_jit.trace(choice, arguments)
    printed_while_tracing = stdout is not None and stdout.written > written
    static_argnums = choice.static_argnums
    lowered = traced.lower()
    t2 = time.perf_counter()
    compiled = lowered.compile()
    t3 = time.perf_counter()
    dynamic = dynamic_arguments(arguments, static_argnums)
    value = (traced.out_info if values.any_shape_dtype_struct(dynamic)
             else jax.block_until_ready(compiled(*dynamic_arguments(choice.call_arguments(arguments), static_argnums))))
    t4 = time.perf_counter()

    jaxpr, jaxpr_lines = source_map.capped(*source_map.jaxpr_with_lines(traced.jaxpr), max_chars)
    stablehlo, stablehlo_lines = source_map.capped(*source_map.stablehlo_with_lines(lowered), max_chars)
    hlo_text, hlo_line_map, hlo_locations = source_map.hlo_with_lines(compiled.as_text())
    hlo, hlo_line_map = source_map.capped(hlo_text, hlo_line_map, max_chars)
    report = {
        "result": cap_text(values.describe(value), max_chars),
        "jaxpr": jaxpr,
        "stablehlo": stablehlo,
        "hlo": hlo,
        "hlo_locations": cap_text(hlo_locations, max_chars),  # the tables stack_frame_id refers to
        "line_map": {"jaxpr": jaxpr_lines, "stablehlo": stablehlo_lines, "hlo": hlo_line_map},
        "trace_s": t1 - t0,
        "lower_s": t2 - t1,
        "compile_s": t3 - t2,
        "run_s": t4 - t3,
        "cost": xla_estimates.cost_summary(compiled),
        "memory": xla_estimates.memory_summary(compiled),
    }
    return report, choice, traced.out_info, value, printed_while_tracing


def arguments_field(arguments: tuple) -> str:
    """What the Arguments field gave, in the words of a message about it."""
    if not arguments:
        return "an empty Arguments field (no values)"
    return f"what the Arguments field gives ({len(arguments)} value{'s' * (len(arguments) != 1)})"


def check_static_argnums(static_argnums: tuple[int, ...], count: int, name: str) -> None:
    bad = [i for i in static_argnums if not 0 <= i < count]
    if bad:
        raise UserCodeError(
            "invalid_input", f"static_argnums {bad} out of range: `{name}` was given {count} argument(s), "
            f"numbered 0 to {count - 1}.")


def dynamic_arguments(arguments: tuple, static_argnums: tuple[int, ...]) -> tuple:
    return tuple(a for i, a in enumerate(arguments) if i not in static_argnums)


def second_call(choice: user_jit.JitChoice, arguments: tuple, second_args: str, namespace: dict) -> dict:
    """Call the jitted function again with other arguments: would JAX retrace, and why?

    Uses JAX's own cache-miss explanations (``jax_explain_cache_misses``).
    """
    try:
        jax.block_until_ready(choice.jitted(*choice.call_arguments(arguments)))  # the call cache now holds it
        again = usercode.evaluate_args(second_args, namespace)
        with _jax_log() as log:
            jax.block_until_ready(choice.jitted(*choice.call_arguments(again)))
    except Exception as exc:
        return {"retraced": None, "explanation": user_errors.error_result(exc)["error"]["message"]}
    explanation = _clean_cache_miss(log.getvalue())
    if not explanation:
        return {"retraced": False, "explanation": "Same shapes, dtypes and static values: jit reused the program "
                "it had already compiled, without tracing again."}
    return {"retraced": True, "explanation": explanation}


@contextlib.contextmanager
def _jax_log():
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    logger = logging.getLogger("jax")
    previous = jax.config.jax_explain_cache_misses
    jax.config.update("jax_explain_cache_misses", True)
    logger.addHandler(handler)
    try:
        yield buffer
    finally:
        logger.removeHandler(handler)
        jax.config.update("jax_explain_cache_misses", previous)


def _clean_cache_miss(text: str) -> str:
    """JAX's explanation without our file names and object ids, each distinct explanation once.

    JAX logs one explanation per jit that missed its cache: a jitted helper the
    function calls misses too, with the same words when its inputs changed alike.
    """
    text = re.sub(r"(TRACING CACHE MISS) at [^\n]*:", r"\1:", text)
    text = re.sub(r" id=\d+", "", text)
    blocks = [block.strip() for block in re.split(r"(?=TRACING CACHE MISS)", text) if block.strip()]
    return "\n".join(dict.fromkeys(blocks))


def explained_error(exc: BaseException, code: str, jitted_here: str | None = None) -> dict:
    """The error result, with its lesson where one teaches it. ``jitted_here``: the name of the user's function
    where the job put the jit around it (their code has none), so an error that only jit causes says so, and that
    without jit (as ``jax.grad`` alone, or the Derivatives tab point by point, runs it) the code works."""
    result = user_errors.error_result(exc)
    if result["error"]["kind"] == "user_exception" and result["error"]["line"] is None:
        # JAX checks what a transformation was given (an output that is not one number, in_axes that do not fit)
        # with no frame of the user's on the stack: a top-level ``g = jax.grad(f)`` is the line that gave it.
        result["error"]["line"] = user_ast.made_line(tree) if (tree := user_ast.try_parse(code)) else None
    explanation = tracer_errors.explain(exc, code, result["error"]["line"])
    if explanation and jitted_here and isinstance(exc, jax.errors.ConcretizationTypeError):
        words = explanation["words"]
        words["explanation"].insert(0, messages.piece("tracer.jitted_here", function=jitted_here))
        words["fix"].append(messages.piece("tracer.without_jit", function=jitted_here))
        explanation.update({part: messages.render(words[part]) for part in ("explanation", "fix")})
    if explanation:  # its words beside the sandbox's (the prefix of a memory error)
        words = {**result["error"].get("words", {}), **explanation.get("words", {})}
        result["error"].update({**explanation, **({"words": words} if words else {})})
    return result


def inspect_job(limits: Limits, code: str, args: str, static_argnums: list[int], second_args: str,
                on_accelerator: bool, device: Device, early: Callable[[dict], None] | None = None) -> dict:
    """The registry's "inspect" job: texts capped at the limits' length, purity checks within a fifth of its time.

    ``on_accelerator``: compiled and run on the device (the job waited in the device's line); else here, on the
    CPU. ``early`` gets the reply before the checks that run the function again.
    """
    return inspect(code, args, limits.output_chars, static_argnums=tuple(static_argnums), second_args=second_args,
                   checks_budget_s=limits.timeout_s / 5, early=early, device=device if on_accelerator else None)
