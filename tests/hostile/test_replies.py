"""The worker's reply is untrusted input: user code can write its own framed reply on fd 3.

User code runs in the worker that holds the job socket (fd 3), so it can send the
server any bytes it likes in the protocol's framing (an 8-byte big-endian length,
then the body) and exit before the real reply is sent. Whatever it sends, the
client must get a well-formed answer: an error dict for anything that is not a
valid result of that job kind (types, lengths and ranges of every field), never
an exception in the client, never text that is not valid UTF-8, and nothing in
the server log but what it logs on purpose.

The server reads and checks a reply the same way whoever it runs as, so this module runs once, as root where the
suite has root (the other modules, whose attacks meet the sandbox's layers, run as root and unprivileged).

Every test ends with ``hostile.check()``: the server and its template live, a
normal job is right, no job folder is left behind, and the server log holds no
traceback, RecursionError or serialisation failure. When the module ends, the
TMPDIR the server was given must be empty.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import zlib

import pytest

from playground.server.pools.watch import MAX_EARLY
from tests.conftest import PRIVILEGES
from tests.hostile import support
from tests.hostile.support import ERROR_KINDS, short

WORKERS = 2
PARALLEL_WORKERS = 1  # the Parallel tab's pool (Settings.parallel_workers)
TIMEOUT_S = 6
MAX_MESSAGE = 5000  # error messages are capped at 4,000 characters, plus the notice saying how much was cut

IMG = "<img src=x onerror=\"document.title='pwned'\">"
SERVER_ADDED = ("cache", "done")  # fields the server adds to a worker's reply
ATTR = "1\" onmouseover=alert(1) x=\""

# Honest calls of each endpoint (their replies are the base the forged ones start from),
# and how each endpoint is called with a given piece of code.
HONEST = {
    "/inspect": ("def f(x):\n    return x + x*x + x*x*x\n", "jnp.arange(4.0)"),
    "/derivatives": ("def f(x):\n    return jnp.sin(x)\n", 1, -1.0, 1.0, 5),
    "/vmap": ("def f(x):\n    return x * 2\n", "jnp.ones(3)", "0", [1, 2], "0"),
    "/jit_speed": ("def f(x):\n    return x * 2\n", [4], 1),
    "/shard": ("def f(x):\n    return x * 2\n", "jnp.arange(8.0)", [2], ["data"], "(('data',),)", "('data',)"),
}


def call_args(endpoint: str, code: str) -> tuple:
    return (code, *HONEST[endpoint][1:])




@pytest.fixture(scope="session", params=PRIVILEGES[:1])
def privilege(request) -> str:
    """One privilege for this module (see its docstring): root where the suite has root."""
    return request.param


# The module's server, and the harness every test ends with (hostile.check()).
hostile, _begin = support.hostile_fixtures("replies", workers=WORKERS, parallel_workers=PARALLEL_WORKERS,
                                           timeout_s=TIMEOUT_S)


# -- forging ---------------------------------------------------------------------------------------------------


def forging_code(body: bytes, *, announce: int | None = None, mutate: str = "") -> str:
    """User code that sends ``body`` (after running ``mutate`` on it as ``msg``) as its reply, then exits."""
    blob = base64.b64encode(zlib.compress(body, 9)).decode()
    lines = ["import base64, json, os, struct, zlib", f"body = zlib.decompress(base64.b64decode('{blob}'))"]
    if mutate:
        lines += ["msg = json.loads(body)", mutate, "body = json.dumps(msg).encode()"]
    header = "len(body)" if announce is None else str(announce)
    lines += [f"data = memoryview(struct.pack('!Q', {header}) + body)", "while data:",
              "    data = data[os.write(3, data):]", "os._exit(0)", "def f(x):", "    return x", ""]
    return "\n".join(lines)


def forge(message) -> str:
    return forging_code(json.dumps(message).encode())


def strings(value):
    """Every str in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_valid_utf8(value) -> None:
    for text in strings(value):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            pytest.fail(f"the response holds text that is not valid UTF-8 ({exc}): {short(text)}")


def assert_well_formed_error(result, kinds=ERROR_KINDS) -> dict:
    """A well-formed error dict: a known kind, a capped message, a plausible line."""
    error = support.assert_error(result, kinds)
    assert len(error["message"]) <= MAX_MESSAGE, f"message of {len(error['message']):,} characters"
    line = error.get("line")
    assert line is None or (type(line) is int and 1 <= line <= 1_000_000), short(result)
    for key in ("title", "explanation", "fix", "doc_url"):
        if key in error:
            assert isinstance(error[key], str) and len(error[key]) <= MAX_MESSAGE, short(result)
    assert_valid_utf8(result)
    return error


