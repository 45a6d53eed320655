"""The other tabs' status lines and result texts (vmap, Derivatives, Compiler, Parallel) and the queue lines.

JAX terms (jit, vmap, grad, jaxpr, HLO, sharding, mesh, ...) and code stay as they are; German uses "du".
"""

from __future__ import annotations

_SHARED_DE = "Ein identischer Job (jemand anderes hat mit derselben Eingabe auf Ausführen gedrückt)"
_SHARED_ZH = "一个相同的作业（别人用同样的输入点了运行）"

TEXTS: dict[str, dict[str, str]] = {
    # Lists: "1, 10 and 100".
    "list.comma": {"en": ", ", "de": ", ", "zh": "、"},
    "list.and": {"en": "{rest} and {last}", "de": "{rest} und {last}", "zh": "{rest} 和 {last}"},
    # The queue and progress lines of every tab (server/ui/progress.py).
    "progress.running": {"en": "Your job is running in a fresh sandboxed worker.",
                         "de": "Dein Job läuft in einem frischen Sandbox-Worker.",
                         "zh": "你的作业正在一个全新的沙箱工作进程中运行。"},
    "progress.running_shared": {
        "en": "An identical job (someone else pressed Run on the same input) is running in a fresh sandboxed worker. "
              "Its result will be yours too.",
        "de": f"{_SHARED_DE} läuft in einem frischen Sandbox-Worker. Sein Ergebnis ist auch deins.",
        "zh": f"{_SHARED_ZH}正在一个全新的沙箱工作进程中运行。它的结果也会是你的结果。"},
    "progress.waiting": {"en": "Waiting for a sandbox worker: **number {position} in line**, {estimate} ({busy}).",
                         "de": "Warte auf einen Sandbox-Worker: **Platz {position} in der Schlange**, {estimate} "
                               "({busy}).",
                         "zh": "正在等待沙箱工作进程：**排在第 {position} 位**，{estimate}（{busy}）。"},
    "progress.waiting_shared": {
        "en": "An identical job (someone else pressed Run on the same input) is waiting for a worker: "
              "**number {position} in line**, {estimate} ({busy}). Its result will be yours too.",
        "de": f"{_SHARED_DE} wartet auf einen Worker: **Platz {{position}} in der Schlange**, {{estimate}} "
              "({busy}). Sein Ergebnis ist auch deins.",
        "zh": f"{_SHARED_ZH}正在等待工作进程：**排在第 {{position}} 位**，{{estimate}}（{{busy}}）。"
              "它的结果也会是你的结果。"},
    "progress.estimate": {"en": "about **{wait} s**", "de": "etwa **{wait} s**", "zh": "大约 **{wait} 秒**"},
    "progress.no_estimate": {"en": "no estimate yet (no job has finished since the server started)",
                             "de": "noch keine Schätzung (seit dem Start des Servers ist noch kein Job fertig "
                                   "geworden)",
                             "zh": "暂无估计（服务器启动以来还没有作业完成）"},
    "progress.busy_one": {"en": "{running} of {workers} worker busy", "de": "{running} von {workers} Worker belegt",
                          "zh": "{workers} 个工作进程中 {running} 个忙碌"},
    "progress.busy_many": {"en": "{running} of {workers} workers busy",
                           "de": "{running} von {workers} Workern belegt",
                           "zh": "{workers} 个工作进程中 {running} 个忙碌"},
    "progress.shared_result": {
        "en": "An identical job was already running when you pressed Run: these are its results, measured at {at}.",
        "de": "Ein identischer Job lief schon, als du auf Ausführen gedrückt hast: Das sind seine Ergebnisse, "
              "gemessen um {at}.",
        "zh": "你点运行时，一个相同的作业已经在运行：这些是它的结果，测量于 {at}。"},
    "progress.cached": {
        "en": "Served from the cache: an identical job ran at {at} ({age}); these are its results and timings, "
              "measured then.",
        "de": "Aus dem Cache: Ein identischer Job lief um {at} ({age}); das sind seine Ergebnisse und Zeiten, "
              "damals gemessen.",
        "zh": "来自缓存：一个相同的作业在 {at} 运行过（{age}）；这些是它当时测得的结果和耗时。"},
    "progress.age_s": {"en": "{n} s ago", "de": "vor {n} s", "zh": "{n} 秒前"},
    "progress.age_min": {"en": "{n} min ago", "de": "vor {n} min", "zh": "{n} 分钟前"},
    "progress.age_h": {"en": "{n} h ago", "de": "vor {n} h", "zh": "{n} 小时前"},
    # What a job does, said from the click on (progress.follow's ``working``).
    "work.inspect": {"en": "Tracing your function, lowering it to StableHLO and compiling it, then checking it…",
                     "de": "Trace deine Funktion, übersetze sie nach StableHLO und kompiliere sie, dann prüfe sie…",
                     "zh": "正在追踪你的函数，降级为 StableHLO 并编译，然后检查它…"},
    "work.passes": {"en": "Compiling your function and keeping the module after each of XLA's passes…",
                    "de": "Kompiliere deine Funktion und halte das Modul nach jedem Pass von XLA fest…",
                    "zh": "正在编译你的函数，并保存 XLA 每个 pass 之后的模块…"},
    "work.graph": {"en": "Compiling your function and drawing its graphs…",
                   "de": "Kompiliere deine Funktion und zeichne ihre Graphen…", "zh": "正在编译你的函数并绘制它的图…"},
    "work.compare": {"en": "Compiling both versions and comparing their programs…",
                     "de": "Kompiliere beide Versionen und vergleiche ihre Programme…",
                     "zh": "正在编译两个版本并比较它们的程序…"},
    "work.shard": {"en": "Running your function sharded over the device mesh and unsharded, and comparing the two…",
                   "de": "Führe deine Funktion über das Geräte-Gitter verteilt und unverteilt aus und vergleiche "
                         "beide…",
                   "zh": "正在把你的函数分片到设备网格上运行，也不分片运行一次，并比较两者…"},
    "work.demos": {"en": "Running the demos on the devices…", "de": "Führe die Demos auf den Geräten aus…",
                   "zh": "正在设备上运行演示…"},
    # The Inspect tab's panes: the stages, XLA's cost and memory, the pytrees, what was cut to fit the page.
    "inspect.stages": {"en": "Stages", "de": "Stufen", "zh": "阶段"},
    "inspect.stages_head": {"en": "| stage | time |", "de": "| Stufe | Zeit |", "zh": "| 阶段 | 时间 |"},
    "inspect.stage.trace_s": {"en": "trace (Python -> jaxpr)", "de": "Tracing (Python -> jaxpr)",
                              "zh": "追踪（Python -> jaxpr）"},
    "inspect.stage.lower_s": {"en": "lower (jaxpr -> StableHLO)", "de": "Übersetzen (jaxpr -> StableHLO)",
                              "zh": "降级（jaxpr -> StableHLO）"},
    "inspect.stage.compile_s": {"en": "compile (StableHLO -> optimised HLO)",
                                "de": "Kompilieren (StableHLO -> optimiertes HLO)",
                                "zh": "编译（StableHLO -> 优化后的 HLO）"},
    "inspect.stage.run_s": {"en": "run", "de": "Ausführen", "zh": "运行"},
    "inspect.cost": {"en": "Cost (XLA's estimate)", "de": "Kosten (Schätzung von XLA)", "zh": "开销（XLA 的估计）"},
    "inspect.cost_head": {"en": "| quantity | value |", "de": "| Größe | Wert |", "zh": "| 量 | 值 |"},
    "inspect.cost.flops": {"en": "flops", "de": "FLOPs", "zh": "浮点运算数（flops）"},
    "inspect.cost.bytes_accessed": {"en": "bytes accessed", "de": "gelesene und geschriebene Bytes",
                                    "zh": "读写的字节数"},
    "inspect.cost.transcendentals": {"en": "transcendentals", "de": "transzendente Funktionen",
                                     "zh": "超越函数运算数"},
    "inspect.not_reported": {"en": "not reported: {reason}", "de": "nicht angegeben: {reason}",
                             "zh": "未报告：{reason}"},
    "inspect.memory": {"en": "Memory (XLA's plan)", "de": "Speicher (Plan von XLA)", "zh": "内存（XLA 的计划）"},
    "inspect.memory_head": {"en": "| buffer | size |", "de": "| Puffer | Größe |", "zh": "| 缓冲区 | 大小 |"},
    "inspect.memory.argument_bytes": {"en": "arguments", "de": "Argumente", "zh": "参数"},
    "inspect.memory.output_bytes": {"en": "outputs", "de": "Ausgaben", "zh": "输出"},
    "inspect.memory.temp_bytes": {"en": "temporaries", "de": "Zwischenwerte", "zh": "临时缓冲区"},
    "inspect.memory.generated_code_bytes": {"en": "generated code", "de": "erzeugter Code", "zh": "生成的代码"},
    "inspect.more_characters": {"en": "… [{n} more characters: download the whole text below]",
                                "de": "… [{n} weitere Zeichen: Lade unten den ganzen Text herunter]",
                                "zh": "… [还有 {n} 个字符：请在下方下载完整文本]"},
    "inspect.your_code": {"en": "Your code", "de": "Dein Code", "zh": "你的代码"},
    "inspect.from_line": {"en": "from line {line}", "de": "aus Zeile {line}", "zh": "来自第 {line} 行"},
    "inspect.inputs": {"en": "Inputs", "de": "Eingaben", "zh": "输入"},
    "inspect.outputs": {"en": "Outputs", "de": "Ausgaben", "zh": "输出"},
    "inspect.leaves_head": {"en": "| key path | shape | dtype |", "de": "| Schlüsselpfad | Shape | dtype |",
                            "zh": "| 键路径 | shape | dtype |"},
    "inspect.root": {"en": "(root)", "de": "(Wurzel)", "zh": "（根）"},
    "inspect.static_argument": {"en": "Static argument {position}: {value} (part of the cache key, not traced)",
                                "de": "Statisches Argument {position}: {value} (Teil des Cache-Schlüssels, nicht "
                                      "getract)",
                                "zh": "静态参数 {position}：{value}（属于缓存键的一部分，不被追踪）"},
    "inspect.key_data": {"en": "Key data (jax.random.key_data)", "de": "Key-Daten (jax.random.key_data)",
                         "zh": "密钥数据（jax.random.key_data）"},
    "inspect.own_jit": {"en": "Your code jits {function} itself{declared}: that jitted function is what you see, "
                              "not wrapped in a second jit.",
                        "de": "Dein Code jittet {function} selbst{declared}: Du siehst diese gejittete Funktion, nicht "
                              "in ein zweites jit gehüllt.",
                        "zh": "你的代码自己对 {function} 做了 jit{declared}：你看到的就是这个 jit 过的函数，"
                              "没有再包一层 jit。"},
    "inspect.own_jit_static": {"en": " with static_argnums={argnums}", "de": " mit static_argnums={argnums}",
                               "zh": "（static_argnums={argnums}）"},
    "inspect.on_line": {"en": "line {line}: ", "de": "Zeile {line}: ", "zh": "第 {line} 行："},
    "inspect.more_lines": {"en": "… {n} more lines", "de": "… {n} weitere Zeilen", "zh": "… 还有 {n} 行"},
    # The jit tab.
    "jit.running": {"en": "Compiling your function for each size, checking NumPy, eager JAX and jit against each "
                          "other, then timing each (at least {repeats} runs) at n = {sizes}…",
                    "de": "Kompiliere deine Funktion für jede Größe, prüfe NumPy, eager JAX und jit gegeneinander "
                          "und messe dann jede (mindestens {repeats} Läufe) bei n = {sizes}…",
                    "zh": "正在为每个尺寸编译你的函数，相互核对 NumPy、eager JAX 和 jit，然后分别计时（每个至少 "
                          "{repeats} 次）：n = {sizes}…"},
    "jit.measuring": {"en": "Measured n = {done} of {all}; now measuring n = {next}…",
                      "de": "n = {done} von {all} gemessen; jetzt wird n = {next} gemessen…",
                      "zh": "已测量 n = {done}（共 {all}）；正在测量 n = {next}…"},
    # The timing tabs' tables (jit, vmap): a way's speed-up over the baseline, the column's head.
    "timing.versus": {"en": "{way} vs {baseline}", "de": "{way} gegen {baseline}", "zh": "{way} 相对 {baseline}"},
    # The vmap tab.
    "vmap.table_size": {"en": "batch size", "de": "Batch-Größe", "zh": "批大小"},
    "vmap.running": {"en": "Checking a Python loop, vmap and jit(vmap) against each other, then timing them…",
                     "de": "Prüfe eine Python-Schleife, vmap und jit(vmap) gegeneinander und messe dann ihre Zeiten…",
                     "zh": "正在相互核对 Python 循环、vmap 和 jit(vmap)，然后计时…"},
    "vmap.measuring": {"en": "Measured batch sizes {done} of {all}; now measuring {next}…",
                       "de": "Batch-Größen {done} von {all} gemessen; jetzt wird {next} gemessen…",
                       "zh": "已测量批大小 {done}（共 {all}）；正在测量 {next}…"},
    "vmap.disagree": {"en": "The three ways disagree{at} ({by}), so no time is shown: a function batched with vmap "
                            "must compute each example independently.",
                      "de": "Die drei Wege stimmen nicht überein{at} ({by}), deshalb wird keine Zeit gezeigt: Eine "
                            "mit vmap gebatchte Funktion muss jedes Beispiel unabhängig berechnen.",
                      "zh": "三种方式的结果不一致{at}（{by}），所以不显示时间："
                            "用 vmap 批处理的函数必须独立地计算每个样本。"},
    "vmap.disagree_at": {"en": " at batch size {size}", "de": " bei Batch-Größe {size}", "zh": "（批大小 {size}）"},
    "vmap.by_difference": {"en": "largest difference {difference}", "de": "größte Abweichung {difference}",
                           "zh": "最大差值 {difference}"},
    "vmap.by_not_finite": {"en": "by values that are not finite", "de": "um Werte, die nicht endlich sind",
                           "zh": "差值不是有限数"},
    "vmap.measured_on": {"en": "Measured on **{device}**.", "de": "Gemessen auf **{device}**.",
                         "zh": "在 **{device}** 上测量。"},
    "vmap.agree_one": {"en": "Python loop, vmap and jit(vmap) agree for {name} on every example at batch size {sizes}.",
                       "de": "Python-Schleife, vmap und jit(vmap) stimmen für {name} bei jedem Beispiel überein, bei "
                             "Batch-Größe {sizes}.",
                       "zh": "在批大小 {sizes} 下，Python 循环、vmap 和 jit(vmap) 对 {name} 的每个样本结果都一致。"},
    "vmap.agree_many": {"en": "Python loop, vmap and jit(vmap) agree for {name} on every example at batch sizes "
                              "{sizes}.",
                        "de": "Python-Schleife, vmap und jit(vmap) stimmen für {name} bei jedem Beispiel überein, bei "
                              "den Batch-Größen {sizes}.",
                        "zh": "在批大小 {sizes} 下，Python 循环、vmap 和 jit(vmap) 对 {name} 的每个样本结果都一致。"},
    "vmap.agree_finished": {"en": "Python loop, vmap and jit(vmap) agree for {name} on every example the loop "
                                  "finished.",
                            "de": "Python-Schleife, vmap und jit(vmap) stimmen für {name} bei jedem Beispiel überein, "
                                  "das die Schleife geschafft hat.",
                            "zh": "对于循环完成的每个样本，Python 循环、vmap 和 jit(vmap) 对 {name} 的结果都一致。"},
    "vmap.cut_one": {"en": "At batch size {size} the Python loop stopped at its time limit after {done} example: "
                           "those were compared and agree, the other {rest} were not compared.",
                     "de": "Bei Batch-Größe {size} hat die Python-Schleife nach {done} Beispiel an ihrem Zeitlimit "
                           "aufgehört: Es wurde verglichen und stimmt überein, die anderen {rest} wurden nicht "
                           "verglichen.",
                     "zh": "在批大小 {size} 下，Python 循环在完成 {done} 个样本后到达时间上限而停止："
                           "这些样本已比较且一致，"
                           "其余 {rest} 个没有比较。"},
    "vmap.cut_many": {"en": "At batch size {size} the Python loop stopped at its time limit after {done} examples: "
                            "those were compared and agree, the other {rest} were not compared.",
                      "de": "Bei Batch-Größe {size} hat die Python-Schleife nach {done} Beispielen an ihrem Zeitlimit "
                            "aufgehört: Diese wurden verglichen und stimmen überein, die anderen {rest} wurden nicht "
                            "verglichen.",
                      "zh": "在批大小 {size} 下，Python 循环在完成 {done} 个样本后到达时间上限而停止："
                           "这些样本已比较且一致，"
                            "其余 {rest} 个没有比较。"},
    # The Derivatives tab.
    "deriv.forward_reverse": {
        "en": "**Forward or reverse?** `jacfwd` pushes one tangent per *input* through the function, `jacrev` pulls "
              "one cotangent per *output* back: for a wide Jacobian (few outputs, many inputs) reverse mode wins, "
              "for a tall one (many outputs, few inputs) forward mode does.",
        "de": "**Vorwärts oder rückwärts?** `jacfwd` schiebt eine Tangente pro *Eingabe* durch die Funktion, "
              "`jacrev` zieht eine Kotangente pro *Ausgabe* zurück: Bei einer breiten Jacobi-Matrix (wenige "
              "Ausgaben, viele Eingaben) gewinnt der Rückwärtsmodus, bei einer hohen (viele Ausgaben, wenige "
              "Eingaben) der Vorwärtsmodus.",
        "zh": "**前向还是反向？** `jacfwd` 为每个*输入*把一个切向量推过函数，`jacrev` 为每个*输出*把一个余切向量拉回："
              "对于宽的 Jacobian（输出少、输入多），反向模式更快；对于高的（输出多、输入少），前向模式更快。"},
    "deriv.running_orders": {"en": "Differentiating…", "de": "Ableiten…", "zh": "正在求导…"},
    "deriv.running_branches": {
        "en": "Differentiating… A function whose Python `if` or `while` reads x cannot be traced by `jit` and `vmap`; "
              "it is then differentiated point by point without jit, which takes longer.",
        "de": "Ableiten… Eine Funktion, deren Python-`if` oder -`while` x liest, können `jit` und `vmap` nicht "
              "tracen; sie wird dann Punkt für Punkt ohne jit abgeleitet, was länger dauert.",
        "zh": "正在求导… 如果函数中的 Python `if` 或 `while` 读取了 x，`jit` 和 `vmap` 就无法追踪它；"
              "这时会不用 jit 逐点求导，耗时更长。"},
    "deriv.running_gradient": {"en": "Computing the gradient and the Hessian, and timing jacfwd against jacrev…",
                               "de": "Berechne den Gradienten und die Hesse-Matrix und messe jacfwd gegen jacrev…",
                               "zh": "正在计算梯度和 Hessian，并比较 jacfwd 与 jacrev 的耗时…"},
    "deriv.no_jaxpr": {
        "en": "# No jaxpr: the function was evaluated point by point without jit, and its Python control flow may "
              "take another path at each point, so there is no one program to show.",
        "de": "# Kein jaxpr: Die Funktion wurde Punkt für Punkt ohne jit ausgewertet, und ihr Python-Kontrollfluss "
              "kann an jedem Punkt einen anderen Weg nehmen, also gibt es nicht das eine Programm zum Zeigen.",
        "zh": "# 没有 jaxpr：函数是不用 jit 逐点求值的，它的 Python 控制流在每个点上可能走不同的路径，"
              "所以没有单一的程序可以展示。"},
    "deriv.table_head": {
        "en": "| order | checked against | max error | jaxpr equations | HLO instructions |",
        "de": "| Ordnung | geprüft gegen | max. Fehler | jaxpr-Gleichungen | HLO-Instruktionen |",
        "zh": "| 阶数 | 对照 | 最大误差 | jaxpr 方程数 | HLO 指令数 |"},
    # What a derivative was checked against (the reply's "reference").
    "deriv.closed form": {"en": "closed form", "de": "geschlossene Form", "zh": "解析式"},
    "deriv.finite differences": {"en": "finite differences", "de": "finite Differenzen", "zh": "有限差分"},
    "deriv.done": {"en": "{function}: derivatives up to order {count} on {points} points, in {dtype}.",
                   "de": "{function}: Ableitungen bis zur Ordnung {count} an {points} Punkten, in {dtype}.",
                   "zh": "{function}：在 {points} 个点上求了最高 {count} 阶的导数，使用 {dtype}。"},
    "deriv.no_sizes": {"en": "No program sizes: without jit there is no one program, only the path taken at each "
                             "point.",
                       "de": "Keine Programmgrößen: Ohne jit gibt es nicht das eine Programm, nur den Weg, der an "
                             "jedem Punkt genommen wurde.",
                       "zh": "没有程序规模：不用 jit 就没有单一的程序，只有每个点上走过的路径。"},
    "deriv.pbp_head": {"en": "{function}: derivatives up to order {order} on {done} of {grid} grid points, point "
                             "by point without jit, in {dtype}.",
                       "de": "{function}: Ableitungen bis zur Ordnung {order} an {done} von {grid} Gitterpunkten, "
                             "Punkt für Punkt ohne jit, in {dtype}.",
                       "zh": "{function}：在 {grid} 个网格点中的 {done} 个上求了最高 {order} 阶的导数，"
                             "不用 jit 逐点计算，使用 {dtype}。"},
    "deriv.pbp_timing": {
        "en": "Timing, point by point without jit: {all}{done} points in {seconds} s, {each} a point (three eager "
              "calls each: one for f and its {order} derivatives, two at x ± h for their finite-difference checks; the "
              "first point also compiles each operation it meets).",
        "de": "Zeitmessung, Punkt für Punkt ohne jit: {all}{done} Punkte in {seconds} s, {each} pro Punkt (je drei "
              "eager Aufrufe: einer für f und seine {order} Ableitungen, zwei bei x ± h für ihre Prüfung mit finiten "
              "Differenzen; der erste Punkt kompiliert außerdem jede Operation, auf die er trifft).",
        "zh": "计时（不用 jit 逐点计算）：{all}{done} 个点用时 {seconds} 秒，每个点 {each}（每个点三次 eager 调用："
              "一次计算 f 及其 {order} 阶导数，两次在 x ± h 处做有限差分检查；第一个点还会编译它遇到的每个运算）。"},
    "deriv.pbp_all": {"en": "all ", "de": "alle ", "zh": "全部 "},
    "deriv.pbp_stopped": {
        "en": " It stopped before its {budget} s for this ran out, so that the job finishes within its time limit; "
              "the {done} points are spread over the whole range. For all {grid}, ask for fewer points or a lower "
              "order.",
        "de": " Es hat aufgehört, bevor seine {budget} s dafür abgelaufen waren, damit der Job innerhalb seines "
              "Zeitlimits fertig wird; die {done} Punkte sind über den ganzen Bereich verteilt. Für alle {grid} "
              "verlange weniger Punkte oder eine niedrigere Ordnung.",
        "zh": "为了让作业在时间上限内完成，它在用完分配的 {budget} 秒之前停止了；这 {done} 个点分布在整个区间上。"
              "要得到全部 {grid} 个点，请减少点数或降低阶数。"},
    "deriv.orders_computed": {"en": "(orders up to {n} were computed)", "de": "(Ordnungen bis {n} wurden berechnet)",
                              "zh": "（只计算到 {n} 阶）"},
    "deriv.grad_applied": {"en": "# {label}: grad applied {n} times", "de": "# {label}: grad {n}-mal angewendet",
                           "zh": "# {label}：grad 应用了 {n} 次"},
    "deriv.jacobian_function": {
        "en": "**jacfwd against jacrev**, measured on `x ↦ tanh(W @ x)`, not on your f: with a wide W (4 × 1000) "
              "and a tall one (1000 × 4), so that each mode has a case it wins.",
        "de": "**jacfwd gegen jacrev**, gemessen an `x ↦ tanh(W @ x)`, nicht an deinem f: mit einem breiten W "
              "(4 × 1000) und einem hohen (1000 × 4), damit jeder Modus einen Fall hat, den er gewinnt.",
        "zh": "**jacfwd 对比 jacrev**，测量的是 `x ↦ tanh(W @ x)`，而不是你的 f：分别用一个宽的 W（4 × 1000）"
              "和一个高的 W（1000 × 4），让每种模式都有它胜出的情况。"},
    "deriv.jacobian_head": {"en": "| Jacobian | shape (outputs × inputs) | jacfwd | jacrev |",
                            "de": "| Jacobi-Matrix | Shape (Ausgaben × Eingaben) | jacfwd | jacrev |",
                            "zh": "| Jacobian | shape（输出 × 输入） | jacfwd | jacrev |"},
    "deriv.not_finite": {"en": "inf or nan", "de": "inf oder nan", "zh": "inf 或 nan"},
}

