"""The jit tab's sentences: each claim only what the reply measured and checked."""

from __future__ import annotations

import pytest

from playground.server.ui import jit_views
from playground.server.ui.jit_views import agreement_line, why_markdown

BASE = {"jaxpr_ops": 5, "fused_kernels": 1, "numpy_unavailable": None}


def test_agreement_names_the_sizes_checked_and_where_numpy_dropped_out():
    reply = {**BASE, "sizes": [10, 100, 1000], "checked_sizes": [10, 100, 1000], "numpy_checked_sizes": [10, 100],
             "numpy_unavailable": "With jnp as NumPy the function gives other results at n=1000 (...)"}
    line = agreement_line(reply)
    assert line.startswith("Eager JAX and jit agree at every size measured (n = 10, 100, 1,000)")
    assert "NumPy agrees at n = 10, 100, and was left out after: With jnp as NumPy" in line
    no_numpy = agreement_line({**reply, "numpy_checked_sizes": [], "numpy_unavailable": "it changes x in place"})
    assert no_numpy.endswith("No NumPy column: it changes x in place")


def test_jit_losing_to_dispatch_and_losing_on_compute_are_told_apart():
    reply = {**BASE, "sizes": [10, 300, 3000], "jit_s": [10e-6, 170e-6, 5e-3], "numpy_s": [6e-6, 85e-6, 9e-3],
             "eager_s": [70e-6, 600e-6, 20e-3]}
    why = why_markdown(reply)
    assert "**Why jit is faster than eager JAX** (4× at n = 3,000)" in why
    assert "slower than NumPy at n = 10 (0.6×); slower than NumPy at n = 300 (0.5×)" in why
    assert "At n = 10 a jitted call costs little more than its fixed cost (about 10 µs" in why
    assert "At n = 300 the time is well above that fixed cost, so it is not dispatch" in why
    assert "n = 3,000" not in why.split("**Where jit loses:**")[1]  # it won there: no loss claimed


@pytest.mark.parametrize(("kernels", "language", "said"), [
    (1, "en", "XLA fuses them into **one** kernel that reads the input once and writes the output once."),
    (3, "en", "XLA fuses them into **3** kernels that read the input once and write the output once."),
    (1, "de", "fusioniert XLA sie zu **einem** Kernel, der die Eingabe einmal liest"),
    (3, "de", "fusioniert XLA sie zu **3** Kerneln, die die Eingabe einmal lesen"),
])
def test_the_fused_kernels_are_counted_in_words_that_agree_with_the_count(kernels, language, said):
    reply = {**BASE, "fused_kernels": kernels, "sizes": [3000], "jit_s": [5e-3], "numpy_s": [9e-3],
             "eager_s": [20e-3]}
    assert said in why_markdown(reply, language)


def test_no_fusion_claim_when_jit_never_beat_eager():
    reply = {**BASE, "sizes": [10], "jit_s": [10e-6], "numpy_s": [None], "eager_s": [8e-6]}
    why = why_markdown(reply)
    assert "Why jit is faster" not in why and "slower than eager JAX at n = 10" in why


def _faulting(numpy: float, jit: float) -> dict:
    return {"sizes": [10, 2000], "numpy_s": [1e-6, 7.5e-3], "eager_s": [3e-5, 2e-2], "jit_s": [6e-6, 1e-3],
            "jaxpr_ops": 5, "fused_kernels": 1,
            "faults_per_call": {"numpy": [0.0, numpy], "eager": [0.0, 0.0], "jit": [0.0, jit]}}


def test_page_faults_of_one_side_are_said_with_both_counts_in_every_language():
    """NumPy's calls took fresh pages in its process, jit's none in its own: the why says both counts and that a
    script of the reader's may differ by that, in en, de and zh."""
    for language, words, size in (("en", "Fresh memory", "2,000"), ("de", "Frischer Speicher", "2.000"),
                                  ("zh", "新内存", "2,000")):
        said = jit_views.why_markdown(_faulting(626.0, 0.0), language)
        assert words in said and "**626**" in said and "**0**" in said and f"n = {size}" in said, said


def test_a_few_page_faults_are_not_worth_a_word():
    assert jit_views.faults_line(_faulting(jit_views.FRESH_PAGES - 1, 3.0)) == ""
    assert jit_views.faults_line({**_faulting(0, 0), "faults_per_call": None}) == ""  # a reply from before: none
