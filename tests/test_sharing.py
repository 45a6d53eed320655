"""playground.server.links.sharing: versioned share links round-trip for every tab; hostile tokens only give
BrokenLink."""

from __future__ import annotations

import base64
import json
import math
import random
import re
import string
import zlib

import pytest

from playground import messages
from playground.jobs.arguments import MAX_ARGS_CHARS, MAX_CODE_CHARS
from playground.server.links import sharing
from playground.server.links.fields import BrokenLink, Choice, Flag, Number, TabSchema, Text
from playground.server.links.sharing import (
    FORMAT_VERSION,
    MAX_EXERCISE_CHARS,
    MAX_TOKEN_CHARS,
    Link,
    decode_link,
    encode_link,
    exercise_html,
)
from playground.server.ui import (
    compiler_tab,
    derivatives_tab,
    inspect_tab,
    jit_tab,
    parallel_tab,
    speed_tab,
    train_tab,
    vmap_tab,
)

SCHEMAS: dict[str, TabSchema] = {
    "inspect": inspect_tab.LINK, "compiler": compiler_tab.LINK, "derivatives": derivatives_tab.LINK,
    "vmap": vmap_tab.LINK, "jit": jit_tab.LINK, "parallel": parallel_tab.LINK, "train": train_tab.LINK,
    "speed": speed_tab.LINK,
}
CODE = "def f(x):\n    return jnp.sin(x) ** 2\n"
TYPICAL: dict[str, dict] = {
    "inspect": {"code": CODE, "args": "jnp.arange(4.0)", "static_argnums": "", "second_args": "jnp.ones(4)",
                "on_accelerator": False},
    "compiler": {"view": "compare", "code": CODE, "args": "jnp.ones((8, 8))", "static_argnums": "0, 2",
                 "on_accelerator": True, "hide_unchanged": True, "diff_style": "unified",
                 "b_kind": "the same function under a setting", "setting": "fusion: off",
                 "second_code": "def g(x):\n    return x\n", "compare_style": "side by side"},
    "derivatives": {"code": "def f(x):\n    return jnp.tanh(x)\n", "order": 4, "x_min": -3.5, "x_max": 3.5,
                    "points": 200, "shown": 1, "gradient_code": "def f(p):\n    return p @ p\n",
                    "point": "jnp.ones(3)"},
    "vmap": {"code": "def f(x, y):\n    return x @ y\n", "args": "(jnp.ones(3), jnp.ones(3))", "in_axes": "(0, None)",
             "out_axes": "0", "batch_sizes": "1, 8, 64"},
    "jit": {"code": "def f(x):\n    return x * 2\n", "sizes": "64, 256, 1024", "repeats": 5},
    "speed": {"code": "def f(a, b):\n    return a @ b\n", "args": "jnp.ones((64, 64)), jnp.ones((64, 64))",
              "gradient": False},
    "parallel": {"code": CODE, "args": "jnp.ones((8, 4))", "mesh_shape": "(4, 2)", "axis_names": "('x', 'y')",
                 "in_specs": "P('x', 'y')", "out_specs": "P('x')"},
    "train": {"dataset": "digits", "layers": "64, 32", "optimizer": "adam", "learning_rate": 0.001,
              "batch_size": 128, "epochs": 3, "seed": 0, "data_parallel": False},
}
OLD_INSPECT = {"code": CODE, "args": "jnp.arange(4.0)", "static_argnums": "", "second_args": "jnp.ones(4)"}
ALPHABET = string.ascii_letters + string.digits + "-_"


