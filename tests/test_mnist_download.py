"""Downloads (pooch) against a real HTTP server on 127.0.0.1: mirrors in order, checksums, interrupted transfers,
the cache."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pooch
import pytest

from playground import messages
from playground.mnist import catalogue, download, fetch, load
from playground.mnist.download import DownloadError, fetch_file
from playground.mnist.idx import write_idx
from playground.server.config import data_places
from tests.mnist_folders import unreachable_mirror

BODY = bytes(range(256)) * 1200  # 307,200 bytes: several chunks
BODY_SHA = hashlib.sha256(BODY).hexdigest()
# A download's time limit where the test does not test it, and the ceiling of a wait: a local answer takes
# milliseconds, so only a real fault gets near it on a loaded machine.
WAIT_S = 60.0


@pytest.fixture
def server() -> Iterator[SimpleNamespace]:
    """``routes[path] = handler(request)``; unknown paths are 404; ``requests`` records every path asked for."""
    routes: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}
    requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            requests.append(self.path)
            route = routes.get(self.path)
            if route is None:
                self.send_error(404)
            else:
                route(self)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield SimpleNamespace(url=f"http://127.0.0.1:{httpd.server_address[1]}/", routes=routes, requests=requests)
    httpd.shutdown()
    httpd.server_close()


def serve(body: bytes, length: int | None = None):
    """A handler sending ``body`` after a Content-Length of ``length`` (default: the truth), then closing."""

    def handle(request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Length", str(len(body) if length is None else length))
        request.end_headers()
        request.wfile.write(body)
        request.wfile.flush()
        request.close_connection = True

    return handle


def silent_until(hold: threading.Event):
    """A handler that answers nothing, and closes the connection once ``hold`` is set."""

    def handle(request: BaseHTTPRequestHandler) -> None:
        hold.wait(WAIT_S)
        request.close_connection = True

    return handle


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_good_download_reports_progress_up_to_the_total(server, tmp_path):
    server.routes["/m1/file.bin"] = serve(BODY)
    calls = []
    path, url = fetch_file("file.bin", BODY_SHA, [server.url + "m1/"], tmp_path / "dest",
                           progress=lambda *args: calls.append(args))
    assert url == server.url + "m1/file.bin"
    assert path == tmp_path / "dest" / "file.bin" and path.read_bytes() == BODY
    assert leftovers(tmp_path / "dest") == ["file.bin"]  # the .part file was renamed, not copied
    assert calls[0] == ("file.bin", 0, len(BODY))
    done = [c[1] for c in calls]
    assert done == sorted(done) and len(set(done)) == len(done) and done[-1] == len(BODY)
    assert len(calls) >= 3 and all(c[2] == len(BODY) for c in calls)
    assert pooch.file_hash(str(path)) == BODY_SHA
    assert path.stat().st_mode & 0o777 == 0o644  # readable by everyone sharing the cache


def test_checksum_mismatch_moves_on_to_the_next_mirror(server, tmp_path):
    server.routes["/m1/file.bin"] = serve(BODY[:-1] + b"X")
    server.routes["/m2/file.bin"] = serve(BODY)
    path, url = fetch_file("file.bin", BODY_SHA, [server.url + "m1/", server.url + "m2/"], tmp_path)
    assert url == server.url + "m2/file.bin" and path.read_bytes() == BODY
    assert server.requests == ["/m1/file.bin", "/m2/file.bin"]
    assert leftovers(tmp_path) == ["file.bin"]


def test_an_interrupted_transfer_leaves_no_file(server, tmp_path):
    half = BODY[: len(BODY) // 2]
    server.routes["/m1/file.bin"] = serve(half, length=len(BODY))
    with pytest.raises(DownloadError) as info:
        fetch_file("file.bin", BODY_SHA, [server.url + "m1/"], tmp_path)
    assert f"transfer interrupted after {len(half):,} of {len(BODY):,} bytes" in str(info.value)
    assert leftovers(tmp_path) == []  # neither the final name nor a .part file


def test_an_interrupted_transfer_falls_back_to_the_next_mirror(server, tmp_path):
    server.routes["/m1/file.bin"] = serve(BODY[:1000], length=len(BODY))
    server.routes["/m2/file.bin"] = serve(BODY)
    _, url = fetch_file("file.bin", BODY_SHA, [server.url + "m1/", server.url + "m2/"], tmp_path)
    assert url.endswith("/m2/file.bin") and leftovers(tmp_path) == ["file.bin"]


def test_all_mirrors_failing_lists_each_reason(server, tmp_path):
    server.routes["/bad/file.bin"] = serve(b"garbage")
    refused = unreachable_mirror()
    mirrors = [server.url + "missing/", server.url + "bad/", refused, "ftp://example.org/"]
    with pytest.raises(DownloadError) as info:
        fetch_file("file.bin", BODY_SHA, mirrors, tmp_path, timeout_s=WAIT_S)
    message = str(info.value)
    assert message.startswith("could not download file.bin: ")
    assert f"{server.url}missing/file.bin: HTTP 404" in message
    assert f"{server.url}bad/file.bin: checksum mismatch (got {hashlib.sha256(b'garbage').hexdigest()[:12]}…, " \
           f"expected {BODY_SHA[:12]}…)" in message
    assert f"{refused}file.bin: connection refused" in message
    assert "ftp://example.org/file.bin: not an http(s) or file URL" in message
    assert [url for url, _ in info.value.failures] == [m + "file.bin" for m in mirrors]
    assert leftovers(tmp_path) == []


def test_a_mirror_that_never_answers_is_given_up_on_after_the_timeout_and_the_next_one_tried(server, tmp_path):
    # The slow mirror answers nothing until the test is over: only the timeout can end the wait for it. A call has
    # one timeout for all its mirrors, so the mirrors that do answer are tried in the test above, with one that no
    # loaded machine comes near; the one after this mirror fails without a connection.
    hold = threading.Event()
    server.routes["/slow/file.bin"] = silent_until(hold)
    mirrors = [server.url + "slow/", "ftp://example.org/"]
    try:
        with pytest.raises(DownloadError) as info:
            fetch_file("file.bin", BODY_SHA, mirrors, tmp_path, timeout_s=0.5)
    finally:
        hold.set()
    message = str(info.value)
    assert f"{server.url}slow/file.bin: timed out after 0.5 s" in message
    assert "ftp://example.org/file.bin: not an http(s) or file URL" in message
    assert [url for url, _ in info.value.failures] == [m + "file.bin" for m in mirrors]
    assert leftovers(tmp_path) == []


def test_an_oversized_content_length_is_refused_before_reading(server, tmp_path, monkeypatch):
    monkeypatch.setattr(download, "MAX_BYTES", 1000)
    server.routes["/m/file.bin"] = serve(BODY)
    with pytest.raises(DownloadError, match="refused: announces 307,200 bytes, above the"):
        fetch_file("file.bin", BODY_SHA, [server.url + "m/"], tmp_path)
    assert leftovers(tmp_path) == []


def test_file_urls_work_as_a_local_mirror(tmp_path):
    (tmp_path / "share").mkdir()
    (tmp_path / "share" / "file.bin").write_bytes(BODY)
    _, url = fetch_file("file.bin", BODY_SHA, [(tmp_path / "empty").as_uri() + "/",
                                              (tmp_path / "share").as_uri() + "/"], tmp_path / "dest")
    assert url == (tmp_path / "share" / "file.bin").as_uri()


# -- fetch.fetch / load.load end to end against the local server ------------------------------------------------


@pytest.fixture
def tiny_mnist(server, tmp_path, monkeypatch) -> SimpleNamespace:
    """Four small IDX .gz files served at /mnist/, a spec whose checksums match them, and the settings (``env``) and
    their places (``places``) using both."""
    rng = np.random.default_rng(1)
    arrays = {"train_images": rng.integers(0, 256, (12, 28, 28)), "train_labels": np.arange(12) % 10,
              "test_images": rng.integers(0, 256, (4, 28, 28)), "test_labels": np.array([3, 1, 4, 1])}
    served = tmp_path / "served"
    served.mkdir()
    spec = catalogue.DATASETS["mnist"]
    checksums = {}
    for role, filename in spec.files.items():
        write_idx(served / filename, arrays[role])
        checksums[filename] = pooch.file_hash(str(served / filename))
        server.routes[f"/mnist/{filename}"] = serve((served / filename).read_bytes())
    monkeypatch.setitem(catalogue.DATASETS, "mnist", dataclasses.replace(spec, sha256=checksums))
    env = {"PLAYGROUND_CACHE": str(tmp_path / "cache"), "PLAYGROUND_MIRRORS_MNIST": server.url + "mnist"}
    return SimpleNamespace(arrays=arrays, env=env, places=data_places(env), cache=tmp_path / "cache" / "mnist",
                           served=served)


def test_load_downloads_once_then_uses_the_cache(server, tiny_mnist):
    first = load.load("mnist", tiny_mnist.places)
    assert first.source == f"downloaded from {server.url}mnist/ into {tiny_mnist.cache}"
    assert len(server.requests) == 4
    for role, array in tiny_mnist.arrays.items():
        np.testing.assert_array_equal(getattr(first, role), array)
    assert leftovers(tiny_mnist.cache) == sorted(catalogue.DATASETS["mnist"].files.values())

    second = load.load("mnist", tiny_mnist.places)
    assert second.source == f"cache {tiny_mnist.cache}"
    assert len(server.requests) == 4  # nothing more was asked of the server
    np.testing.assert_array_equal(second.test_labels, [3, 1, 4, 1])


def test_a_cached_file_with_a_wrong_checksum_is_fetched_again(server, tiny_mnist):
    fetch.fetch(catalogue.DATASETS["mnist"], tiny_mnist.places)
    damaged = tiny_mnist.cache / "t10k-labels-idx1-ubyte.gz"
    damaged.write_bytes(b"bit rot")
    paths, source = fetch.fetch(catalogue.DATASETS["mnist"], tiny_mnist.places)
    assert source.startswith("downloaded from")
    assert server.requests[4:] == ["/mnist/t10k-labels-idx1-ubyte.gz"]  # only the damaged file
    assert paths["test_labels"].read_bytes() == (tiny_mnist.served / damaged.name).read_bytes()


def test_fetch_reports_progress_per_file(tiny_mnist):
    seen: dict[str, list[int]] = {}
    fetch.fetch(catalogue.DATASETS["mnist"], tiny_mnist.places,
                lambda name, done, total: seen.setdefault(name, []).append(done))
    assert set(seen) == set(catalogue.DATASETS["mnist"].files.values())
    for name, done in seen.items():
        assert done[0] == 0 and done[-1] == (tiny_mnist.served / name).stat().st_size


def test_a_download_failure_midway_keeps_the_files_already_fetched(server, tiny_mnist):
    del server.routes["/mnist/t10k-images-idx3-ubyte.gz"]
    with pytest.raises(catalogue.DataUnavailable, match="t10k-images-idx3-ubyte.gz: HTTP 404") as info:
        fetch.fetch(catalogue.DATASETS["mnist"], tiny_mnist.places)
    assert messages.render([info.value.said]) == "MNIST is not on this machine, and downloading it failed (offline?)."
    assert "make data" in messages.render([info.value.fix], "de") and "HTTP 404" in info.value.details
    assert str(info.value).startswith("MNIST is not on this machine") and info.value.details in str(info.value)
    assert leftovers(tiny_mnist.cache) == ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]


def test_make_data_downloads_with_a_progress_bar_per_file(server, tiny_mnist, monkeypatch, capsys):
    from playground.server.training import fetch_cli

    for name, value in tiny_mnist.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("MNIST_DIR", raising=False)
    assert fetch_cli.main(["mnist"]) == 0
    out, err = capsys.readouterr()
    assert out == f"mnist: downloaded from {server.url}mnist/ into {tiny_mnist.cache}\n"
    lines = err.replace("\r", "\n").splitlines()
    for filename in catalogue.DATASETS["mnist"].files.values():  # tqdm's bar for each file, ending at 100 %
        assert any(line.startswith(f"{filename}: 100%|") for line in lines), (filename, err)
