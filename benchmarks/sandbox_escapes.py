"""What a hostile job can do on this host: the attempts of tests/hostile/escapes.py, sent through the app's API in
this process (no web server: the TPU machine has no sockets), from Inspect on the CPU, from Inspect on the device
line, and from the Compiler tab; each attempt's outcome, and whether anything changed on disk.

Run: ``.venv/bin/python benchmarks/sandbox_escapes.py`` (on a gVisor host such as the lent TPU machine, or under
``../shared/tools/gvisor_like.py``). It prints About's layers and its files and processes rows, then one line per
attempt and path ("refused EPERM", "absent", or "DONE"), and exits 1 if any attempt was done or anything on disk
changed.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playground.ipc.limits import Limits  # noqa: E402
from playground.server import worker_pools  # noqa: E402
from playground.server.api import PlaygroundAPI, final  # noqa: E402
from playground.server.config import Settings  # noqa: E402
from playground.server.training.service import TrainingService  # noqa: E402
from tests.hostile import escapes  # noqa: E402

PATHS = {  # the job's path through the app: the API method and its arguments after the code
    "CPU": ("inspect", ("1.0",)),
    "device line": ("inspect", ("1.0", None, "", True)),
    "Compiler": ("passes", ("1.0",)),
}


def main() -> int:
    escaped = False
    with tempfile.TemporaryDirectory(prefix="sandbox-escapes-") as folder, ExitStack() as services:
        home, runs = Path(folder) / "home", Path(folder) / "runs"
        home.mkdir()
        runs.mkdir()
        settings = Settings(limits=Limits(timeout_s=120.0), result_cache=False,
                            compile_cache=str(Path(folder) / "compile-cache"),
                            accelerator=Settings.from_env(os.environ).accelerator)
        pools = worker_pools.start(settings, str(runs), started=lambda what: services.callback(what.close))
        training = TrainingService(pools.owner, settings.data, str(runs),
                                   worker_pools.training_slots(settings, pools.accelerator))
        services.callback(training.close)
        api = PlaygroundAPI.from_pools(pools, settings, training)
        sandbox = api.about()["sandbox"]
        print(f"device: {pools.device_why}")
        for name, layer in sandbox["layers"].items():
            print(f"layer {name}: {'in force' if layer['active'] else 'NOT in force'}: {layer['detail']}")
        for name in ("files", "processes", "disk"):
            print(f"About's {name} row: {sandbox['mechanisms'][name]['detail']}")
        places = {"the checkout": ROOT, "the compilation cache": Path(settings.compile_cache), "the home": home,
                  "the training runs": runs, "/tmp": Path("/tmp"), "/dev/shm": Path("/dev/shm")}
        for path_name, (method, args) in PATHS.items():
            aimed = escapes.Places(places, extra={"playground/__init__.py": ROOT / "playground" / "__init__.py"})
            try:
                code = escapes.attempts_code(aimed.aimed(), escapes.app_processes(os.getpid()), aimed.tag)
                reply = final(getattr(api, method)(code, *args))
                said = escapes.outcomes(reply["stdout"]) if "stdout" in reply else {}
                changed = aimed.changed()
            finally:
                aimed.remove()
            answer = "answered" if reply.get("ok") else f"error {reply['error']['kind']}"
            print(f"\n{path_name} ({method}): the job {answer}; changed on disk: {changed or 'nothing'}")
            if not said:
                print(f"  (no attempts printed: {str(reply.get('error'))[:300]})")
            for attempt, outcome in said.items():
                print(f"  {attempt}: {outcome}")
            escaped |= bool(changed) or escapes.ESCAPED in str(reply) or any(
                outcome == "DONE" and not attempt.startswith(escapes.LISTING_ONLY) for attempt, outcome in said.items())
    print("\nESCAPED" if escaped else "\nevery attempt refused; nothing changed on disk")
    return 1 if escaped else 0


if __name__ == "__main__":
    sys.exit(main())
