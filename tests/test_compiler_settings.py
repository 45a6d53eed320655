"""playground.compiler_settings: every named setting is one XLA and JAX accept, and changes what it says it does."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from playground.compiler_settings import SETTINGS, Setting
from playground.worker.measurement import program_size


def _cubic(x):
    return x + x * x + x * x * x


@pytest.mark.parametrize("name", list(SETTINGS))
def test_each_settings_compiler_options_are_accepted_by_xla(name):
    setting = SETTINGS[name]
    lowered = jax.jit(_cubic).lower(jnp.arange(4.0))
    compiled = lowered.compile(compiler_options=setting.compiler_options or None)
    np.testing.assert_allclose(np.asarray(compiled(jnp.arange(4.0))), [0.0, 3.0, 14.0, 39.0])


@pytest.mark.parametrize("name", list(SETTINGS))
def test_each_setting_describes_itself_and_changes_one_thing(name):
    setting = SETTINGS[name]
    assert isinstance(setting, Setting)
    assert setting.label and setting.what.endswith(".")
    changes = [bool(setting.compiler_options), setting.x64, setting.donate]
    assert sum(changes) == 1, name


def test_no_setting_passes_options_of_the_dump_or_anything_but_disabled_passes():
    for setting in SETTINGS.values():
        assert set(setting.compiler_options) <= {"xla_disable_hlo_passes"}
        for names in setting.compiler_options.values():
            assert all(part and part == part.strip() for part in names.split(","))


def test_settings_are_frozen():
    with pytest.raises(AttributeError):
        SETTINGS["x64: on"].x64 = False  # type: ignore[misc]


def test_fusion_off_really_leaves_each_operation_a_kernel_of_its_own():
    lowered = jax.jit(_cubic).lower(jnp.ones((100, 100)))
    plain = lowered.compile().as_text()
    unfused = lowered.compile(compiler_options=SETTINGS["fusion: off"].compiler_options).as_text()
    if jax.default_backend() == "cpu":
        assert program_size.count_kernels(plain) == 1
        assert program_size.count_kernels(unfused) == 4


def test_cse_off_keeps_an_operation_written_twice():
    def twice(x):
        return jnp.sin(x) + jnp.sin(x)

    lowered = jax.jit(twice).lower(jnp.ones(8))
    on = lowered.compile().as_text()
    off = lowered.compile(compiler_options=SETTINGS["cse: off"].compiler_options).as_text()
    assert off.count(" sine(") > on.count(" sine(") == 1