def _pack(data: bytes) -> str:
    """A token around arbitrary bytes, the way encode_link wraps its JSON."""
    return base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=").decode()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _token(document: object) -> str:
    """A token around ``document`` as compact JSON (NaN and Infinity as Python's json writes them)."""
    return _pack(json.dumps(document, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def _v1(tab: str = "inspect", state: dict | None = None, **extra) -> str:
    return _token({"v": 1, "tab": tab, "state": {} if state is None else state, **extra})


def _unpack(token: str) -> bytes:
    return zlib.decompress(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))


def _refused(token: object, match: str | None = None) -> str:
    """decode_link's message for ``token``, after checking it raised BrokenLink itself (no other ValueError, such as
    a JSONDecodeError's, whose words would be Python's), with a message in each language."""
    with pytest.raises(ValueError) as info:
        decode_link(token, SCHEMAS)
    message = str(info.value)
    assert type(info.value) is BrokenLink and len(message) > 20, repr(info.value)
    assert _in_every_language(info.value)
    if match is not None:
        assert match in message, message
    return message


def _in_every_language(error: BrokenLink) -> bool:
    """The refusal written in German and Chinese is not its English (the link's own words quoted in each)."""
    english = messages.render([error.piece], "en")
    return english == str(error) and all(messages.render([error.piece], language) != english
                                         for language in ("de", "zh"))


def _assert_valid(link: Link) -> None:
    """``link`` is one the schemas accept: every part of it the right kind, every value in range."""
    assert isinstance(link, Link) and link.tab in SCHEMAS
    schema = SCHEMAS[link.tab]
    assert set(link.state) <= set(schema.fields)
    for name, value in link.state.items():
        assert schema.fields[name].check(name, value) == value
    assert isinstance(link.hide, tuple) and set(link.hide) <= set(schema.hideable)
    assert isinstance(link.read_only, bool)
    assert isinstance(link.exercise, str) and len(link.exercise) <= MAX_EXERCISE_CHARS


def _round_trip(link: Link) -> Link:
    token = encode_link(link, SCHEMAS)
    assert isinstance(token, str) and set(token) <= set(ALPHABET)
    assert "=" not in token and len(token) <= MAX_TOKEN_CHARS
    back = decode_link(token, SCHEMAS)
    _assert_valid(back)
    return back


# -- round trips --------------------------------------------------------------


def test_every_tab_with_a_share_link_has_a_typical_state_here():
    assert set(TYPICAL) == set(SCHEMAS)
    for tab, state in TYPICAL.items():
        assert set(state) == set(SCHEMAS[tab].fields), tab


@pytest.mark.parametrize("tab", list(SCHEMAS))
def test_typical_state_of_each_tab_round_trips(tab):
    link = Link(tab, dict(TYPICAL[tab]))
    assert _round_trip(link) == link


@pytest.mark.parametrize("tab", list(SCHEMAS))
def test_class_link_of_each_tab_round_trips(tab):
    link = Link(tab, dict(TYPICAL[tab]), hide=SCHEMAS[tab].hideable, read_only=True,
                exercise="**Exercise:** make `f` faster.\n\n- one\n- two \u2603")
    assert _round_trip(link) == link


@pytest.mark.parametrize("tab", list(SCHEMAS))
def test_empty_state_of_each_tab_round_trips(tab):
    assert _round_trip(Link(tab, {})) == Link(tab, {})


@pytest.mark.parametrize("text", [
    "def f(x):\n    # \u221ax, \u4e2d\u6587, \u00e9t\u00e9, \U0001f680\n    return x ** 0.5\n",
    "x = '\ud800'  # a lone surrogate, as a browser can send\n",
    "\udfff\ud83d",  # lone surrogates, low before high
    "\u200b\t\r\n\"'\\ \x00 \x7f \ufeff",
    "",
])
@pytest.mark.parametrize("tab, field", [("inspect", "code"), ("jit", "code"), ("vmap", "in_axes"),
                                        ("train", "layers"), ("parallel", "mesh_shape")])
def test_any_text_round_trips(tab, field, text):
    link = Link(tab, {**TYPICAL[tab], field: text}, exercise=text)
    assert _round_trip(link) == link


@pytest.mark.parametrize("tab, state", [
    ("derivatives", {"order": 1, "x_min": -1e6, "x_max": 1e6, "points": 10, "shown": 0}),
    ("derivatives", {"order": 8, "x_min": -0.0001, "x_max": 2.5e-7, "points": 2000, "shown": 8}),
    ("jit", {"repeats": 1}),
    ("jit", {"repeats": 50}),
    ("train", {"learning_rate": 0, "batch_size": 1, "epochs": 1, "seed": 0}),
    ("train", {"learning_rate": 10.0, "batch_size": 4096, "epochs": 100, "seed": 2_147_483_647}),
    ("train", {"learning_rate": 0.1 + 0.2}),  # a float that is not short in decimal keeps every bit
])
def test_numbers_round_trip_exactly(tab, state):
    back = _round_trip(Link(tab, state))
    assert back.state == state
    assert all(type(back.state[k]) is type(v) for k, v in state.items())


def test_a_whole_number_written_as_a_float_reads_as_an_int():
    back = decode_link(_v1("jit", {"repeats": 5.0}), SCHEMAS)
    assert back.state == {"repeats": 5} and type(back.state["repeats"]) is int
    assert type(decode_link(_v1("train", {"learning_rate": 1}), SCHEMAS).state["learning_rate"]) is int


@pytest.mark.parametrize("tab", ["inspect", "compiler", "train"])
@pytest.mark.parametrize("flag", [True, False])
def test_flags_round_trip(tab, flag):
    names = [name for name, kind in SCHEMAS[tab].fields.items() if isinstance(kind, Flag)]
    assert names
    link = Link(tab, dict.fromkeys(names, flag))
    assert _round_trip(link) == link


@pytest.mark.parametrize("tab, name, option", [
    (tab, name, option)
    for tab, schema in SCHEMAS.items() for name, kind in schema.fields.items() if isinstance(kind, Choice)
    for option in kind.options])
def test_every_choice_round_trips(tab, name, option):
    link = Link(tab, {name: option})
    assert _round_trip(link) == link


def test_class_link_parts_round_trip_one_at_a_time():
    assert _round_trip(Link("jit", {}, hide=("repeats",))) == Link("jit", {}, hide=("repeats",))
    assert _round_trip(Link("jit", {}, read_only=True)) == Link("jit", {}, read_only=True)
    exercise = "x" * MAX_EXERCISE_CHARS
    assert _round_trip(Link("jit", {}, exercise=exercise)) == Link("jit", {}, exercise=exercise)


def test_hide_repeated_names_once_in_order():
    link = Link("inspect", {}, hide=("second_args", "args", "second_args"))
    assert _round_trip(link).hide == ("second_args", "args")


def test_token_is_compact_versioned_json_compressed():
    token = encode_link(Link("jit", TYPICAL["jit"]), SCHEMAS)
    data = _unpack(token)
    assert json.loads(data) == {"v": FORMAT_VERSION, "tab": "jit", "state": TYPICAL["jit"]}
    assert data == json.dumps(json.loads(data), ensure_ascii=False, separators=(",", ":")).encode()
    assert FORMAT_VERSION == 1


def test_class_options_are_written_only_when_set():
    plain = json.loads(_unpack(encode_link(Link("jit", {}), SCHEMAS)))
    assert set(plain) == {"v", "tab", "state"}
    full = json.loads(_unpack(encode_link(Link("jit", {}, ("sizes",), True, "Do it."), SCHEMAS)))
    assert full == {"v": 1, "tab": "jit", "state": {}, "hide": ["sizes"], "read_only": True, "exercise": "Do it."}


def test_surrounding_whitespace_of_a_pasted_token_is_ignored():
    link = Link("inspect", dict(TYPICAL["inspect"]))
    assert decode_link(f"  \t{encode_link(link, SCHEMAS)}\r\n", SCHEMAS) == link


def test_long_code_round_trips_thanks_to_compression():
    lines = [f"    y = y + jnp.sin(x * {i}) / {i + 1}\n" for i in range(700)]
    code = ("def f(x):\n    y = x\n" + "".join(lines))[:MAX_CODE_CHARS - 20] + "\n    return y\n"
    assert MAX_CODE_CHARS - 20 <= len(code) <= MAX_CODE_CHARS
    link = Link("inspect", {**TYPICAL["inspect"], "code": code})
    token = encode_link(link, SCHEMAS)
    assert len(token) < MAX_TOKEN_CHARS < len(code)
    assert decode_link(token, SCHEMAS) == link


def test_incompressible_code_over_the_token_cap_is_refused_with_a_message():
    rng = random.Random(0)
    code = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(15_000))
    with pytest.raises(ValueError, match="too long to share") as info:
        encode_link(Link("inspect", {"code": code}), SCHEMAS)
    assert f"{MAX_TOKEN_CHARS:,}" in str(info.value) and "Shorten the code" in str(info.value)


