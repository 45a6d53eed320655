"""The Derivatives tab's warnings: points left out of a check, where f is not smooth, why jit could not trace f
(playground/derivative_notes.py writes them).

German uses "du"; x values and sizes stay as Python writes them.
"""

from __future__ import annotations

_WHY_EN = ("the function is not smooth there (a jump or a kink). Autodiff gives the derivative of the piece x lies on; "
           "a difference across the break measures the break, not a derivative.")
_WHY_DE = ("Die Funktion ist dort nicht glatt (ein Sprung oder ein Knick). Autodiff liefert die Ableitung des Stücks, "
           "auf dem x liegt; eine Differenz über die Bruchstelle hinweg misst die Bruchstelle, keine Ableitung.")
_WHY_ZH = ("函数在那里不光滑（有跳跃或折点）。自动微分给出的是 x 所在那一段的导数；"
           "跨过断点的差分量出的是断点，而不是导数。")

TEXTS: dict[str, dict[str, str]] = {
    "deriv.left_out": {"en": "Grid points left out of max_error, where a value is not finite: {groups}.",
                       "de": "Gitterpunkte, die beim max. Fehler außen vor bleiben, weil ein Wert dort nicht endlich "
                             "ist: {groups}.",
                       "zh": "未计入最大误差的网格点（那里有值不是有限值）：{groups}。"},
    "deriv.left_out_one": {"en": "order {orders}, {points} of {grid} (the reference is not finite at {reference}, "
                                 "the derivative at {derivative})",
                           "de": "Ordnung {orders}, {points} von {grid} (die Referenz ist an {reference} nicht "
                                 "endlich, die Ableitung an {derivative})",
                           "zh": "第 {orders} 阶，{grid} 个中的 {points} 个（参照值在 {reference} 个点上不是有限值，"
                                 "导数在 {derivative} 个点上不是）"},
    "deriv.left_out_many": {"en": "orders {orders}, {points} of {grid} each (the reference is not finite at "
                                  "{reference}, the derivative at {derivative})",
                            "de": "Ordnungen {orders}, je {points} von {grid} (die Referenz ist an {reference} nicht "
                                  "endlich, die Ableitung an {derivative})",
                            "zh": "第 {orders} 阶，各为 {grid} 个中的 {points} 个（参照值在 {reference} 个点上不是"
                                  "有限值，导数在 {derivative} 个点上不是）"},
    "deriv.check_off_one": {
        "en": "Order {orders}: the finite-difference check is off by {off} at x = {where}, far beyond rounding: "
              + _WHY_EN,
        "de": "Ordnung {orders}: Die Prüfung mit finiten Differenzen weicht bei x = {where} um {off} ab, weit mehr als "
              "Rundung erklärt. " + _WHY_DE,
        "zh": "第 {orders} 阶：有限差分检查在 x = {where} 处相差 {off}，远超舍入误差：" + _WHY_ZH},
    "deriv.check_off_many": {
        "en": "Orders {orders}: the finite-difference checks are off by up to {off} at x = {where}, far beyond "
              "rounding: " + _WHY_EN,
        "de": "Ordnungen {orders}: Die Prüfungen mit finiten Differenzen weichen bei x = {where} um bis zu {off} ab, "
              "weit mehr als Rundung erklärt. " + _WHY_DE,
        "zh": "第 {orders} 阶：有限差分检查在 x = {where} 处相差最多 {off}，远超舍入误差：" + _WHY_ZH},
    "deriv.jumps": {
        "en": "{function} jumps at {where}: there it changes between neighbouring points far more than its slope on "
              "both sides explains, however close the points. Its derivatives there are the slopes of the pieces; the "
              "jump itself has none, and the checks above look only at the grid points and h ≈ 6e-6 around them, so "
              "they miss a jump between two grid points.",
        "de": "{function} springt bei {where}: Dort ändert sich die Funktion zwischen benachbarten Punkten weit mehr, "
              "als ihre Steigung auf beiden Seiten erklärt, wie nah die Punkte auch liegen. Ihre Ableitungen dort sind "
              "die Steigungen der Stücke; der Sprung selbst hat keine, und die Prüfungen oben schauen nur auf die "
              "Gitterpunkte und h ≈ 6e-6 um sie herum, sie übersehen also einen Sprung zwischen zwei Gitterpunkten.",
        "zh": "{function} 在 {where} 处跳跃：在那里，无论相邻的点靠得多近，"
              "函数在它们之间的变化都远超两侧斜率所能解释的。"
              "那里的导数是各段的斜率；跳跃本身没有导数，而上面的检查只看网格点及其周围 h ≈ 6e-6 的范围，"
              "所以会漏掉两个网格点之间的跳跃。"},
    "deriv.jump_at": {"en": "x = {x} (by {size})", "de": "x = {x} (um {size})", "zh": "x = {x}（跳变 {size}）"},
    "deriv.point_off": {"en": "x = {x} (only f({x}) itself, off by {size})",
                        "de": "x = {x} (nur f({x}) selbst, um {size} daneben)",
                        "zh": "x = {x}（只有 f({x}) 本身偏离了 {size}）"},
    "deriv.jump_between": {"en": "x between {low} and {high} (perhaps only a steep stretch: no time was left to "
                                 "tell)",
                           "de": "x zwischen {low} und {high} (vielleicht nur ein steiler Abschnitt: es blieb keine "
                                 "Zeit, das zu unterscheiden)",
                           "zh": "x = {low} 与 {high} 之间（也可能只是陡峭的一段：没有剩余时间分辨）"},
    "deriv.jumps_more": {"en": "{count} more", "de": "{count} weiteren Stellen", "zh": "另外 {count} 处"},
    "deriv.headline_jumps": {"en": "{function} jumps at x = {where}: the warnings under the checks say more.",
                             "de": "{function} springt bei x = {where}: Die Warnungen unter den Prüfungen sagen mehr.",
                             "zh": "{function} 在 x = {where} 处跳跃：检查表下方的警告有详细说明。"},
    "deriv.headline_unsmooth": {"en": "{function} is not smooth at x = {where}: the warnings under the checks say "
                                      "more.",
                                "de": "{function} ist bei x = {where} nicht glatt: Die Warnungen unter den Prüfungen "
                                      "sagen mehr.",
                                "zh": "{function} 在 x = {where} 处不光滑：检查表下方的警告有详细说明。"},
    "deriv.untraced": {
        "en": "{traced_by} could not trace {function}: {where} needs {value} ({exception}), and {traced_by} traces "
              "with stand-ins that have a shape and a dtype but no value; {instead}.",
        "de": "{traced_by} konnte {function} nicht tracen: {where} braucht {value} ({exception}), und {traced_by} "
              "arbeitet beim Tracing mit Platzhaltern, die eine Shape und einen dtype haben, aber keinen Wert; "
              "{instead}.",
        "zh": "{traced_by} 无法追踪 {function}：{where}需要{value}（{exception}），而 {traced_by} 追踪时用的占位值只有"
              "形状和 dtype，没有值；{instead}。"},
    "deriv.untraced_line": {"en": "line {line} (`{code}`)", "de": "Zeile {line} (`{code}`)",
                            "zh": "第 {line} 行（`{code}`）"},
    "deriv.untraced_some_line": {"en": "one of its lines", "de": "eine seiner Zeilen", "zh": "它的某一行"},
    "deriv.untraced_value": {"en": "the value of {parameter}", "de": "den Wert von {parameter}",
                             "zh": " {parameter} 的值"},
    "deriv.untraced_input": {"en": "its input's value", "de": "den Wert seiner Eingabe", "zh": "其输入的值"},
    "deriv.untraced_instead_derivatives": {
        "en": "`grad` alone runs {function} on real numbers, so each grid point is differentiated on its own, "
              "without jit",
        "de": "`grad` allein führt {function} mit echten Zahlen aus, darum wird jeder Gitterpunkt einzeln "
              "abgeleitet, ohne jit",
        "zh": "单独的 `grad` 会用真实的数运行 {function}，所以每个网格点都单独求导，不用 jit"},
    "deriv.untraced_instead_gradient": {
        "en": "`grad`, `jacrev` and `jacfwd` alone run {function} on real numbers, so they are evaluated at the "
              "point without jit",
        "de": "`grad`, `jacrev` und `jacfwd` allein führen {function} mit echten Zahlen aus, darum werden sie am "
              "Punkt ohne jit ausgewertet",
        "zh": "单独的 `grad`、`jacrev` 和 `jacfwd` 会用真实的数运行 {function}，所以它们在该点上不用 jit 求值"},
}