def assert_refused(result) -> None:
    """A forged result is not passed on: an error dict that does not echo the forged fields."""
    if isinstance(result, dict) and result.get("ok") is True:
        pytest.fail(f"the forged reply was passed on as a success: {short(result)[:600]}")
    error = assert_well_formed_error(result)
    for marker in ("pwned", "onmouseover", "<img"):
        assert marker not in json.dumps(error), short(result)


@pytest.fixture(scope="module")
def honest(hostile) -> dict:
    """Each endpoint's honest reply, fetched once: the base the forged replies change one field of."""
    replies = {endpoint: hostile.call(*args, api_name=endpoint, timeout_s=120) for endpoint, args in HONEST.items()}
    return {endpoint: {key: value for key, value in reply.items() if key not in SERVER_ADDED}  # the worker's part
            for endpoint, reply in replies.items()}


def mutated(base: dict, change) -> dict:
    message = copy.deepcopy(base)
    change(message)
    return message


# -- honest replies still pass (the schema must not refuse what the worker really sends) ------------------------


@pytest.mark.parametrize("endpoint", list(HONEST))
def test_honest_replies_pass(hostile, honest, endpoint):
    result = honest[endpoint]
    assert result.get("ok") is True, short(result)
    hostile.check()


def test_honest_non_finite_values_pass_as_null(hostile):
    """log on [-1, 1]: the worker sends the points where it is not finite as null, and that is a valid reply."""
    result = hostile.call("def f(x):\n    return jnp.log(x)\n", 1, -1.0, 1.0, 5, api_name="/derivatives")
    assert result.get("ok") is True, short(result)
    assert result["orders"][0]["ys"][0] is None, short(result)
    hostile.check()


# -- framing and decoding ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", list(HONEST))
def test_reply_nested_200000_deep(hostile, endpoint):
    code = forging_code(b"[" * 200_000 + b"]" * 200_000)
    assert_well_formed_error(hostile.call(*call_args(endpoint, code), api_name=endpoint))
    assert "RecursionError" not in hostile.new_log()
    hostile.check()


def test_reply_with_a_deeply_nested_field(hostile, honest):
    """Deep nesting inside an otherwise whole result, where a recursive validator would recurse too."""
    whole = json.dumps(honest["/inspect"]).encode()
    body = whole[:-1] + b', "deep": ' + b"[" * 150_000 + b"]" * 150_000 + b"}"
    assert_well_formed_error(hostile.call(forging_code(body), "1.0", api_name="/inspect"))
    assert "RecursionError" not in hostile.new_log()
    hostile.check()


@pytest.mark.parametrize("announce", [2**63, 2**64 - 1, 17 * 1024 * 1024], ids=["2**63", "2**64-1", "17MB"])
def test_reply_announcing_too_many_bytes(hostile, announce):
    code = forging_code(b'{"ok": true}', announce=announce)
    assert_well_formed_error(hostile.call(code, "1.0", api_name="/inspect"))
    hostile.check()


def test_reply_cut_short(hostile):
    """The header announces 1,000 bytes; 12 come, then the worker exits."""
    code = forging_code(b'{"ok": true}', announce=1000)
    assert_well_formed_error(hostile.call(code, "1.0", api_name="/inspect"))
    hostile.check()


@pytest.mark.parametrize("body", [b'{"ok": true, "result": "\xff"}', b'\xc3\x28{"ok": true}',
                                  b'{"ok": false, "error": {"kind": "timeout", "message": "\xed\xa0\x80"}}'],
                         ids=["0xff", "bad-start", "utf8-encoded-surrogate"])
def test_reply_body_not_utf8(hostile, body):
    assert_well_formed_error(hostile.call(forging_code(body), "1.0", api_name="/inspect"))
    hostile.check()


@pytest.mark.parametrize("body", [b"[1, 2]", b'"ok"', b"null", b"", b'{"ok": 1}', b'{"ok": "true"}'],
                         ids=["list", "string", "null", "empty", "ok-int", "ok-string"])
def test_reply_not_a_result_object(hostile, body):
    assert_well_formed_error(hostile.call(forging_code(body), "1.0", api_name="/inspect"))
    hostile.check()


# -- forged ok replies -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("message", [{"ok": True}, {"ok": True, "result": "f32[] 1.0"}],
                         ids=["only-ok", "only-result"])