# -- missing and unknown fields -----------------------------------------------


def test_a_missing_field_stays_missing_so_the_tab_keeps_its_default():
    back = decode_link(encode_link(Link("jit", {"code": "def f(x): return x"}), SCHEMAS), SCHEMAS)
    assert back.state == {"code": "def f(x): return x"}
    assert decode_link(_token({"v": 1, "tab": "train"}), SCHEMAS) == Link("train", {})


def test_a_field_unknown_to_the_schema_in_a_v1_token_is_ignored():
    """A link made before a field was removed keeps loading, with the fields that remain."""
    token = _v1("jit", {"repeats": 3, "removed_field": "x", "other": [1, {"deep": None}]})
    assert decode_link(token, SCHEMAS) == Link("jit", {"repeats": 3})


def test_a_field_that_only_another_tab_has_is_ignored_too():
    assert decode_link(_v1("jit", {"order": 4, "dataset": "mnist"}), SCHEMAS).state == {}


def test_unknown_top_level_keys_of_a_v1_token_are_ignored():
    assert decode_link(_v1("jit", {"repeats": 2}, future_option=True), SCHEMAS) == Link("jit", {"repeats": 2})


def test_encode_refuses_unknown_fields():
    with pytest.raises(ValueError, match="Unknown field") as info:
        encode_link(Link("jit", {"repeats": 3, "removed_field": "x"}), SCHEMAS)
    assert "removed_field" in str(info.value)


def test_the_schema_decides_not_the_token():
    """The same token read with a schema that no longer has a field: that field is dropped."""
    token = encode_link(Link("jit", TYPICAL["jit"]), SCHEMAS)
    narrower = {"jit": TabSchema({"code": Text(MAX_CODE_CHARS)})}
    assert decode_link(token, narrower) == Link("jit", {"code": TYPICAL["jit"]["code"]})


# -- version 0: the Inspect links made before the format had a version --------


def _old_token(state: dict) -> str:
    """A token made the way version 0's Inspect links are: compact JSON of its text fields, no "v"."""
    data = json.dumps(state, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(data, 9)).rstrip(b"=").decode()


def test_version_0_token_reads_as_the_inspect_tab():
    assert decode_link(_old_token(OLD_INSPECT), SCHEMAS) == Link("inspect", OLD_INSPECT)


def test_version_0_token_with_unicode_reads_as_the_inspect_tab():
    state = {**OLD_INSPECT, "code": "def f(x):\n    return x  # \u4e2d\u6587 \U0001f680\n"}
    assert decode_link(_old_token(state), SCHEMAS) == Link("inspect", state)


def test_version_0_token_with_fewer_fields_gives_the_rest_as_empty_text():
    assert decode_link(_old_token({"code": CODE}), SCHEMAS) == Link(
        "inspect", {"code": CODE, "args": "", "static_argnums": "", "second_args": ""})


