"""A job's questions to the device owner are untrusted too: user code can write its own on fd 3.

The worker's job socket carries the questions a device job asks the owner (``{"ask": request, "tag": tag}``,
answered with ``{"answer": ..., "tag": tag}``, playground/server/pools/watch.py). User code holds that socket, so it can
ask anything: a job of the CPU line is answered that it may not ask; a device job's odd requests are answered with
their error; a program crafted to call out of the device is refused by the owner with why; questions whose answers
user code leaves unread end the job. Every test ends with ``hostile.check()`` (tests/hostile/support.py).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import PRIVILEGES
from tests.hostile import support

WORKERS = 2
PARALLEL_WORKERS = 1


@pytest.fixture(scope="session", params=PRIVILEGES[:1])
def privilege(request) -> str:
    """One privilege: the server relays a question the same way whoever it runs as."""
    return request.param


hostile, _begin = support.hostile_fixtures("device-questions", workers=WORKERS, parallel_workers=PARALLEL_WORKERS,
                                           timeout_s=30)

PROTOCOL = """import json, os, struct
def send(message):
    body = json.dumps(message).encode()
    data = memoryview(struct.pack('!Q', len(body)) + body)
    while data:
        data = data[os.write(3, data):]
def receive():
    def read(n):
        got = b''
        while len(got) < n:
            got += os.read(3, n - len(got))
        return got
    (length,) = struct.unpack('!Q', read(8))
    return json.loads(read(length))
"""
CRAFT = """import base64, dataclasses, jax, jax.numpy as jnp
from jax._src.export import _export
from jax.interpreters import mlir
real = jax.export.export(jax.jit(lambda x: x * 2), platforms=('cpu',))(jax.ShapeDtypeStruct((3,), jnp.float32))
text = real.mlir_module().replace('%1 = stablehlo.multiply %arg0, %0 : tensor<3xf32>',
    '%1 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {api_version = 4 : i32} '
    ': (tensor<3xf32>) -> tensor<3xf32>')
with mlir.make_ir_context():
    crafted = _export._module_to_bytecode(mlir.ir.Module.parse(text))
program = base64.b64encode(dataclasses.replace(real, mlir_module_serialized=crafted).serialize()).decode()
"""


def asking(*requests: str, read: bool = True, prelude: str = "") -> str:
    """User code that asks each request (a Python expression) and prints each answer, then defines ``f``."""
    lines = [PROTOCOL, prelude]
    for request in requests:
        lines.append(f"send({{'ask': {request}}})")
        if read:
            lines.append("print('ANSWER', json.dumps(receive()['answer']))")
    return "\n".join(lines) + "\ndef f(x):\n    return x + 1\n"


def answers(result: dict) -> list:
    assert result.get("ok") is True, support.short(result)
    return [json.loads(line.removeprefix("ANSWER ")) for line in result["stdout"].splitlines()
            if line.startswith("ANSWER ")]


def inspect(hostile, code: str, on_device: bool) -> dict:
    return hostile.call(code, "1.0", None, "", on_device, api_name="/inspect", timeout_s=120)


def test_a_job_of_the_cpu_line_may_not_ask(hostile):
    [answer] = answers(inspect(hostile, asking("{'op': 'about'}"), on_device=False))
    assert answer == {"error": "this job may not ask the server anything"}
    hostile.check()


def test_a_device_jobs_questions_are_answered_and_odd_ones_with_their_error(hostile):
    about, unknown, not_a_dict, no_program = answers(inspect(hostile, asking(
        "{'op': 'about'}", "{'op': 'format_disk'}", "'about'", "{'op': 'call', 'call': {'program': 7, 'args': []}}"),
        on_device=True))
    assert about["platform"] == "cpu" and about["label"] == "cpu"
    assert unknown == {"error": "there is no device op 'format_disk'"}
    assert not_a_dict == {"error": "a device request is a JSON object"}
    assert "program must be a whole number below" in no_program["error"]
    hostile.check()


def test_a_crafted_program_is_refused_by_the_owner_with_why(hostile):
    [refused] = answers(inspect(hostile, asking("{'op': 'load', 'program': program}", prelude=CRAFT), on_device=True))
    assert "'xla_ffi_python_cpu_callback', which is not a custom call jax.export treats as stable" in refused["error"]
    hostile.check()


@pytest.mark.parametrize("questions", [1, 2])
def test_questions_left_unanswered_end_the_job(hostile, questions):
    """Whether the server still holds the first question when the second comes (refused there) or has answered
    both (the worker then reads an answer that is not its own): the job ends, as the user's doing."""
    result = inspect(hostile, asking(*["{'op': 'about'}"] * questions, read=False), on_device=True)
    error = support.assert_error(result, ("forbidden",))
    assert ("it asked a second question before the first was answered" in error["message"]
            or "left the answer unread" in error["message"]), error["message"]
    hostile.check()