TEXTS.update({
    # The Parallel tab.
    "par.devices_one": {"en": "On {n} device the result", "de": "Auf {n} Gerät ist das Ergebnis",
                        "zh": "在 {n} 个设备上，结果"},
    "par.devices_many": {"en": "On {n} devices the result", "de": "Auf {n} Geräten ist das Ergebnis",
                         "zh": "在 {n} 个设备上，结果"},
    "par.equals": {"en": "{devices} equals the single-device one within rounding: {numbers}.",
                   "de": "{devices} bis auf Rundung gleich dem auf einem einzelnen Gerät: {numbers}.",
                   "zh": "{devices}在舍入误差范围内与单设备结果相同：{numbers}。"},
    "par.differs": {"en": "{devices} DIFFERS from the single-device one ({numbers}){mismatch}.",
                    "de": "{devices} ANDERS als das auf einem einzelnen Gerät ({numbers}){mismatch}.",
                    "zh": "{devices}与单设备结果**不同**（{numbers}）{mismatch}。"},
    "par.numbers": {"en": "{difference}, {tolerance}", "de": "{difference}, {tolerance}",
                    "zh": "{difference}，{tolerance}"},
    "par.mismatch": {"en": ": {text}", "de": ": {text}", "zh": "：{text}"},
    "par.largest_difference": {"en": "largest difference {d}", "de": "größte Abweichung {d}", "zh": "最大差值 {d}"},
    "par.not_finite": {"en": "a difference that is not finite", "de": "eine Abweichung, die nicht endlich ist",
                       "zh": "差值不是有限数"},
    "par.tolerance": {"en": "tolerance {t}", "de": "Toleranz {t}", "zh": "容差 {t}"},
    "par.no_tolerance": {"en": "no tolerance (the results cannot be compared)",
                         "de": "keine Toleranz (die Ergebnisse lassen sich nicht vergleichen)",
                         "zh": "没有容差（结果无法比较）"},
    "par.tolerance_none": {"en": "**Tolerance:** none, the results could not be compared.",
                           "de": "**Toleranz:** keine, die Ergebnisse ließen sich nicht vergleichen.",
                           "zh": "**容差：**无，结果无法比较。"},
    "par.moved": {"en": "plus how far the result moves when every input moves by its own size in a random direction "
                        "(a `jax.jvp`)",
                  "de": "plus wie weit sich das Ergebnis bewegt, wenn sich jede Eingabe um ihre eigene Größe in eine "
                        "zufällige Richtung bewegt (ein `jax.jvp`)",
                  "zh": "再加上每个输入沿随机方向移动自身大小时结果移动的幅度（一次 `jax.jvp`）"},
    "par.not_moved": {"en": "(how far it moves with its inputs was not measured: no float inputs, or JAX has no jvp "
                            "for this function)",
                      "de": "(wie weit es sich mit seinen Eingaben bewegt, wurde nicht gemessen: keine Float-Eingaben, "
                            "oder JAX hat kein jvp für diese Funktion)",
                      "zh": "（没有测量它随输入移动的幅度：没有浮点输入，或者 JAX 没有这个函数的 jvp）"},
    "par.tolerance_how": {
        "en": "**Tolerance** {tolerance} = 4 × ρ × scale, the rounding that doing the same arithmetic in another "
              "order explains. ρ = {relative} for {terms} rounding step(s), the terms of the function's sums (read "
              "from its jaxpr) and one per other operation: √(steps) × eps, as rounding errors add like random "
              "signs. Scale = {scale}, the largest magnitude in the single-device result {moved}. Integer results "
              "must be equal.",
        "de": "**Toleranz** {tolerance} = 4 × ρ × Skala, die Rundung, die sich daraus erklärt, dass dieselbe "
              "Arithmetik in anderer Reihenfolge gerechnet wird. ρ = {relative} für {terms} Rundungsschritt(e), die "
              "Summanden der Summen der Funktion (aus ihrem jaxpr gelesen) und einer pro anderer Operation: "
              "√(Schritte) × eps, da sich Rundungsfehler wie zufällige Vorzeichen addieren. Skala = {scale}, der "
              "größte Betrag im Ergebnis auf einem Gerät {moved}. Ganzzahlige Ergebnisse müssen gleich sein.",
        "zh": "**容差** {tolerance} = 4 × ρ × scale，即以不同顺序做同样的算术所能解释的舍入误差。ρ = {relative}，"
              "对应 {terms} 个舍入步骤（函数中求和的项数，从 jaxpr 读出，加上其他每个运算一步）：√(步数) × eps，"
              "因为舍入误差像随机符号一样累加。scale = {scale}，即单设备结果中的最大绝对值{moved}。"
              "整数结果必须完全相等。"},
    "par.dp_same": {"en": "equal to", "de": "gleich", "zh": "等于"},
    "par.dp_different": {"en": "different from", "de": "anders als", "zh": "不同于"},
    "par.dp_replicated": {"en": "replicated (every device holds all of them)",
                          "de": "repliziert (jedes Gerät hält alle)", "zh": "复制（每个设备都持有全部参数）"},
    "par.dp_split": {"en": "split", "de": "aufgeteilt", "zh": "切分"},
    "par.dp_why": {"en": ": each device computes gradients on its slice of the batch, and the all-reduce sums them",
                   "de": ": Jedes Gerät berechnet Gradienten auf seinem Teil des Batches, und das all-reduce summiert "
                         "sie",
                   "zh": "：每个设备在自己那一份批数据上计算梯度，all-reduce 把它们加起来"},
    "par.none": {"en": "none", "de": "keine", "zh": "无"},
    "par.data_parallel": {
        "en": "#### One SGD step of the MLP {layers}, batch of {batch} sharded over {n} devices\nParams {params}; the "
              "batch in {blocks} block(s) on axis `data`. New params {same} the single-device step ({difference}); "
              "loss {before} → {after}.\n\nCollectives in the compiled step: {found}{why}.",
        "de": "#### Ein SGD-Schritt des MLP {layers}, Batch von {batch}, verteilt über {n} Geräte\nParameter "
              "{params}; der Batch in {blocks} Block/Blöcken auf der Achse `data`. Neue Parameter {same} dem Schritt "
              "auf einem Gerät ({difference}); Loss {before} → {after}.\n\nCollectives im kompilierten Schritt: "
              "{found}{why}.",
        "zh": "#### MLP {layers} 的一步 SGD，批大小 {batch}，分片到 {n} 个设备上\n参数：{params}；批数据在轴 `data` "
              "上分成 {blocks} 块。新参数{same}单设备的那一步（{difference}）；loss {before} → {after}。\n\n"
              "编译后这一步中的 collective：{found}{why}。"},
    "par.device": {"en": "device {d}", "de": "Gerät {d}", "zh": "设备 {d}"},
    "par.devices": {"en": "devices {d}", "de": "Geräte {d}", "zh": "设备 {d}"},
    "par.caption": {"en": "{title}: shape {shape}, {blocks} block(s) on {devices} device(s)",
                    "de": "{title}: Shape {shape}, {blocks} Block/Blöcke auf {devices} Gerät(en)",
                    "zh": "{title}：shape {shape}，{blocks} 块，分布在 {devices} 个设备上"},
    "par.mesh": {"en": "**Mesh**", "de": "**Mesh**", "zh": "**Mesh**"},
    "par.input": {"en": "input {i}", "de": "Eingabe {i}", "zh": "输入 {i}"},
    "par.output": {"en": "output", "de": "Ausgabe", "zh": "输出"},
    "par.no_collectives": {"en": "none: no device needs data from another",
                           "de": "keine: Kein Gerät braucht Daten von einem anderen",
                           "zh": "无：没有设备需要其他设备的数据"},
    "par.result": {"en": "**Result**", "de": "**Ergebnis**", "zh": "**结果**"},
    "par.collectives": {"en": "**Collectives in the compiled program** (the same SPMD program runs on every device): "
                              "{found}",
                        "de": "**Collectives im kompilierten Programm** (auf jedem Gerät läuft dasselbe "
                              "SPMD-Programm): {found}",
                        "zh": "**编译后程序中的 collective**（每个设备上运行同一个 SPMD 程序）：{found}"},
    "par.platform_devices": {"en": "**{count} {platform} devices:** ", "de": "**{count} {platform}-Geräte:** ",
                             "zh": "**{count} 个 {platform} 设备：** "},
    "par.demo_found": {"en": "Collectives: {found}. Result:", "de": "Collectives: {found}. Ergebnis:",
                       "zh": "collective：{found}。结果："},
    "par.batch_of_images": {"en": "the batch of images", "de": "der Batch von Bildern", "zh": "这批图像"},
    "par.same_result": {"en": "same result", "de": "gleiches Ergebnis", "zh": "结果相同"},
    "par.different_results": {"en": "different results", "de": "unterschiedliche Ergebnisse", "zh": "结果不同"},
    "par.pmap_head": {"en": "#### pmap (legacy) next to shard_map", "de": "#### pmap (veraltet) neben shard_map",
                      "zh": "#### pmap（旧版）与 shard_map 对照"},
})