@pytest.mark.parametrize("state, match", [
    ({**OLD_INSPECT, "extra": "1"}, "unknown fields"),
    ({"source": CODE}, "unknown fields"),
    ({**OLD_INSPECT, "on_accelerator": True}, "unknown fields"),  # a v1 field, never in a v0 link
    ({**OLD_INSPECT, "tab": "jit"}, "unknown fields"),
    ({**OLD_INSPECT, "args": 1.0}, "must be text"),
    ({**OLD_INSPECT, "code": None}, "must be text"),
    ({**OLD_INSPECT, "code": "x" * (MAX_CODE_CHARS + 1)}, "limit"),
    ({**OLD_INSPECT, "args": "1" * (MAX_ARGS_CHARS + 1)}, "limit"),
])
def test_version_0_token_out_of_shape_is_refused(state, match):
    _refused(_old_token(state), match)


def test_version_0_needs_the_inspect_schema():
    with pytest.raises(ValueError, match="tab this playground does not have"):
        decode_link(_old_token(OLD_INSPECT), {"jit": jit_tab.LINK})


# -- versions, tabs, and class options ----------------------------------------


@pytest.mark.parametrize("version", [2, 3, 10**6])
def test_a_newer_version_says_so(version):
    message = _refused(_token({"v": version, "tab": "inspect", "state": {}}), "newer version")
    assert str(version) in message


@pytest.mark.parametrize("version", [0, -1, "1", True, False, None, 1.0, 1.5, [1], {"v": 1}])
def test_a_version_this_playground_never_wrote_is_refused(version):
    _refused(_token({"v": version, "tab": "inspect", "state": {}}), "format version")


@pytest.mark.parametrize("tab", ["nope", "Inspect", "", None, 1, ["inspect"], {"inspect": 1}])
def test_unknown_tab_is_refused(tab):
    _refused(_token({"v": 1, "tab": tab, "state": {}}), "tab this playground does not have")


def test_missing_tab_is_refused():
    _refused(_token({"v": 1, "state": {}}), "tab this playground does not have")


def test_encode_refuses_unknown_tab():
    with pytest.raises(ValueError, match="tab this playground does not have"):
        encode_link(Link("nope", {}), SCHEMAS)


@pytest.mark.parametrize("state", [[], ["code"], "code", 1, None, True])
def test_state_that_is_not_an_object_is_refused(state):
    _refused(_token({"v": 1, "tab": "inspect", "state": state}), "not a set of named fields")


@pytest.mark.parametrize("tab, name", [("inspect", "code"), ("inspect", "nope"), ("jit", "args"),
                                       ("train", "learning rate"), ("vmap", "in_axes")])
def test_hiding_a_name_that_is_not_hideable_is_refused(tab, name):
    _refused(_v1(tab, hide=[name]), "class link can hide")
    with pytest.raises(ValueError, match="class link can hide"):
        encode_link(Link(tab, {}, hide=(name,)), SCHEMAS)


@pytest.mark.parametrize("hide", [[1], [None], [["args"]], [{"args": 1}], [True]])
def test_hide_entries_that_are_not_text_are_refused(hide):
    _refused(_v1("inspect", hide=hide), "class link can hide")


@pytest.mark.parametrize("hide", ["args", {"args": True}, 1, None, True])
def test_hide_that_is_not_a_list_is_refused(hide):
    _refused(_v1("inspect", hide=hide), "not a list")


@pytest.mark.parametrize("read_only", [1, 0, "true", "", None, [], {}])
def test_read_only_that_is_not_true_or_false_is_refused(read_only):
    _refused(_v1("inspect", read_only=read_only), "read_only")
    with pytest.raises(ValueError, match="read_only"):
        encode_link(Link("inspect", {}, read_only=read_only), SCHEMAS)


def test_exercise_over_the_limit_is_refused():
    _refused(_v1("inspect", exercise="x" * (MAX_EXERCISE_CHARS + 1)), f"{MAX_EXERCISE_CHARS:,}")
    with pytest.raises(ValueError, match="exercise"):
        encode_link(Link("inspect", {}, exercise="x" * (MAX_EXERCISE_CHARS + 1)), SCHEMAS)


@pytest.mark.parametrize("exercise", [1, None, ["text"], {"text": 1}, True])
def test_exercise_that_is_not_text_is_refused(exercise):
    _refused(_v1("inspect", exercise=exercise), "must be text")


# -- field values -------------------------------------------------------------