def test_forged_ok_with_missing_fields_is_refused(hostile, message):
    assert_refused(hostile.call(forge(message), "1.0", api_name="/inspect"))
    hostile.check()


INSPECT_WRONG = {
    "result-list": lambda m: m.update(result=["f32[4]", IMG]),
    "jaxpr-number": lambda m: m.update(jaxpr=12345),
    "line_map-strings": lambda m: m["line_map"].update(jaxpr=[ATTR] * len(m["line_map"]["jaxpr"])),
    "line_map-html": lambda m: m["line_map"].update(stablehlo=[IMG] * len(m["line_map"]["stablehlo"])),
    "line_map-huge-lines": lambda m: m["line_map"].update(jaxpr=[10**30] * len(m["line_map"]["jaxpr"])),
    "line_map-string": lambda m: m.update(line_map="everything"),
    "trace_s-string": lambda m: m.update(trace_s="0.001"),
    "trace_s-negative": lambda m: m.update(trace_s=-1.0),
    "trace_s-bool": lambda m: m.update(trace_s=True),
    "function-number": lambda m: m.update(function=10**30),
    "static_argnums-strings": lambda m: m.update(static_argnums=["0"]),
    "purity-wrong": lambda m: m.update(purity=[{"check": 1, "line": ATTR, "message": None}]),
    "pytree-string": lambda m: m.update(pytree="PyTreeDef(*)"),
    "retrace-wrong": lambda m: m.update(retrace={"retraced": "maybe", "explanation": 5}),
    "warnings-string": lambda m: m.update(warnings=IMG),
    "stdout-dict": lambda m: m.update(stdout={"text": IMG}),
    "cost-list": lambda m: m.update(cost=[1, 2]),
    "memory-strings": lambda m: m["memory"].update(argument_bytes="16"),
}


@pytest.mark.parametrize("case", list(INSPECT_WRONG))
def test_forged_ok_with_wrong_types_is_refused(hostile, honest, case):
    message = mutated(honest["/inspect"], INSPECT_WRONG[case])
    assert_refused(hostile.call(forge(message), "1.0", api_name="/inspect"))
    hostile.check()


INSPECT_NOT_FINITE = {
    "trace_s-NaN": lambda m: m.update(trace_s=math.nan),
    "compile_s-Infinity": lambda m: m.update(compile_s=math.inf),
    "flops-minus-Infinity": lambda m: m["cost"].update(flops=-math.inf),
    "temp_bytes-NaN": lambda m: m["memory"].update(temp_bytes=math.nan),
}


@pytest.mark.parametrize("case", list(INSPECT_NOT_FINITE))
def test_forged_ok_with_nan_or_infinity_is_refused(hostile, honest, case):
    """The worker sends non-finite numbers as null; NaN and Infinity in a reply were written by someone else."""
    message = mutated(honest["/inspect"], INSPECT_NOT_FINITE[case])
    assert_refused(hostile.call(forge(message), "1.0", api_name="/inspect"))
    hostile.check()


@pytest.mark.parametrize("mutate", [
    "msg['line_map']['jaxpr'] = [2] * 3_000_000",
    "msg['purity'] = [{'check': 'x', 'line': 2, 'message': 'y'}] * 200_000",
    "msg['warnings'] = ['w'] * 2_000_000",
], ids=["line_map-3M", "purity-200k", "warnings-2M"])
def test_forged_ok_with_huge_arrays_is_refused(hostile, honest, mutate):
    code = forging_code(json.dumps(honest["/inspect"]).encode(), mutate=mutate)
    assert_refused(hostile.call(code, "1.0", api_name="/inspect"))
    hostile.check()


def test_forged_ok_with_unknown_keys_is_refused_or_stripped(hostile, honest):
    message = {**honest["/inspect"], "evil": IMG, "__proto__": {"polluted": True}, "ok ": True}
    result = hostile.call(forge(message), "1.0", api_name="/inspect")
    if result.get("ok") is True:
        assert not {"evil", "__proto__", "ok "} & set(result), short(sorted(result))
    else:
        assert_refused(result)
    hostile.check()


def test_forged_ok_with_lone_surrogates(hostile, honest):
    """JSON escapes of lone surrogates decode to text no UTF-8 encoder accepts: the client must still get a dict."""
    message = mutated(honest["/inspect"], lambda m: m.update(
        function="f\ud800", stdout="\udcff printed", warnings=["\ud83d"], result="f32[4] \udfff"))
    result = hostile.call(forge(message), "1.0", api_name="/inspect")
    assert isinstance(result, dict) and isinstance(result.get("ok"), bool), short(result)
    assert_valid_utf8(result)
    hostile.check()


