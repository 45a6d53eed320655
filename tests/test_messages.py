"""playground.messages: the catalogue, the language a request asks for, and the server's messages in de and zh."""

from __future__ import annotations

import string
import unicodedata

import jax
import pytest
from jax.errors import ConcretizationTypeError, TracerBoolConversionError

from playground import messages
from playground.server.pools import reply
from playground.server.ui.error_views import error_markdown
from playground.server.ui.markdown import verdict
from playground.server.ui.train_views import device_banner, status_markdown
from playground.worker.jobs import inspect as staging

ENGLISH_ONLY = {"fix.bool.if_quoted"}  # nothing but the user's own code in it
IF = "def f(x):\n    if x > 0:\n        return x\n    return -x\n"


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("key", sorted(messages.CATALOGUE))
def test_every_message_has_english_and_each_translation_the_same_placeholders(key):
    texts = messages.CATALOGUE[key]
    assert set(texts) <= set(messages.LANGUAGES) and texts["en"] is not None
    if key not in ENGLISH_ONLY and texts["en"]:
        assert set(texts) == set(messages.LANGUAGES), f"{key} lacks a translation"
    for language, text in texts.items():
        assert _fields(text) == _fields(texts["en"]), f"{key} [{language}] fills other placeholders"


def test_no_text_needs_an_emoji_font():
    """A pictograph (Unicode's "other symbols": ⏱, ✅, ...) shows as an empty box where no font has it, as the
    Chromium shows "⏱" without an emoji font; the page says it in words (and md.verdict's labels) instead."""
    texts = {(key, language): text for key, texts in messages.CATALOGUE.items() for language, text in texts.items()}
    pictographs = {where: [c for c in text if unicodedata.category(c) == "So"] for where, text in texts.items()}
    assert {where: found for where, found in pictographs.items() if found} == {}


def test_no_message_has_a_parameter_that_gradio_client_takes_for_a_file():
    """A reply holding {"path": "self"} made gradio_client fetch /gradio_api/file=self (403): the pieces of a
    lesson's fix carried such a dict. No catalogue text may name a parameter so, and piece() refuses one."""
    named = {key for key, texts in messages.CATALOGUE.items() for text in texts.values() if text
             for field in _fields(text) if field.split(".")[0].split("[")[0] in messages.RESERVED_PARAMETERS}
    assert not named, named
    with pytest.raises(ValueError, match="path"):
        messages.piece("verdict.ok", path="self")


@pytest.mark.parametrize(("header", "expected"), [
    (None, "en"), ("", "en"), ("de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", "de"), ("zh-CN,zh;q=0.9", "zh"),
    ("fr-FR,fr;q=0.9,zh;q=0.8,de;q=0.5", "zh"), ("en;q=0.2, de;q=0.8", "de"), ("de;q=0, en", "en"),
    ("fr, *;q=0.5", "en"), ("de;q=abc, zh", "zh"), ("ja", "en"), ("DE-at", "de"), ("garbage;;;,,,", "en"),
])
def test_the_language_comes_from_accept_language_and_its_q_values(header, expected):
    assert messages.choose(header) == expected


def test_a_message_in_each_language_with_a_nested_piece():
    where = messages.piece("where.line", line="2", code="if x > 0:")
    assert messages.render([messages.piece("fix.bool.if", where=where, example="y = x")], "de").startswith(
        "Zeile 2 (`if x > 0:`) verzweigt nach einem getracten Wert.")
    assert messages.say("verdict.error", "zh") == "错误"
    assert messages.say("fix.bool.if_quoted", "de", cond="c", yes="a", no="b", x="x").startswith("y = jnp.where(c")
    with pytest.raises(KeyError):
        messages.piece("no.such.key")


def _tracer_error(raises: type[BaseException], source: str, *args) -> dict:
    """The error dict a worker returns for ``source`` under jit, after the server checked it (server/pools/reply.py)."""
    namespace = {"__name__": "__playground__", "jax": jax, "jnp": jax.numpy}
    exec(compile(source, "<playground>", "exec"), namespace)
    try:
        jax.jit(namespace["f"])(*args)
    except raises as exc:
        return reply.validated(staging.explained_error(exc, source), "inspect")["error"]
    raise AssertionError("no error")


