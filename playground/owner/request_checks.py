"""The values of a job's request checked before the owner acts on them: a whole number below its bound, seconds
within theirs, a compiler setting, the options of a timing. A value that does not fit is a ``Problem``, whose
message is the answer's ``error`` (session.py)."""

from __future__ import annotations

from playground import compiler_settings


class Problem(ValueError):
    """A request this session cannot serve; its message is the answer's ``error``."""


def whole(value: object, below: int, name: str) -> int:
    if type(value) is not int or not 0 <= value < below:
        raise Problem(f"{name} must be a whole number below {below:,}, got {str(value)[:20]}")
    return value


def compiler_setting(setting: object) -> object:
    """``setting`` where it is None or a compiler setting with XLA options (compiler_settings.py); Problem else."""
    if setting is not None and (setting not in compiler_settings.SETTINGS
                                or not compiler_settings.SETTINGS[setting].compiler_options):
        raise Problem(f"there is no compiler setting {str(setting)[:40]!r}")
    return setting


# The longest a timing runs, whatever it asks (a worker without a deadline asks for no limit); a job's own time
# (PLAYGROUND_MEASURE_TIMEOUT_S) usually ends it sooner, by ending the owner.
MAX_TIMING_S = 3600.0


def seconds(value: object, name: str) -> float:
    """``value`` as seconds: a number from 0 up, infinity included (no limit); Problem for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:  # NaN fails >= too
        raise Problem(f"{name} must be a number of seconds from 0 up, got {str(value)[:20]}")
    return float(value)


def timing_options(request: dict) -> dict:
    """A timing's options (measure/timing.py's), each within its bound."""
    return {"min_total_s": min(seconds(request.get("min_total_s", 0.2), "min_total_s"), 30.0),
            "min_runs": min(whole(request.get("min_runs", 3), 1001, "min_runs"), 1000) or 1,
            "max_runs": min(whole(request.get("max_runs", 50), 1002, "max_runs"), 1001) or 1,
            "max_total_s": min(seconds(request.get("max_total_s", 30.0), "max_total_s"), MAX_TIMING_S),
            "warmup": whole(request.get("warmup", 1), 11, "warmup")}
