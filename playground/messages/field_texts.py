"""What the server says of an argument that fails its check (playground/validation.py), naming the field.

``{field}`` is ``field.argument`` (the API's name, in code) for API callers; a tab's page writes it again as
``field.label``, the field's own label in the reader's language (server/ui/error_views.py). Values stay as
Python writes them. German uses "du".
"""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "field.argument": {"en": "`{name}`"},
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
}