def test_a_tracer_error_is_explained_in_german_and_chinese_with_jaxs_own_text_below():
    error = _tracer_error(TracerBoolConversionError, IF, 1.0)
    assert error["words"]["fix"], "the worker's pieces survive the server's check of its reply"
    german = error_markdown(error, "de")
    assert german.startswith(f"{verdict('error', 'de')} **TracerBoolConversionError: Python brauchte True oder "
                             "False von einem getracten Wert in Zeile 2**")
    assert "Unter `jax.jit` führt JAX deine Funktion nicht mit deinen Zahlen aus" in german
    assert "**So behebst du es:** Zeile 2 (`if x > 0:`) verzweigt nach einem getracten Wert." in german
    assert "y = jnp.where(x > 0, a, b)   # a wo True, b wo False" in german  # the user's condition, our comment
    assert german.endswith(f"JAXs eigene Meldung (auf Englisch):\n\n```\n{error['message']}\n```")
    chinese = error_markdown(error, "zh")
    assert "Python 需要从被追踪的值得到 True 或 False（第 2 行）" in chinese and "如何修复：" in chinese
    assert "在 `jax.jit` 下，JAX 不会用你的数值运行函数" in chinese
    assert chinese.endswith(f"\n```\n{error['message']}\n```")  # JAX's words as JAX wrote them
    english = error_markdown(error)
    assert "Under `jax.jit`, JAX does not run your function" in english and "Meldung" not in english


def test_the_static_argnums_hint_is_translated_too():
    source = "def f(x, n):\n    return jnp.zeros(int(n))\n"
    error = _tracer_error(ConcretizationTypeError, source, 1.0, 3)
    german = error_markdown(error, "de")
    assert "Wenn `n` wirklich eine feste Einstellung ist" in german and "static_argnums=1" in german


def test_forged_pieces_fall_back_to_the_english_text():
    error = {"kind": "user_exception", "message": "m", "line": 1, "title": "T", "explanation": "E", "fix": "F",
             "words": {"title": [["no.such.key", {}]], "fix": [["fix.bool.if", {}]]}}  # a key, no parameters
    text = error_markdown(error, "de")
    assert "**T in Zeile 1**" in text and "**So behebst du es:** F" in text
    bad = {"ok": False, "error": {**error, "words": {"fix": [["x" * 100, {}]]}}}
    assert "words" not in reply.validated(bad, "inspect")["error"]  # not a catalogue-shaped key: dropped


def test_error_titles_of_each_kind_in_german():
    assert error_markdown({"kind": "timeout", "message": "Time limit: 10 s.", "line": None}, "de").startswith(
        "<span class='pg-verdict pg-verdict-error'>Fehler</span> **Zu langsam**")


BASE = {"epochs": 2, "step": 124, "epoch": 2.0, "loss": 0.3, "test_accuracy": 0.95, "samples_per_s": 5000.0,
        "elapsed_s": 12.5, "n_train": 8000, "n_test": 2000, "done": True}


