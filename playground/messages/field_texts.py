"""What the server says of an argument that fails its check (playground/validation.py), naming the field.

``{field}`` is ``field.argument`` (the API's name, in code) for API callers; a tab's page writes it again as
``field.label``, the field's own label in the reader's language (server/ui/error_views.py). Values stay as
Python writes them. German uses "du".
"""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "field.argument": {"en": "`{name}`", "de": "`{name}`", "zh": "`{name}`"},
    "field.label": {"en": "“{label}”", "de": "„{label}“", "zh": "“{label}”"},
    "invalid.not_text": {"en": "{field} must be text, got {type}.", "de": "{field} muss Text sein, nicht {type}.",
                         "zh": "{field} 必须是文本，收到的是 {type}。"},
    "invalid.too_long": {"en": "{field} is {length} characters long; the limit is {limit}.",
                         "de": "{field} ist {length} Zeichen lang; die Grenze liegt bei {limit}.",
                         "zh": "{field} 长 {length} 个字符；上限是 {limit}。"},
    "invalid.no_code": {"en": "There is no code: define a function, e.g. `def f(x): return x * 2`.",
                        "de": "Es gibt keinen Code: Definiere eine Funktion, z. B. `def f(x): return x * 2`.",
                        "zh": "没有代码：请定义一个函数，例如 `def f(x): return x * 2`。"},
    "invalid.whole_number": {"en": "{field} must be a whole number from {low} to {high}, got {value}.",
                             "de": "{field} muss eine ganze Zahl von {low} bis {high} sein, nicht {value}.",
                             "zh": "{field} 必须是 {low} 到 {high} 之间的整数，收到的是 {value}。"},
    "invalid.finite_number": {"en": "{field} must be a finite number, got {value}.",
                              "de": "{field} muss eine endliche Zahl sein, nicht {value}.",
                              "zh": "{field} 必须是有限的数，收到的是 {value}。"},
    "invalid.empty_number": {"en": "{field} is empty: enter a number.", "de": "{field} ist leer: Gib eine Zahl ein.",
                             "zh": "{field} 是空的：请输入一个数。"},
    "invalid.whole_numbers": {
        "en": "{field} must be a list of 1 to {most} whole numbers, each from {low} to {high}, got {value}.",
        "de": "{field} muss eine Liste von 1 bis {most} ganzen Zahlen sein, jede von {low} bis {high}, nicht {value}.",
        "zh": "{field} 必须是 1 到 {most} 个整数的列表，每个在 {low} 到 {high} 之间，收到的是 {value}。"},
    "invalid.names": {"en": "{field} must be a list of 1 to {most} distinct names like \"data\", got {value}.",
                      "de": "{field} muss eine Liste von 1 bis {most} verschiedenen Namen wie \"data\" sein, nicht "
                            "{value}.",
                      "zh": "{field} 必须是 1 到 {most} 个互不相同的名字（如 \"data\"）的列表，收到的是 {value}。"},
    "invalid.flag": {"en": "{field} must be true or false, got {value}.",
                     "de": "{field} muss true oder false sein, nicht {value}.",
                     "zh": "{field} 必须是 true 或 false，收到的是 {value}。"},
    "invalid.below": {"en": "{low} ({low_value}) must be below {high} ({high_value}).",
                      "de": "{low} ({low_value}) muss kleiner sein als {high} ({high_value}).",
                      "zh": "{low}（{low_value}）必须小于 {high}（{high_value}）。"},
    "invalid.not_whole_numbers": {"en": "{field} must be whole numbers separated by commas, got {value}.",
                                  "de": "{field} müssen ganze Zahlen sein, durch Kommas getrennt, nicht {value}.",
                                  "zh": "{field} 必须是用逗号分隔的整数，收到的是 {value}。"},
    "invalid.no_whole_numbers": {"en": "{field} is empty: give at least one whole number, such as 1, 10, 100.",
                                 "de": "{field} ist leer: Gib mindestens eine ganze Zahl an, z. B. 1, 10, 100.",
                                 "zh": "{field} 是空的：请至少给出一个整数，例如 1, 10, 100。"},
    # The Parallel tab's fields (server/ui/parallel_fields.py).
    "invalid.empty_field": {"en": "{field} is empty: {hint}", "de": "{field} ist leer: {hint}",
                            "zh": "{field} 是空的：{hint}"},
    "hint.code": {"en": "define a function, such as def f(x, w): return x @ w.",
                  "de": "Definiere eine Funktion, z. B. def f(x, w): return x @ w.",
                  "zh": "请定义一个函数，例如 def f(x, w): return x @ w。"},
    "hint.args": {"en": "give the function's arguments, such as (jnp.ones((8, 4)), jnp.ones((4, 4))).",
                  "de": "Gib die Argumente der Funktion an, z. B. (jnp.ones((8, 4)), jnp.ones((4, 4))).",
                  "zh": "请给出函数的参数，例如 (jnp.ones((8, 4)), jnp.ones((4, 4)))。"},
    "hint.in_specs": {"en": "give one PartitionSpec per argument, such as (P('data', None), P(None, 'model')).",
                      "de": "Gib eine PartitionSpec pro Argument an, z. B. (P('data', None), P(None, 'model')).",
                      "zh": "请为每个参数给出一个 PartitionSpec，例如 (P('data', None), P(None, 'model'))。"},
    "hint.out_specs": {"en": "give the output's PartitionSpec, such as P('data', None).",
                       "de": "Gib die PartitionSpec der Ausgabe an, z. B. P('data', None).",
                       "zh": "请给出输出的 PartitionSpec，例如 P('data', None)。"},
    "hint.mesh_shape": {"en": "give one size per mesh axis, such as 2, 4.",
                        "de": "Gib eine Größe pro Mesh-Achse an, z. B. 2, 4.",
                        "zh": "请为每个 mesh 轴给出一个大小，例如 2, 4。"},
    "hint.axis_names": {"en": "give one name per mesh axis, such as data, model.",
                        "de": "Gib einen Namen pro Mesh-Achse an, z. B. data, model.",
                        "zh": "请为每个 mesh 轴给出一个名字，例如 data, model。"},
    "invalid.mesh_size": {"en": "{field} must be whole numbers separated by commas, such as 2, 4; {part} is not one.",
                          "de": "{field} muss aus ganzen Zahlen bestehen, durch Kommas getrennt, z. B. 2, 4; {part} "
                                "ist keine.",
                          "zh": "{field} 必须是用逗号分隔的整数，例如 2, 4；{part} 不是整数。"},
    "invalid.mesh_too_small": {"en": "{field}: each size must be at least 1; {part} is not.",
                               "de": "{field}: Jede Größe muss mindestens 1 sein; {part} ist es nicht.",
                               "zh": "{field}：每个大小至少为 1；{part} 不是。"},
    "invalid.axis_name": {"en": "{field} must be names like data or model, separated by commas; {name} is not one.",
                          "de": "{field} müssen Namen wie data oder model sein, durch Kommas getrennt; {name} ist "
                                "keiner.",
                          "zh": "{field} 必须是用逗号分隔的名字，如 data 或 model；{name} 不是。"},
    "invalid.mesh_mismatch": {"en": "{mesh} has {sizes} size(s) but {axes} has {names} name(s): give one name per "
                                    "mesh axis.",
                              "de": "{mesh} hat {sizes} Größe(n), aber {axes} hat {names} Name(n): Gib einen Namen "
                                    "pro Mesh-Achse an.",
                              "zh": "{mesh} 有 {sizes} 个大小，而 {axes} 有 {names} 个名字："
                                    "每个 mesh 轴需要一个名字。"},
    # The gradient's point (worker/jobs/hessians.py).
    "invalid.point_empty": {"en": "{field} is empty: give the point as a 1-D array, e.g. jnp.array([1.0, 2.0]).",
                            "de": "{field} ist leer: Gib den Punkt als 1-D-Array an, z. B. jnp.array([1.0, 2.0]).",
                            "zh": "{field} 是空的：请把点写成一维数组，例如 jnp.array([1.0, 2.0])。"},
    "invalid.point_not_real": {"en": "{field} must be an array of real numbers, got {type}.",
                               "de": "{field} muss ein Array reeller Zahlen sein, nicht {type}.",
                               "zh": "{field} 必须是实数数组，收到的是 {type}。"},
    "invalid.point_shape": {"en": "{field} must be a 1-D array of 1 to {most} numbers, got shape {shape}.",
                            "de": "{field} muss ein 1-D-Array mit 1 bis {most} Zahlen sein, nicht eines der Shape "
                                  "{shape}.",
                            "zh": "{field} 必须是含 1 到 {most} 个数的一维数组，收到的形状是 {shape}。"},
}