@pytest.mark.parametrize("tab, name, value, match", [
    ("jit", "repeats", 0, "from 1 to 50"),
    ("jit", "repeats", 51, "from 1 to 50"),
    ("jit", "repeats", -1, "from 1 to 50"),
    ("derivatives", "x_min", -1e6 - 1, "must be from"),
    ("derivatives", "x_max", 1e300, "must be from"),
    ("derivatives", "order", 9, "must be from"),
    ("derivatives", "points", 9, "must be from"),
    ("train", "learning_rate", -1e-9, "must be from"),
    ("train", "seed", 2**31, "must be from"),
    ("derivatives", "x_min", math.nan, "must be a number"),
    ("derivatives", "x_max", math.inf, "must be a number"),
    ("derivatives", "x_max", -math.inf, "must be a number"),
    ("jit", "repeats", math.nan, "must be a number"),
    ("jit", "repeats", True, "must be a number"),
    ("jit", "repeats", False, "must be a number"),
    ("train", "learning_rate", True, "must be a number"),
    ("jit", "repeats", "5", "must be a number"),
    ("jit", "repeats", None, "must be a number"),
    ("jit", "repeats", [5], "must be a number"),
    ("jit", "repeats", {"value": 5}, "must be a number"),
    ("jit", "repeats", 5.5, "whole number"),
    ("derivatives", "points", 10.000001, "whole number"),
    ("train", "epochs", 1.5, "whole number"),
    ("compiler", "view", "Passes", "not one of"),
    ("compiler", "view", "", "not one of"),
    ("compiler", "view", None, "not one of"),
    ("compiler", "view", 1, "not one of"),
    ("compiler", "view", ["passes"], "not one of"),
    ("compiler", "setting", "fusion: on", "not one of"),
    ("train", "dataset", "cifar10", "not one of"),
    ("train", "optimizer", "adam ", "not one of"),
    ("inspect", "on_accelerator", 1, "true or false"),
    ("inspect", "on_accelerator", "true", "true or false"),
    ("train", "data_parallel", None, "true or false"),
    ("inspect", "code", "x" * (MAX_CODE_CHARS + 1), "limit"),
    ("inspect", "args", "1" * (MAX_ARGS_CHARS + 1), "limit"),
    ("compiler", "second_code", "x" * (MAX_CODE_CHARS + 1), "limit"),
    ("train", "layers", "1," * 101, "limit is 200"),
    ("inspect", "code", ["def f(x): return x"], "must be text"),
    ("inspect", "args", 1.0, "must be text"),
    ("vmap", "in_axes", None, "must be text"),
    ("vmap", "in_axes", 0, "must be text"),
])
def test_a_value_the_schema_refuses_is_refused_by_decode_and_encode(tab, name, value, match):
    _refused(_v1(tab, {**TYPICAL[tab], name: value}), match)
    with pytest.raises(ValueError, match=match):
        encode_link(Link(tab, {**TYPICAL[tab], name: value}), SCHEMAS)


def test_nan_and_infinity_as_json_constants_are_refused():
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        _refused(_pack(b'{"v":1,"tab":"derivatives","state":{"x_min":' + constant + b"}}"), "must be a number")


def test_a_number_too_large_for_a_float_as_json_text_is_refused():
    _refused(_pack(b'{"v":1,"tab":"derivatives","state":{"x_min":1e400}}'), "must be a number")


def test_a_whole_number_too_large_for_a_float_is_refused_with_value_error():
    _refused(_pack(b'{"v":1,"tab":"jit","state":{"repeats":1' + b"0" * 400 + b"}}"), "must be")


def test_schema_kinds_on_their_own():
    assert Text(3).check("t", "abc") == "abc"
    assert Number(0, 1).check("n", 0.5) == 0.5
    assert Number(0, 10, whole=True).check("n", 3.0) == 3
    assert Flag().check("f", False) is False
    assert Choice(("a", "b")).check("c", "b") == "b"
    for kind, value in [(Text(3), "abcd"), (Number(0, 1), 2), (Number(0, 10, whole=True), 0.5), (Flag(), 0),
                        (Choice(("a",)), "b")]:
        with pytest.raises(ValueError):
            kind.check("x", value)


# -- hostile tokens -----------------------------------------------------------


