"""Two ways to call a streaming endpoint of the app, timing each update: for the benchmarks only.

``gradio_client`` is what a Python user (and a classroom of scripts) uses; it
opens new HTTP connections for every call, a cost of its own (inspect_latency.py
prints each client's floor). ``KeepAliveClient`` speaks Gradio's documented HTTP
API (``POST /gradio_api/call/<name>``, then the event stream) over one kept-
alive connection in one session, as a browser tab does: the two side by side
separate what the server costs from what the client does.

Each call gives a ``Timings``: seconds to the first update that carries a
result (an early reply or the final one), to the final one, the final reply,
and the queue positions the updates named.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field

import httpx


@dataclass
class Timings:
    first_s: float | None = None  # to the first update with a result or an error in it
    full_s: float | None = None  # to the last update
    final: dict | None = None
    positions: list[int] = field(default_factory=list)  # each "queued" update's place in line

    def see(self, update: dict, elapsed: float) -> None:
        if update.get("phase") == "queued":
            self.positions.append(update["queue"]["position"])
        elif update.get("done") is not False or "result" in update:
            self.first_s = elapsed if self.first_s is None else self.first_s
        if update.get("done") is not False:
            self.full_s, self.final = elapsed, update

    @property
    def ok(self) -> bool:
        return bool(self.final and self.final.get("ok"))


def call_gradio_client(client, api_name: str, *data) -> Timings:
    """One call through gradio_client's ``submit``, reading every update as it comes."""
    timings = Timings()
    started = time.perf_counter()
    job = client.submit(*data, api_name=api_name)
    for update in job:
        timings.see(update, time.perf_counter() - started)
    if timings.final is None:  # the job ended without a last update: take its result
        timings.see(job.result(), time.perf_counter() - started)
    return timings


class KeepAliveClient:
    """Gradio's HTTP API over one kept-alive connection and one session, as a browser tab has (each thread needs
    its own): Gradio builds a session's state once (for this app, tens of milliseconds), not per call."""

    def __init__(self, base_url: str, timeout_s: float = 120.0) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=timeout_s)
        self._session = secrets.token_hex(8)

    def call(self, api_name: str, *data) -> Timings:
        timings = Timings()
        started = time.perf_counter()
        name = api_name.lstrip("/")
        body = {"data": list(data), "session_hash": self._session}
        event = self._http.post(f"/gradio_api/call/{name}", json=body).json()["event_id"]
        with self._http.stream("GET", f"/gradio_api/call/{name}/{event}") as stream:
            kind = None
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    kind = line[len("event: "):]
                elif line.startswith("data: ") and kind in ("generating", "complete"):
                    (update,) = json.loads(line[len("data: "):])
                    timings.see(update, time.perf_counter() - started)
                    if kind == "complete":
                        break
                elif line.startswith("data: ") and kind == "error":
                    timings.see({"ok": False, "error": {"kind": "gradio", "message": line}}, time.perf_counter() -
                                started)
                    break
        return timings

    def close(self) -> None:
        self._http.close()
