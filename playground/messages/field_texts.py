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
    "invalid.choice": {"en": "{field} must be one of {allowed}, got {value}.",
                       "de": "{field} muss eines von {allowed} sein, nicht {value}.",
                       "zh": "{field} 必须是 {allowed} 之一，收到的是 {value}。"},
    "invalid.above_zero": {"en": "{field} must be a number above 0 and at most {high}, got {value}.",
                           "de": "{field} muss eine Zahl über 0 und höchstens {high} sein, nicht {value}.",
                           "zh": "{field} 必须是大于 0 且不超过 {high} 的数，收到的是 {value}。"},
    "invalid.layers_text": {
        "en": "{field} must be whole numbers separated by commas, like \"784, 512, 256, 10\", got {value}.",
        "de": "{field} müssen ganze Zahlen sein, durch Kommas getrennt, etwa \"784, 512, 256, 10\", nicht {value}.",
        "zh": "{field} 必须是用逗号分隔的整数，例如 \"784, 512, 256, 10\"，收到的是 {value}。"},
    "invalid.layers_count": {
        "en": "{field} must list 2 to {most} sizes (input, hidden..., output), got {value}.",
        "de": "{field} müssen 2 bis {most} Größen nennen (Eingabe, verborgene..., Ausgabe), nicht {value}.",
        "zh": "{field} 必须列出 2 到 {most} 个大小（输入、隐藏层……、输出），收到的是 {value}。"},
    "invalid.layer_sizes": {"en": "every size in {field} must be a whole number from 1 to {high}, got {value}.",
                            "de": "jede Größe in {field} muss eine ganze Zahl von 1 bis {high} sein, nicht {value}.",
                            "zh": "{field} 中的每个大小都必须是 1 到 {high} 之间的整数，收到的是 {value}。"},
    "invalid.layers_first": {"en": "{field} must start with {pixels} (28 × 28 pixels), got {value}.",
                             "de": "{field} müssen mit {pixels} beginnen (28 × 28 Pixel), nicht mit {value}.",
                             "zh": "{field} 必须以 {pixels}（28 × 28 像素）开头，收到的是 {value}。"},
    "invalid.layers_last": {"en": "{field} must end with {classes} (one output per class), got {value}.",
                            "de": "{field} müssen mit {classes} enden (eine Ausgabe pro Klasse), nicht mit {value}.",
                            "zh": "{field} 必须以 {classes}（每个类别一个输出）结尾，收到的是 {value}。"},
    # vmap's in_axes and out_axes as typed (worker/jobs/vmap_axes.py).
    "axes.the_arguments": {"en": "the arguments", "de": "den Argumenten", "zh": "参数"},
    "axes.the_output": {"en": "the output of f", "de": "der Ausgabe von f", "zh": "f 的输出"},
    "axes.not_literal": {
        "en": "{field} must be a literal such as 0, None, (None, 0, 0) or {{'w': 0, 'b': None}}; {text} is not "
              "one.",
        "de": "{field} muss ein Literal sein, etwa 0, None, (None, 0, 0) oder {{'w': 0, 'b': None}}; {text} ist "
              "keines.",
        "zh": "{field} 必须是字面量，例如 0、None、(None, 0, 0) 或 {{'w': 0, 'b': None}}；{text} 不是。"},
    "axes.not_axes": {"en": "{field} may hold only ints, None, tuples/lists and dicts with string keys; {value} is "
                            "none of these.",
                      "de": "{field} darf nur ints, None, Tupel/Listen und dicts mit String-Schlüsseln enthalten; "
                            "{value} ist nichts davon.",
                      "zh": "{field} 只能包含 int、None、元组/列表和键为字符串的 dict；{value} 都不是。"},
    "axes.too_deep": {"en": "{field} is nested too deeply.", "de": "{field} ist zu tief verschachtelt.",
                      "zh": "{field} 嵌套太深。"},
    "axes.top_dict": {"en": "At the top level {field} is an int or a tuple with one entry per argument; for one dict "
                            "argument write {fixed}.",
                      "de": "Auf oberster Ebene ist {field} ein int oder ein Tupel mit einem Eintrag pro Argument; für "
                            "ein dict-Argument schreib {fixed}.",
                      "zh": "在顶层，{field} 是一个 int，或每个参数一项的元组；对于一个 dict 参数，请写 {fixed}。"},
    "axes.count": {"en": "{field} has {entries} entries, but there are {arguments} arguments: give one entry per "
                         "argument.",
                   "de": "{field} hat {entries} Einträge, aber es gibt {arguments} Argumente: Gib einen Eintrag pro "
                         "Argument an.",
                   "zh": "{field} 有 {entries} 项，但参数有 {arguments} 个：请为每个参数给出一项。"},
    "axes.nothing": {"en": "{field} maps nothing: at least one argument needs an axis, not None.",
                     "de": "{field} bildet nichts ab: Mindestens ein Argument braucht eine Achse statt None.",
                     "zh": "{field} 没有映射任何东西：至少有一个参数需要一个轴，而不是 None。"},
    "axes.out_of_range": {"en": "{field} asks for axis {axis} of a value of shape {shape}: batched, it has {axes} "
                                "axes.",
                          "de": "{field} verlangt Achse {axis} eines Werts der Shape {shape}: gebatcht hat er {axes} "
                                "Achsen.",
                          "zh": "{field} 要求 shape 为 {shape} 的值的第 {axis} 轴：批处理后它有 {axes} 个轴。"},
    "axes.structure": {"en": "{field} {axes} does not match the structure of {what}: {detail}",
                       "de": "{field} {axes} passt nicht zur Struktur von {what}: {detail}",
                       "zh": "{field} {axes} 与 {what} 的结构不匹配：{detail}"},
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