def _garbled() -> dict[str, object]:
    good = encode_link(Link("inspect", dict(TYPICAL["inspect"])), SCHEMAS)
    return {
        "random bytes as text": "\x00\xff\u2603 %$#!",
        "a space inside": good[:10] + " " + good[10:],
        "a dot inside": good[:10] + "." + good[10:],
        "standard base64 characters": good[:10] + "+/" + good[10:],
        "non-ASCII letters": "\u00e9" * 20,
        "random base64 bytes": _b64(random.Random(1).randbytes(300)),
        "truncated token": good[: len(good) // 2],
        "token missing its last character": good[:-1],
        "token missing its last two characters": good[:-2],
        "one character changed": good[:10] + ("A" if good[10] != "A" else "B") + good[11:],
        "one character too many (length 4k+1)": "A" * (4 * 10 + 1),
        "base64 of text, not zlib": _b64(b"hello, this is not compressed"),
        "base64 of a bare JSON object, not zlib": _b64(b'{"v":1,"tab":"inspect","state":{}}'),
        "raw deflate without the zlib header": _b64(zlib.compress(b"{}", 9)[2:-4]),
        "zlib of non-JSON": _pack(b"def f(x): return x"),
        "zlib of invalid UTF-8": _pack(b'{"v":1,"tab":"inspect","state":{"code":"\xff\xfe"}}'),
        "zlib of nothing": _pack(b""),
        "zlib of a JSON list": _pack(b'["inspect", {}]'),
        "zlib of a JSON string": _pack(b'"def f(x): return x"'),
        "zlib of a JSON number": _pack(b"1"),
        "zlib of JSON null": _pack(b"null"),
        "zlib of two JSON objects": _pack(b"{}{}"),
        "v0 wrong key": _pack(b'{"source": "def f(x): return x"}'),
        "v0 non-text value": _pack(b'{"code": ["def f(x): return x"]}'),
        "v0 null value": _pack(b'{"code": null}'),
        "v1 non-text value": _v1("inspect", {"code": ["def f(x): return x"]}),
        "v1 code over the API limit": _v1("inspect", {"code": "x" * (MAX_CODE_CHARS + 1)}),
        "deeply nested JSON": _pack(b"[" * 100_000 + b"]" * 100_000),
        "deeply nested JSON inside a state": _pack(b'{"v":1,"tab":"inspect","state":{"code":'
                                                   + b"[" * 100_000 + b"]" * 100_000 + b"}}"),
        "deeply nested objects": _pack(b'{"a":' * 50_000 + b"1" + b"}" * 50_000),
        "huge number": _pack(b"1" * 100_000),
        "trailing bytes after the zlib stream": _b64(zlib.compress(b"{}") + b"junk"),
        "two zlib streams": _b64(zlib.compress(b"{}") + zlib.compress(b"{}")),
        "zlib stream cut short": _b64(zlib.compress(json.dumps(OLD_INSPECT).encode())[:-3]),
        "empty": "",
        "only whitespace": " \n\t ",
        "padding characters": good + "==",
        "a whole URL": "https://example.org/?s=" + good,
        "a query string": "s=" + good,
        "too long": "A" * (MAX_TOKEN_CHARS + 1),
        "far too long": "A" * 10_000_000,
    }


@pytest.mark.parametrize("name", list(_garbled()))
def test_garbled_tokens_raise_value_error_with_a_message(name):
    _refused(_garbled()[name])


def test_too_long_says_so_before_decoding():
    _refused("A" * (MAX_TOKEN_CHARS + 1), "too long")
    message = _refused(" " * 100 + "A" * MAX_TOKEN_CHARS + "\n" * 100, "not compressed data")  # capped after strip()
    assert "too long" not in message


def test_messages_name_the_problem():
    _refused("", "empty")
    _refused("abc$def", "characters")
    _refused("https://example.org/?s=abc", "characters")
    _refused(_b64(b"hello, this is not compressed"), "not compressed data")
    _refused(_b64(zlib.compress(b"{}") + b"junk"), "cut short or has extra bytes")
    _refused(_pack(b"def f(x): return x"), "does not hold a playground state")
    _refused(_pack(b"[]"), "expected an object")


def test_zlib_bomb_of_100_mb_is_refused():
    token = _pack(b"0" * 100_000_000)  # 100 MB of zeros, about 130 k characters of token
    _refused(token, "too long")


def test_zlib_bomb_within_the_token_cap_stops_at_the_size_limit():
    data = b'{"v":1,"tab":"inspect","state":{"code":"' + b"0" * 6_000_000  # ~6 MB of zeros in ~8 k characters
    token = _pack(data)
    assert len(token) <= MAX_TOKEN_CHARS
    _refused(token, "more text than the playground accepts")


@pytest.mark.parametrize("value", [None, 123, b"abc", bytearray(b"abc"), ["x"], {"v": 1}])
def test_non_text_tokens_raise_value_error(value):
    _refused(value, "is text")


def _random_document(rng: random.Random) -> dict:
    """A JSON object shaped roughly like a link, with every part sometimes wrong."""
    def value() -> object:
        return rng.choice([
            None, True, False, 0, 1, -1, 5, 5.0, 5.5, 1e6, -1e6 - 1, 2**31, rng.uniform(-10, 10), math.nan,
            math.inf, "", "x", "passes", "adam", "digits", "side by side", "\ud800", "x" * rng.choice([200, 201]),
            [], ["args"], {}, {"code": "x"}])
    tab = rng.choice([*SCHEMAS, *SCHEMAS, "nope", None, 1])
    fields = list(SCHEMAS[tab].fields) if tab in SCHEMAS else ["code"]
    document: dict = {}
    if rng.random() < 0.9:
        document["v"] = rng.choice([1, 1, 1, 1, 0, 2, "1", True, None])
    document["tab"] = tab
    if rng.random() < 0.9:
        document["state"] = {rng.choice([*fields, "extra"]): value() for _ in range(rng.randrange(0, 6))}
    if rng.random() < 0.3:
        hideable = list(SCHEMAS[tab].hideable) if tab in SCHEMAS else ["args"]
        document["hide"] = rng.choice([[rng.choice([*hideable, "code", 1])], hideable, "args", None])
    if rng.random() < 0.3:
        document["read_only"] = rng.choice([True, False, 1, "true", None])
    if rng.random() < 0.3:
        document["exercise"] = rng.choice(["", "Do it.", None, 1, "x" * (MAX_EXERCISE_CHARS + rng.choice([0, 1]))])
    return document


def test_random_tokens_only_ever_raise_value_error_or_give_a_valid_link():
    """500 tokens: printable junk, base64url junk, any characters, mutated real tokens, random bytes and documents."""
    rng = random.Random(20240611)
    goods = [encode_link(Link(tab, dict(state), hide=SCHEMAS[tab].hideable[:1], read_only=True, exercise="Go."),
                         SCHEMAS) for tab, state in TYPICAL.items()]
    goods.append(_old_token(OLD_INSPECT))
    outcomes = {"refused": 0, "valid": 0}
    for i in range(500):
        kind = i % 7
        good = rng.choice(goods)
        if kind == 0:
            token = "".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 200)))
        elif kind == 1:
            token = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 400)))
        elif kind == 2:
            token = "".join(chr(rng.randrange(0, 0x110000)) for _ in range(rng.randrange(0, 50)))
        elif kind == 3:
            spot = rng.randrange(len(good))
            token = good[:spot] + rng.choice(ALPHABET) + good[spot + 1:]
        elif kind == 4:
            data = bytearray(_unpack(good))
            data[rng.randrange(len(data))] = rng.randrange(256)
            token = _pack(bytes(data))
        elif kind == 5:
            token = _pack(rng.randbytes(rng.randrange(0, 300)))
        else:
            token = _token(_random_document(rng))
        try:
            link = decode_link(token, SCHEMAS)
        except ValueError as exc:
            assert type(exc) is BrokenLink and str(exc) and _in_every_language(exc), repr(exc)
            outcomes["refused"] += 1
        else:  # a mutation can still be a valid link; then it is a proper one
            _assert_valid(link)
            assert decode_link(encode_link(link, SCHEMAS), SCHEMAS) == link
            outcomes["valid"] += 1
    assert outcomes["refused"] > 100 and outcomes["valid"] > 10, outcomes