# -- printed text and exceptions with lone surrogates (no forging: the worker's own reply) -------------------------


def test_print_of_a_lone_surrogate(hostile):
    result = hostile.call("def f(x):\n    print('a\\ud800b')\n    return x\n", "1.0", api_name="/inspect")
    assert isinstance(result, dict) and result.get("ok") is True, short(result)
    assert_valid_utf8(result)
    assert result["stdout"].startswith("a") and "b" in result["stdout"], short(result["stdout"])
    hostile.check()


def test_exception_message_with_a_lone_surrogate(hostile):
    result = hostile.call("def f(x):\n    raise ValueError('bad \\udcff value')\n", "1.0", api_name="/inspect")
    error = assert_well_formed_error(result, kinds={"user_exception"})
    assert "ValueError" in error["message"], short(result)
    hostile.check()


# -- forged error replies -----------------------------------------------------------------------------------------


def forged_error(**error) -> str:
    return forge({"ok": False, "error": {"kind": "user_exception", "message": "boom", "line": 1, **error}})


def test_forged_error_with_unknown_kind_is_refused(hostile):
    error = assert_well_formed_error(hostile.call(forged_error(kind="pwned"), "1.0", api_name="/inspect"))
    assert error["kind"] != "pwned"
    hostile.check()


def test_forged_error_with_a_1mb_message_is_capped(hostile):
    error = assert_well_formed_error(hostile.call(forged_error(kind="timeout", message="x" * 1_000_000), "1.0",
                                                  api_name="/inspect"))
    assert len(error["message"]) <= MAX_MESSAGE
    hostile.check()


def test_forged_error_with_1mb_extras_is_capped(hostile):
    big = "y" * 1_000_000
    code = forged_error(title=big, explanation=big, fix=big, doc_url="https://docs.jax.dev/" + big)
    assert_well_formed_error(hostile.call(code, "1.0", api_name="/inspect"))
    hostile.check()


@pytest.mark.parametrize("line", [10**30, -1, 0, True, "3", 2.5], ids=["10**30", "-1", "0", "True", "str", "float"])
def test_forged_error_with_an_impossible_line(hostile, line):
    """Refused, or passed on without the line: never a line no code has."""
    assert_well_formed_error(hostile.call(forged_error(line=line), "1.0", api_name="/inspect"))
    hostile.check()


def test_forged_error_with_a_javascript_doc_url(hostile):
    result = hostile.call(forged_error(doc_url="javascript:alert(1)", title=IMG), "1.0", api_name="/inspect")
    error = assert_well_formed_error(result)
    if "doc_url" in error:
        assert error["doc_url"].startswith("https://"), short(result)
    hostile.check()


def test_forged_error_with_lone_surrogates(hostile):
    result = hostile.call(forged_error(message="\ud800 boom \udfff", fix="\udcff"), "1.0", api_name="/inspect")
    assert_well_formed_error(result)
    hostile.check()


# -- the other endpoints --------------------------------------------------------------------------------------------

OTHER_WRONG = {
    "/derivatives": {
        "xs-string": lambda m: m.update(xs="-1..1"),
        "ys-strings": lambda m: m["orders"][0].update(ys=[IMG] * len(m["orders"][0]["ys"])),
        "eqn_counts-negative": lambda m: m.update(eqn_counts=[-5] * len(m["eqn_counts"])),
    },
    "/vmap": {
        "loop_s-string": lambda m: m.update(loop_s="fast"),
        "batch_sizes-impossible": lambda m: m.update(batch_sizes=[-1, 10**30]),
        "equal-string": lambda m: m.update(equal="yes"),
    },
    "/jit_speed": {
        "numpy_s-html": lambda m: m.update(numpy_s=[IMG]),
        "sizes-string": lambda m: m.update(sizes="4"),
        "spread-list": lambda m: m.update(spread=[1, 2, 3]),
    },
    "/shard": {
        "index-html": lambda m: m["placement"][0][0].update(index=[[IMG, 4]]),
        "device-string": lambda m: m["placement"][0][0].update(device=ATTR),
        "n_devices-negative": lambda m: m.update(n_devices=-1),
        "mesh-devices-string": lambda m: m["mesh"].update(devices=IMG),
    },
}
OTHER_NOT_FINITE = {
    "/derivatives": lambda m: m["orders"][1].update(max_error=math.nan),
    "/vmap": lambda m: m.update(vmap_s=[math.nan, math.inf]),
    "/jit_speed": lambda m: m.update(jit_s=[-math.inf]),
    "/shard": lambda m: m.update(max_abs_diff=math.nan),
}
OTHER = [e for e in HONEST if e != "/inspect"]


