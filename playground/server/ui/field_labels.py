"""Each job's arguments as its tab's form labels them: an error about an argument names the field the reader sees.

A job's argument checks (playground/validation.py) name the argument as the API
does (```x_min```); error_views.error_markdown, given a job's labels here, names
it by the field's label in the reader's language instead ("x from", "x von").
An argument whose field is labelled with its API name (``static_argnums``,
``in_axes``, ``out_specs``) is not here: it is named as it is.
"""

from __future__ import annotations

_CODE_AND_ARGS = {"code": "pg.field.function", "args": "pg.field.arguments"}

LABELS: dict[str, dict[str, str]] = {  # job kind -> argument -> the catalogue key of its field's label
    "inspect": {**_CODE_AND_ARGS, "second_args": "pg.inspect.second", "on_accelerator": "pg.field.on_accelerator"},
    "passes": {**_CODE_AND_ARGS, "on_accelerator": "pg.field.on_accelerator"},
    "graph": {**_CODE_AND_ARGS, "on_accelerator": "pg.field.on_accelerator"},
    "compare": {**_CODE_AND_ARGS, "on_accelerator": "pg.field.on_accelerator", "setting": "pg.compiler.setting",
                "second_code": "pg.compiler.second"},
    "derivatives": {"code": "pg.derivatives.scalar_f", "order": "pg.derivatives.order", "x_min": "pg.derivatives.x_min",
                    "x_max": "pg.derivatives.x_max", "points": "pg.derivatives.points"},
    "gradient": {"code": "pg.derivatives.vector_f", "point": "pg.derivatives.point"},
    "vmap": {"code": "pg.vmap.function", "args": "pg.vmap.args", "batch_sizes": "pg.vmap.sizes"},
    "jit_speed": {"code": "pg.jit.function", "sizes": "pg.jit.sizes", "repeats": "pg.jit.repeats"},
    "speed_of_light": {**_CODE_AND_ARGS, "gradient": "pg.speed.gradient"},
    "shard": {"code": "pg.parallel.function", "args": "pg.parallel.args", "mesh_shape": "pg.parallel.mesh",
              "axis_names": "pg.parallel.axes", "in_specs": "pg.parallel.in_specs"},
}

# The Train form's settings (mnist/config.TrainConfig's fields, which /train and /race take) by their labels' keys.
TRAIN_LABELS = {name: f"pg.train.{name}" for name in ("dataset", "layers", "optimizer", "learning_rate", "batch_size",
                                                     "epochs", "seed", "data_parallel")}