def test_decode_never_changes_the_schemas():
    before = {tab: (dict(schema.fields), schema.hideable) for tab, schema in SCHEMAS.items()}
    for token in _garbled().values():
        with pytest.raises(ValueError):
            decode_link(token, SCHEMAS)
    assert {tab: (dict(schema.fields), schema.hideable) for tab, schema in SCHEMAS.items()} == before


# -- exercise text ------------------------------------------------------------
# exercise_html renders with a real CommonMark parser, so each check reads the HTML it returns: the tags it may
# hold, and every href.

SAFE_TAGS = {"p", "a", "code", "pre", "em", "strong", "h1", "h2", "h3", "ul", "ol", "li", "blockquote", "hr", "br"}


def assert_harmless(rendered: str) -> None:
    tags = set(re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", rendered))
    assert tags <= SAFE_TAGS, rendered
    assert "<img" not in rendered and " on" not in re.sub(r">[^<]*<", "><", rendered), rendered
    for href in re.findall(r'href="([^"]*)"', rendered):
        assert href.lower().startswith(("http://", "https://")), rendered


@pytest.mark.parametrize("text", [
    "<script>document.title='pwned'</script>",
    "<img src=x onerror=\"document.title='pwned'\">",
    "<a href=\"javascript:document.title='pwned'\">docs</a>",
    "<iframe src=\"https://example.org\"></iframe>",
    "<div onmouseover=\"alert(1)\">hover</div>",
    "<<script>script>alert(1)<</script>/script>",
    "<!-- a comment --> <style>body{display:none}</style>",
])
def test_html_in_an_exercise_is_shown_as_typed(text):
    rendered = exercise_html(text)
    assert_harmless(rendered)
    assert "&lt;" in rendered


def test_escaped_html_keeps_its_text():
    assert exercise_html("<b>hi</b> & 1 < 2") == "<p>&lt;b&gt;hi&lt;/b&gt; &amp; 1 &lt; 2</p>\n"


@pytest.mark.parametrize("text", [
    "![alt text](http://example.org/x.png)", "![a cat](data:image/png;base64,AAAA \"title\")",
    "before ![pic](x.png) after", "![pic][ref]\n\n[ref]: http://example.org/x.png",
    "![](http://example.org/tracker.gif)", "![alt text](javascript:alert(1))",
])
def test_images_are_never_loaded(text):
    rendered = exercise_html(text)
    assert "<img" not in rendered
    assert_harmless(rendered)


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "  javascript:alert(1)", "data:text/html,<b>x</b>",
    "vbscript:msgbox(1)", "/relative/path", "relative.html", "#anchor", "//example.org/protocol-relative",
    "ftp://example.org/file", "mailto:a@example.org", "file:///etc/passwd", "httpx://example.org", "http:/one-slash",
    "<javascript:alert(1)>",
])
def test_links_other_than_http_stay_plain_text(url):
    rendered = exercise_html(f"see [the docs]({url}) now")
    assert "<a" not in rendered and "see [the docs]" in rendered
    assert_harmless(rendered)


@pytest.mark.parametrize("link, href", [
    ("[the docs](http://example.org)", "http://example.org"),
    ("[the docs](https://jax.readthedocs.io/en/latest/)", "https://jax.readthedocs.io/en/latest/"),
    ("[the docs](HTTPS://Example.org/a?b=c)", "HTTPS://Example.org/a?b=c"),
    ("[the docs](https://en.wikipedia.org/wiki/Jacobian_(matrix))", "https://en.wikipedia.org/wiki/Jacobian_(matrix)"),
    ("[the docs](https://example.org \"a title\")", "https://example.org"),
])
def test_http_links_are_kept(link, href):
    rendered = exercise_html(f"see {link} now")
    assert f'<a href="{href}"' in rendered and ">the docs</a>" in rendered


@pytest.mark.parametrize("definition", [
    "[ref]: javascript:alert(1)", "[ref]: JAVASCRIPT:alert(1)", "   [ref]: data:text/html,x", "[ref]:vbscript:x",
    "[ref]: /relative", "[ref]: <javascript:alert(1)>", "[ref]: javascript:alert(1) \"title\"",
])
def test_reference_links_to_non_http_targets_stay_plain_text(definition):
    rendered = exercise_html(f"click [here][ref]\n\n{definition}\n\nafter")
    assert "<a" not in rendered
    assert_harmless(rendered)