@pytest.mark.parametrize("endpoint", OTHER)
def test_other_endpoint_forged_ok_with_missing_fields(hostile, endpoint):
    assert_refused(hostile.call(*call_args(endpoint, forge({"ok": True})), api_name=endpoint))
    hostile.check()


@pytest.mark.parametrize("endpoint,case", [(e, c) for e in OTHER for c in OTHER_WRONG[e]])
def test_other_endpoint_forged_ok_with_wrong_types(hostile, honest, endpoint, case):
    message = mutated(honest[endpoint], OTHER_WRONG[endpoint][case])
    assert_refused(hostile.call(*call_args(endpoint, forge(message)), api_name=endpoint))
    hostile.check()


@pytest.mark.parametrize("endpoint", OTHER)
def test_other_endpoint_forged_ok_with_nan(hostile, honest, endpoint):
    message = mutated(honest[endpoint], OTHER_NOT_FINITE[endpoint])
    assert_refused(hostile.call(*call_args(endpoint, forge(message)), api_name=endpoint))
    hostile.check()


@pytest.mark.parametrize("endpoint", OTHER)
def test_other_endpoint_forged_ok_with_lone_surrogates(hostile, honest, endpoint):
    message = mutated(honest[endpoint], lambda m: m.update(function="f\ud800"))
    result = hostile.call(*call_args(endpoint, forge(message)), api_name=endpoint)
    assert isinstance(result, dict) and isinstance(result.get("ok"), bool), short(result)
    assert_valid_utf8(result)
    hostile.check()


# -- early replies: the ones a worker sends ahead of its final reply ({"early": reply}) ------------------------


def early_then_final(earlies: list, final, end: str = "os._exit(0)") -> str:
    """User code that sends each of ``earlies`` as an early reply, then ``final`` (if not None) as its reply, then
    ends with ``end``."""
    frames = [json.dumps({"early": e}).encode() for e in earlies] + ([json.dumps(final).encode()] if final else [])
    blob = base64.b64encode(zlib.compress(json.dumps([f.decode() for f in frames]).encode(), 9)).decode()
    return "\n".join([
        "import base64, json, os, struct, zlib",
        f"frames = json.loads(zlib.decompress(base64.b64decode('{blob}')))",
        "for frame in frames:",
        "    data = memoryview(struct.pack('!Q', len(frame.encode())) + frame.encode())",
        "    while data:",
        "        data = data[os.write(3, data):]",
        end, "def f(x):", "    return x", ""])


def updates_of(hostile, code: str) -> list:
    job = hostile.client.submit(code, HONEST["/inspect"][1], api_name="/inspect")
    return list(job) or [job.result(timeout=90)]


def test_more_early_replies_than_allowed_refuse_the_job(hostile, honest):
    seen = updates_of(hostile, early_then_final([honest["/inspect"]] * (MAX_EARLY + 1), honest["/inspect"]))
    assert_refused(seen[-1])
    assert "early replies" in seen[-1]["error"]["message"]
    hostile.check()


@pytest.mark.parametrize("early", [
    {"ok": True, "jaxpr": IMG},  # does not fit the schema
    {"ok": False, "error": {"kind": "internal", "message": IMG, "line": None, "traceback": IMG}},
    {"ok": False, "error": {"kind": "nonsense", "message": IMG}},
    [IMG], IMG, None,
], ids=["markup", "internal", "unknown-kind", "list", "text", "null"])
def test_an_early_reply_that_is_not_a_valid_success_is_never_shown(hostile, honest, early):
    seen = updates_of(hostile, early_then_final([early], honest["/inspect"]))
    assert seen[-1]["ok"] is True and seen[-1]["done"] is True  # the final reply, honest, still counts
    for update in seen:
        assert "pwned" not in json.dumps(update), short(update)
    hostile.check()


def test_an_early_reply_before_a_crash_stays_and_says_the_checks_did_not_finish(hostile, honest):
    seen = updates_of(hostile, early_then_final([honest["/inspect"]], None, end="os.abort()"))
    assert seen[-2]["ok"] is True and seen[-2]["done"] is False  # the early reply was shown: it was well-formed
    assert seen[-1]["ok"] is True and seen[-1]["done"] is True
    assert "did not finish (the sandbox worker crashed)" in seen[-1]["warnings"][-1]
    assert seen[-1]["done"] is True
    hostile.check()