@pytest.mark.parametrize(("language", "finished", "stopped", "training"), [
    ("de", "**Fertig.** Epoche 2,00 von 2 · Schritt 124 · Loss 0,3000 · Testgenauigkeit **95,00 %**",
     "**Am Zeitlimit von 900 s pro Lauf beendet.**", "Training: Epoche 1,00 von 2"),
    ("zh", "**已完成.** 第 2.00 / 2 轮 · 第 124 步 · loss 0.3000 · 测试准确率 **95.00 %**",
     "**到达每次运行 900 秒的时间上限后结束.**", "训练中：第 1.00 / 2 轮"),
])
def test_the_train_status_in_german_and_chinese(language, finished, stopped, training):
    done = {**BASE, "phase": "finished", "message": "Finished", "message_words": ["train.finished", {}]}
    assert status_markdown(done, language).startswith(f"{verdict('ok', language)} {finished} · ")
    limit = {**BASE, "phase": "stopped", "stopped": True, "message": "Ended at the time limit of 900 s per run",
             "message_words": ["train.stopped_time_limit", {"limit": "900"}]}
    assert status_markdown(limit, language).startswith(f"{verdict('stopped', language)} {stopped}")
    running = {**BASE, "phase": "training", "epoch": 1.0, "done": False}
    assert f"{verdict('busy', language)} {training}" in status_markdown(running, language)
    assert "<progress value='1.0' max='2'>" in status_markdown(running, language)
    assert messages.say("train.compiling", language) in status_markdown({"phase": "compiling"}, language)
    assert "#3" in status_markdown({"phase": "queued", "queue_position": 3}, language)
    assert messages.say("train.on_device", language, device="<b>GPU</b>") != messages.say("train.on_device", "en",
                                                                                            device="<b>GPU</b>")
    assert device_banner("GPU · H200", language=language).count("GPU · H200") == 1


def test_the_train_status_in_english_keeps_the_apis_message():
    stopped = {**BASE, "phase": "stopped", "stopped": True, "message": "Stop came before the run started."}
    assert status_markdown(stopped).startswith(f"{verdict('stopped')} **Stop came before the run started.**")
    words = {**stopped, "message_words": ["train.stopped_before_start", {}]}
    assert status_markdown(words, "de").startswith(f"{verdict('stopped', 'de')} **Der Stopp kam, bevor der Lauf "
                                                   "begann.**")


def test_the_jit_narrative_in_german_and_chinese():
    from playground.server.ui import jit_views

    reply = {"sizes": [10, 1000], "checked_sizes": [10, 1000], "numpy_checked_sizes": [10, 1000],
             "numpy_unavailable": None, "numpy_s": [1e-6, 8e-3], "eager_s": [3e-5, 9e-3], "jit_s": [6e-6, 1e-3],
             "jaxpr_ops": 5, "fused_kernels": 1}
    assert jit_views.agreement_line(reply, "de") == ("Eager JAX und jit stimmen überein bei jeder gemessenen Größe "
                                                    "(n = 10, 1.000); NumPy stimmt bei jeder auch überein.")
    german = jit_views.why_markdown(reply, "de")
    assert german.startswith("**Warum jit schneller ist als eager JAX** (9× bei n = 1.000): Der jaxpr hat **5**")
    assert "**Wo jit verliert:** langsamer als NumPy bei n = 10 (0,17×)." in german
    assert jit_views.why_markdown(reply, "zh").startswith("**为什么 jit 比 eager JAX 快**（n = 1,000 时快 9×）")
    assert jit_views.why_markdown(reply) == jit_views.why_markdown(reply, "en")


def test_the_about_summary_in_german():
    from playground.server.ui.about_tab import to_markdown

    info = {"versions": {"jax": "0.10.2", "gradio": None}, "backend": "cpu", "devices": [],
            "sandbox": {"layers": {"landlock": {"active": True, "detail": "ABI 7"}},
                        "mechanisms": {"tasks": {"active": False, "detail": "threads counted"}}},
            "queue": {"concurrency": 2, "max_waiting": 16, "cache": None}, "graphs": None,
            "accelerator": {"device": None, "why": "", "jobs": []}, "training": None}
    text = to_markdown(info, "de")
    assert "**Geräte:** unbekannt (kein Worker hat geantwortet)" in text and "gradio nicht installiert" in text
    assert f"| landlock | {verdict('ok', 'de')} aktiv | ABI 7 |" in text
    assert f"| tasks | {verdict('warning', 'de')} teilweise | threads counted |" in text  # the API's detail: English
    assert "### Beschleuniger\nKeiner in Gebrauch: jeder Job läuft auf der CPU." in text
    assert to_markdown(info).startswith("**Backend:** cpu  \n**Devices:** unknown (no worker answered)")