def test_reference_links_to_http_targets_are_kept():
    rendered = exercise_html("click [here][ref]\n\n[ref]: https://example.org \"title\"")
    assert '<a href="https://example.org" title="title">here</a>' in rendered


@pytest.mark.parametrize("text", [
    "[a\\]b](javascript:alert(1))",
    "[a[b]c](javascript:alert(1))",
    "[two\nlines](javascript:alert(1))",
    "[x][re f]\n\n[re\nf]: javascript:alert(1)",
    "- [r]: javascript:alert(1)\n\n[click][r]",
    "[x][re\\]f]\n\n[re\\]f]: javascript:alert(1)",
    "[x](<javascript:alert(1)>)", "[x]( data:text/html,hi )", "<javascript:alert(1)>",
    "[x](java&#115;cript:alert(1))", "[x](java%73cript:alert(1))", "[x](\tjavascript:alert(1))",
])
def test_bracket_and_escape_tricks_do_not_bring_back_a_javascript_link(text):
    """What a regular expression over Markdown missed: a real parser sees the same links the page would."""
    rendered = exercise_html(text)
    assert "<a" not in rendered, rendered
    assert_harmless(rendered)


def test_exercise_text_is_capped():
    assert exercise_html("a" * (MAX_EXERCISE_CHARS + 500)) == "<p>" + "a" * MAX_EXERCISE_CHARS + "</p>\n"


@pytest.mark.parametrize("text, tags", [
    ("**Exercise 1.** Make `f` *faster*.", {"strong", "code", "em"}),
    ("# Heading\n\n## Smaller\n\nA paragraph.", {"h1", "h2", "p"}),
    ("- one\n- two\n  - nested\n\n1. first\n2. second", {"ul", "ol", "li"}),
    ("```python\ndef f(x):\n    return x[0] * 2\n```", {"pre", "code"}),
])
def test_normal_markdown_is_rendered(text, tags):
    rendered = exercise_html(text)
    assert tags <= set(re.findall(r"<([a-z0-9]+)", rendered))
    assert_harmless(rendered)


def test_code_keeps_its_brackets_and_unicode_survives():
    rendered = exercise_html("Use `x[0]` and `jax.grad(f)(x)`: \u221ax, \u4e2d\u6587, \U0001f680")
    assert "<code>x[0]</code>" in rendered and "\u4e2d\u6587" in rendered


def test_module_names_the_limits_it_documents():
    assert MAX_TOKEN_CHARS == 8192 and MAX_EXERCISE_CHARS == 2_000
    assert sharing.FORMAT_VERSION == 1


# -- the edits a browser kept for a link ---------------------------------------


def _kept(tab: str, state: object) -> str:
    return json.dumps({"tab": tab, "state": state, "at": 1_700_000_000_000})


@pytest.mark.parametrize("tab", sorted(TYPICAL))
def test_every_tabs_kept_edits_come_back_as_the_schema_reads_them(tab):
    assert sharing.kept_edits(_kept(tab, TYPICAL[tab]), tab, {}, SCHEMAS) == TYPICAL[tab]


def test_only_the_fields_that_differ_from_the_links_version_are_edits():
    shown = {"code": "def f(x):\n    return x * 2\n", "sizes": "64, 256, 1024", "repeats": 5}
    kept = _kept("jit", {**shown, "sizes": "16, 32", "repeats": 5.0})
    assert sharing.kept_edits(kept, "jit", shown, SCHEMAS) == {"sizes": "16, 32"}
    assert sharing.kept_edits(_kept("jit", shown), "jit", shown, SCHEMAS) == {}


def test_a_kept_field_the_schema_refuses_keeps_the_links_value():
    """A number box left empty, a size out of range, text where a number goes, a field the tab does not have."""
    kept = _kept("jit", {"sizes": "16", "repeats": None, "code": 3, "unknown": "x"})
    assert sharing.kept_edits(kept, "jit", {}, SCHEMAS) == {"sizes": "16"}
    assert sharing.kept_edits(_kept("jit", {"repeats": 51}), "jit", {}, SCHEMAS) == {}


@pytest.mark.parametrize("text", [
    None, 3, "", "not json", "[]", '"text"', json.dumps({"tab": "jit"}), json.dumps({"state": {"sizes": "16"}}),
    _kept("vmap", {"code": "def f(x):\n    return x\n"}), _kept("jit", ["16"]), "[" * 100_000 + "]" * 100_000,
    _kept("jit", {"code": "x" * (1 << 20)}),
], ids=["none", "number", "empty", "not json", "a list", "a string", "no state", "no tab", "another tab",
        "state a list", "deeply nested", "over the size"])
def test_kept_text_that_is_not_a_tabs_edits_keeps_none(text):
    assert sharing.kept_edits(text, "jit", {}, SCHEMAS) == {}


def test_a_link_is_for_a_class_when_it_hides_locks_or_sets_an_exercise():
    assert not Link("jit", {}).for_class
    assert Link("jit", {}, hide=("sizes",)).for_class
    assert Link("jit", {}, read_only=True).for_class
    assert Link("jit", {}, exercise="Why?").for_class