TEXTS.update({
    # The Compiler tab.
    "comp.passes": {
        "en": "{passes} passes in {pipelines} pipelines compiled {function} for {device}: **{changed} changed the "
              "module**, {unchanged} left its text as it was{dumped}.",
        "de": "{passes} Passes in {pipelines} Pipelines haben {function} für {device} kompiliert: **{changed} haben "
              "das Modul verändert**, {unchanged} haben seinen Text gelassen, wie er war{dumped}.",
        "zh": "{pipelines} 个 pipeline 中的 {passes} 个 pass 为 {device} 编译了 {function}："
              "**{changed} 个改变了模块**，"
              "{unchanged} 个没有改变它的文本{dumped}。"},
    "comp.dumped": {"en": " (XLA dumped the module after every pass)",
                    "de": " (XLA hat das Modul nach jedem Pass ausgegeben)",
                    "zh": "（XLA 在每个 pass 之后都导出了模块）"},
    "comp.changed": {"en": "changed", "de": "verändert", "zh": "已改变"},
    "comp.unchanged": {"en": "unchanged", "de": "unverändert", "zh": "未改变"},
    "comp.not_known": {"en": "not known", "de": "unbekannt", "zh": "未知"},
    "comp.whole_pipeline": {"en": "the whole pipeline ", "de": "die ganze Pipeline ", "zh": "整个 pipeline "},
    "comp.whole_pipeline_note": {"en": " (the whole pipeline)", "de": " (die ganze Pipeline)",
                                 "zh": "（整个 pipeline）"},
    "comp.table_head": {
        "en": "<th>#</th><th>pipeline</th><th>pass</th><th>module</th><th>instructions after</th><th>what it does</th>",
        "de": "<th>#</th><th>Pipeline</th><th>Pass</th><th>Modul</th><th>Instruktionen danach</th>"
              "<th>was er tut</th>",
        "zh": "<th>#</th><th>pipeline</th><th>pass</th><th>模块</th><th>之后的指令数</th><th>作用</th>"},
    "comp.not_kept": {"en": "This pass's module was not kept (the reply's size cap): no diff to show.",
                      "de": "Das Modul dieses Passes wurde nicht behalten (Größengrenze der Antwort): kein Diff "
                            "zu zeigen.",
                      "zh": "这个 pass 的模块没有保留（回复的大小上限）：没有可显示的 diff。"},
    "comp.pass_in": {"en": "{name} in {pipeline}", "de": "{name} in {pipeline}", "zh": "{pipeline} 中的 {name}"},
    "comp.same_text": {"en": "The module's text is the same after this pass as before it.",
                       "de": "Der Text des Moduls ist nach diesem Pass derselbe wie davor.",
                       "zh": "这个 pass 之后模块的文本与之前相同。"},
    "comp.no_difference": {"en": "(no difference)", "de": "(kein Unterschied)", "zh": "（没有差异）"},
    "comp.more_rows": {"en": "… {n} more rows", "de": "… {n} weitere Zeilen", "zh": "… 另有 {n} 行"},
    "comp.graph": {
        "en": "Drew {function} as XLA compiled it for {device}: the jaxpr's {jaxpr} nodes and the optimised HLO's "
              "{hlo}, with **{fusions}**.",
        "de": "{function} gezeichnet, wie XLA es für {device} kompiliert hat: die {jaxpr} Knoten des jaxpr und die "
              "{hlo} des optimierten HLO, mit **{fusions}**.",
        "zh": "按 XLA 为 {device} 编译的样子画出了 {function}：jaxpr 的 {jaxpr} 个节点和优化后 HLO 的 {hlo} 个节点，"
              "共 **{fusions}**。"},
    "comp.fusion_one": {"en": "{n} fusion", "de": "{n} Fusion", "zh": "{n} 个 fusion"},
    "comp.fusion_many": {"en": "{n} fusions", "de": "{n} Fusionen", "zh": "{n} 个 fusion"},
    "comp.fuses": {"en": "{label} fuses {operations}", "de": "{label} fusioniert {operations}",
                   "zh": "{label} 融合了 {operations}"},
    "comp.large_graph": {"en": "The {name} graph is large: {left} operations past the first {drawn} are not drawn.",
                         "de": "Der {name}-Graph ist groß: {left} Operationen nach den ersten {drawn} werden nicht "
                               "gezeichnet.",
                         "zh": "{name} 图很大：前 {drawn} 个之后的 {left} 个运算没有画出。"},
    "comp.jaxpr_title": {"en": "jaxpr: the program JAX traced", "de": "jaxpr: das Programm, das JAX getract hat",
                         "zh": "jaxpr：JAX 追踪得到的程序"},
    "comp.hlo_title": {"en": "Optimised HLO: each fusion is a box around what it fused (one kernel)",
                       "de": "Optimiertes HLO: Jede Fusion ist ein Kasten um das, was sie fusioniert hat (ein Kernel)",
                       "zh": "优化后的 HLO：每个 fusion 是一个框，框住它融合的运算（一个 kernel）"},
    "comp.no_picture": {"en": "No picture (see above). The graph in Graphviz's DOT language:",
                        "de": "Kein Bild (siehe oben). Der Graph in der DOT-Sprache von Graphviz:",
                        "zh": "没有图片（见上文）。用 Graphviz 的 DOT 语言表示的图："},
    "comp.your_code": {"en": "Your code (node colours)", "de": "Dein Code (Knotenfarben)",
                       "zh": "你的代码（节点颜色）"},
    "comp.same_result": {"en": "the same (to float32's rounding)", "de": "gleich (bis auf die Rundung von float32)",
                         "zh": "相同（在 float32 的舍入误差内）"},
    "comp.different": {"en": "**different**", "de": "**verschieden**", "zh": "**不同**"},
    "comp.not_compared": {"en": "not compared", "de": "nicht verglichen", "zh": "未比较"},
    "comp.compared_on": {"en": "Compared on **{device}**. B: {what}", "de": "Verglichen auf **{device}**. B: {what}",
                         "zh": "在 **{device}** 上比较。B：{what}"},
    "comp.results": {"en": "Results: {verdict}{apart}.", "de": "Ergebnisse: {verdict}{apart}.",
                     "zh": "结果：{verdict}{apart}。"},
    "comp.apart": {"en": ", at most {d} apart", "de": ", höchstens {d} auseinander", "zh": "，最多相差 {d}"},
    "comp.ratio": {"en": "B's median run took **{ratio}×** A's, timed in turn in the same job.",
                   "de": "Der Median-Lauf von B brauchte das **{ratio}×** von A, abwechselnd im selben Job gemessen.",
                   "zh": "B 的运行时间中位数是 A 的 **{ratio}×**，在同一个作业中轮流计时。"},
    "comp.row.kernels": {"en": "kernels (ENTRY's operations that do work)",
                         "de": "Kernel (die Operationen von ENTRY, die arbeiten)",
                         "zh": "kernel（ENTRY 中真正做计算的运算）"},
    "comp.row.hlo": {"en": "HLO instructions", "de": "HLO-Instruktionen", "zh": "HLO 指令数"},
    "comp.row.jaxpr": {"en": "jaxpr equations", "de": "jaxpr-Gleichungen", "zh": "jaxpr 方程数"},
    "comp.row.flops": {"en": "flops (XLA's estimate)", "de": "Flops (Schätzung von XLA)", "zh": "flops（XLA 的估计）"},
    "comp.row.bytes": {"en": "bytes accessed (XLA's estimate)", "de": "gelesene/geschriebene Bytes (Schätzung von XLA)",
                       "zh": "访问的字节数（XLA 的估计）"},
    "comp.row.temp": {"en": "temporary buffers", "de": "temporäre Puffer", "zh": "临时缓冲区"},
    "comp.row.io": {"en": "arguments + outputs", "de": "Argumente + Ausgaben", "zh": "参数 + 输出"},
    "comp.row.alias": {"en": "output written into a donated argument",
                       "de": "Ausgabe, die in ein gespendetes Argument geschrieben wird",
                       "zh": "写入被捐赠（donate）参数的输出"},
    "comp.row.compile": {"en": "compile time", "de": "Kompilierzeit", "zh": "编译时间"},
    "comp.row.run": {"en": "run time (median, interquartile range, runs)",
                     "de": "Laufzeit (Median, Interquartilsabstand, Läufe)",
                     "zh": "运行时间（中位数、四分位距、次数）"},
    "comp.not_run": {"en": "not run", "de": "nicht gelaufen", "zh": "未运行"},
    "comp.runs": {"en": "{median} ± {iqr} ({runs} runs)", "de": "{median} ± {iqr} ({runs} Läufe)",
                  "zh": "{median} ± {iqr}（{runs} 次）"},
    "comp.not_reported": {"en": "not reported", "de": "nicht angegeben", "zh": "未报告"},
})
