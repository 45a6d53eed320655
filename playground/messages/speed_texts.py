"""The Speed of light tab's sentences (playground/server/roofline.py): what bounds a program, and how far it is from
the device's measured ceilings. XLA's and JAX's names stay as they are."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "sol.memory_bound": {
        "en": "memory-bound: moves {bytes} in {seconds} = {rate}, {percent} % of the roof of {level}, where its "
              "{held} live ({ceiling})",
        "de": "speichergebunden: bewegt {bytes} in {seconds} = {rate}, {percent} % des Dachs von {level}, wo seine "
              "{held} liegen ({ceiling})",
        "zh": "受内存带宽限制：{seconds} 内搬运 {bytes} = {rate}，达到{level}（它的 {held} 所在之处）"
              "上限 {ceiling} 的 {percent} %",
    },
    "sol.compute_bound": {
        "en": "compute-bound: {flops} in {seconds} = {rate}, {percent} % of this machine's measured {ceiling} "
              "({dtype} matmul at JAX's default precision)",
        "de": "rechengebunden: {flops} in {seconds} = {rate}, {percent} % der gemessenen {ceiling} dieser Maschine "
              "({dtype}-Matmul in der Standardgenauigkeit von JAX)",
        "zh": "受算力限制：{seconds} 内完成 {flops} = {rate}，达到本机实测 {ceiling} 的 {percent} %"
              "（JAX 默认精度下的 {dtype} 矩阵乘）",
    },
    "sol.above_level": {
        "en": "memory-bound: moves {bytes} in {seconds} = {rate}, above the roof of {level} ({ceiling}), where its "
              "{held} live, yet under the roof of {fastest}: part of its data came from a faster level than its "
              "size says, so no share of a roof is given",
        "de": "speichergebunden: bewegt {bytes} in {seconds} = {rate}, über dem Dach von {level} ({ceiling}), wo "
              "seine {held} liegen, doch unter dem Dach von {fastest}: Ein Teil seiner Daten kam aus einer "
              "schnelleren Ebene, als seine Größe sagt, darum wird kein Anteil an einem Dach genannt",
        "zh": "受内存带宽限制：{seconds} 内搬运 {bytes} = {rate}，高于{level}（它的 {held} 所在之处）的上限 "
              "{ceiling}，但低于{fastest}的上限：它的一部分数据来自比其大小所示更快的层级，因此不给出占上限的比例",
    },
    "sol.above_highest_memory": {
        "en": "memory-bound: moves {bytes} in {seconds} = {rate}, above every roof measured on this machine (that "
              "of {level}, where its {held} live: {ceiling}). A roof bounds what runs under it, so either XLA counted "
              "more bytes than moved, or the roofs were measured while other work slowed this machine (the next run "
              "has them measured again, each kept at the higher); no share of a roof is given",
        "de": "speichergebunden: bewegt {bytes} in {seconds} = {rate}, über jedem auf dieser Maschine gemessenen "
              "Dach (dem von {level}, wo seine {held} liegen: {ceiling}). Ein Dach begrenzt, was darunter läuft, "
              "also hat XLA mehr Bytes gezählt, als bewegt wurden, oder die Dächer wurden gemessen, während andere "
              "Arbeit diese Maschine bremste (der nächste Lauf lässt sie neu messen, jedes mit dem höheren Wert); "
              "kein Anteil an einem Dach wird genannt",
        "zh": "受内存带宽限制：{seconds} 内搬运 {bytes} = {rate}，高于本机测得的所有上限（{level}的上限，"
              "它的 {held} 所在之处：{ceiling}）。上限约束其下运行的一切，所以要么 XLA 统计的字节多于实际搬运的，"
              "要么测量上限时本机正被其他工作拖慢（下次运行会重新测量，每个上限取较高的值）；因此不给出占上限的比例",
    },
    "sol.above_highest_compute": {
        "en": "compute-bound: {flops} in {seconds} = {rate}, above this machine's measured {ceiling} ({dtype} "
              "matmul). A roof bounds what runs under it, so either XLA counted more FLOPs than ran, or the peak was "
              "measured while other work slowed this machine (the next run has it measured again, kept at the "
              "higher); no share of it is given",
        "de": "rechengebunden: {flops} in {seconds} = {rate}, über den gemessenen {ceiling} dieser Maschine "
              "({dtype}-Matmul). Ein Dach begrenzt, was darunter läuft, also hat XLA mehr FLOPs gezählt, als "
              "gerechnet wurden, oder die Spitze wurde gemessen, während andere Arbeit diese Maschine bremste (der "
              "nächste Lauf lässt sie neu messen, mit dem höheren Wert); kein Anteil wird genannt",
        "zh": "受算力限制：{seconds} 内完成 {flops} = {rate}，高于本机实测的 {ceiling}（{dtype} 矩阵乘）。"
              "上限约束其下运行的一切，所以要么 XLA 统计的 FLOP 多于实际运算的，要么测量峰值时本机正被其他工作拖慢"
              "（下次运行会重新测量，取较高的值）；因此不给出比例",
    },
    "sol.near_ridge": {
        "en": "; near the ridge ({intensity} FLOP per byte against {ridge}), where both roofs are close: which one "
              "binds turns on XLA's count of the bytes",
        "de": "; nahe am Knickpunkt ({intensity} FLOP pro Byte gegen {ridge}), wo beide Dächer nah beieinander "
              "liegen: Welches begrenzt, hängt an der Bytezählung von XLA",
        "zh": "；靠近脊点（每字节 {intensity} FLOP，脊点为 {ridge}），两个上限相差不大：哪一个起限制作用，"
              "取决于 XLA 统计的字节数"},
    "sol.level.memory": {"en": "memory", "de": "Speicher", "zh": "内存"},
    "sol.level.cache": {"en": "the {name} cache", "de": "{name}-Cache", "zh": "{name} 缓存"},
    "sol.unplaced": {
        "en": "moves {bytes} and computes {flops} in {seconds}; this machine's ceilings are not measured, so what "
              "bounds it is not said",
        "de": "bewegt {bytes} und rechnet {flops} in {seconds}; die Grenzen dieser Maschine sind nicht gemessen, "
              "also bleibt offen, was sie begrenzt",
        "zh": "{seconds} 内搬运 {bytes}、计算 {flops}；本机的上限未测得，因此无法判断受何限制",
    },
    "sol.no_point": {"en": "no point on the roofline: {why}", "de": "kein Punkt im Roofline-Diagramm: {why}",
                     "zh": "roofline 图上没有这个点：{why}"},
    "sol.no_time": {"en": "the program was not timed", "de": "das Programm wurde nicht gemessen",
                    "zh": "程序未计时"},

    # What the tab writes around the verdicts (playground/server/ui/speed_views.py)
    "sol.working": {
        "en": "Compiling your function as written and with XLA's fusion off, timing both, reading its memory over "
              "XLA's schedule and tracing its kernels…",
        "de": "Kompiliere deine Funktion wie geschrieben und ohne die Fusion von XLA, messe beide, lese ihren "
              "Speicher über den Ablaufplan von XLA und zeichne ihre Kernels auf…",
        "zh": "正在按原样编译你的函数，并在关闭 XLA fusion 的情况下再编译一次，对两者计时，"
              "读取它在 XLA 调度中的内存占用，并记录它的 kernel…"},
    "sol.done": {
        "en": "Measured {function} on {device}: as written and with XLA's fusion passes off, timed in turn.",
        "de": "{function} auf {device} gemessen: wie geschrieben und ohne die Fusion-Passes von XLA, im Wechsel "
              "gemessen.",
        "zh": "已在 {device} 上测量 {function}：按原样编译一次，关闭 XLA 的 fusion pass 再编译一次，交替计时。"},
    "sol.program": {"en": "**{label}**: {verdict}", "de": "**{label}**: {verdict}", "zh": "**{label}**：{verdict}"},
    "sol.compare.faster": {
        "en": "**{faster}** was {times}× as fast as **{slower}**: medians {fast} against {slow}, {calls} calls each "
              "in turn; their spread (the middle half of the calls) at most {spread}.",
        "de": "**{faster}** war {times}-mal so schnell wie **{slower}**: Mediane {fast} gegen {slow}, je {calls} "
              "Aufrufe im Wechsel; ihre Streuung (die mittlere Hälfte der Aufrufe) höchstens {spread}.",
        "zh": "**{faster}** 的速度是 **{slower}** 的 {times} 倍：中位数 {fast} 对 {slow}，两者交替各调用 {calls} "
              "次；离散程度（中间一半调用的范围）至多 {spread}。"},
    "sol.compare.too_close": {
        "en": "**{first}** against **{second}**: too close to call on this machine right now. Their medians, {fast} "
              "and {slow} ({calls} calls each, in turn), differ by {difference}, no more than their spread "
              "(the middle half of the calls: {spread}).",
        "de": "**{first}** gegen **{second}**: auf dieser Maschine gerade nicht zu entscheiden. Ihre Mediane, {fast} "
              "und {slow} (je {calls} Aufrufe im Wechsel), unterscheiden sich um {difference}, nicht mehr als "
              "ihre Streuung (die mittlere Hälfte der Aufrufe: {spread}).",
        "zh": "**{first}** 对 **{second}**：在这台机器上此刻难分高下。两者的中位数 {fast} 和 {slow}"
              "（交替各调用 {calls} 次）相差 {difference}，不超过它们的离散程度（中间一半调用的范围：{spread}）。"},
    "sol.compare.busy": {
        "en": "This machine was busy: other jobs ran while these were timed.",
        "de": "Diese Maschine war beschäftigt: Andere Jobs liefen, während diese gemessen wurden.",
        "zh": "这台机器当时很忙：计时期间还有其他作业在运行。"},
    "sol.as_written": {"en": "as written", "de": "wie geschrieben", "zh": "按原样"},
    "sol.with_checkpoint": {"en": "with jax.checkpoint", "de": "mit jax.checkpoint", "zh": "使用 jax.checkpoint"},
    "sol.without_checkpoint": {"en": "without jax.checkpoint", "de": "ohne jax.checkpoint",
                               "zh": "不用 jax.checkpoint"},
    "sol.fusion_off": {"en": "fusion off", "de": "ohne Fusion", "zh": "关闭 fusion"},
    "sol.ceilings": {
        "en": "This machine's roofs ({device}), measured by a job that runs no user code, and how:",
        "de": "Die Dächer dieser Maschine ({device}), gemessen von einem Job, der keinen Nutzercode ausführt, und "
              "wie:",
        "zh": "本机的各个上限（{device}），由一个不运行用户代码的作业测得，测法如下："},
    "sol.roof.cache": {
        "en": "**{level}** ({size}, as the system lists it): **{bandwidth}**, a jitted loop of `v * -1` over "
              "{stream} written in place, {passes} passes a call",
        "de": "**{level}** ({size}, laut System): **{bandwidth}**, eine gejittete Schleife `v * -1` über "
              "{stream}, an Ort und Stelle geschrieben, {passes} Durchläufe pro Aufruf",
        "zh": "**{level}**（系统列出的大小 {size}）：**{bandwidth}**，用 jit 编译的 `v * -1` 循环原地改写 "
              "{stream} 数据，每次调用 {passes} 遍"},
    "sol.roof.lifted": {"en": " (measured {measured}, below a slower level's roof: a faster level moves data at "
                              "least as fast, so its roof is that one, measured while the machine was busy)",
                        "de": " (gemessen {measured}, unter dem Dach einer langsameren Ebene: Eine schnellere Ebene "
                              "bewegt Daten mindestens so schnell, also gilt deren Dach, gemessen auf einem "
                              "ausgelasteten Rechner)",
                        "zh": "（测得 {measured}，低于更慢一层的上限：更快的一层搬运数据至少同样快，"
                              "所以采用那一层的上限；测量时机器较忙）"},
    "sol.roof.memory": {
        "en": "**{level}**: **{bandwidth}**, the same loop over {stream}, past the caches, passes a call: {passes}; "
              "written in place, so no fresh output is faulted in",
        "de": "**{level}**: **{bandwidth}**, dieselbe Schleife über {stream}, jenseits der Caches, Durchläufe pro "
              "Aufruf: {passes}; an Ort und Stelle geschrieben, also wird keine frische Ausgabe eingeblendet",
        "zh": "**{level}**：**{bandwidth}**，同样的循环作用于超出缓存的 {stream} 数据，每次调用 {passes} 遍；"
              "原地改写，因此不会为新的输出触发缺页"},
    "sol.roof.compute": {
        "en": "**compute** ({dtype}): **{flops}**, a {n} × {n} {dtype} matmul at JAX's default precision{precision}",
        "de": "**Rechnen** ({dtype}): **{flops}**, eine {n} × {n}-Matmul in {dtype} in der Standardgenauigkeit von "
              "JAX{precision}",
        "zh": "**算力**（{dtype}）：**{flops}**，JAX 默认精度下 {n} × {n} 的 {dtype} 矩阵乘{precision}"},
    "sol.roof.tpu_float32": {
        "en": " (on a TPU, float32 runs as bfloat16 passes at it, as your function's matmuls do)",
        "de": " (auf einer TPU läuft float32 darin als bfloat16-Durchgänge, wie die Matmuls deiner Funktion)",
        "zh": "（在 TPU 上，float32 在此精度下以 bfloat16 多遍计算，你的函数中的矩阵乘也是如此）"},
    "sol.roof.rule": {
        "en": "Each program is placed under the roof of the smallest level its arguments, outputs and temporaries "
              "fill at most half of (a cache also holds other data). That roof meets the compute roof at its ridge "
              "({ridges} FLOP per byte): a program that does fewer FLOPs per byte it moves is memory-bound, one "
              "that does more is compute-bound.",
        "de": "Jedes Programm steht unter dem Dach der kleinsten Ebene, die seine Argumente, Ausgaben und "
              "Zwischenwerte höchstens zur Hälfte füllen (ein Cache hält auch andere Daten). Dieses Dach trifft das "
              "Rechendach an seinem Knickpunkt ({ridges} FLOP pro Byte): Ein Programm mit weniger FLOPs pro "
              "bewegtem Byte ist speichergebunden, eines mit mehr rechengebunden.",
        "zh": "每个程序都放在其参数、输出和临时值至多占满一半的最小层级的上限之下（缓存里还有其他数据）。"
              "该上限与算力上限交于其脊点"
              "（每字节 {ridges} FLOP）：每搬运一个字节做的 FLOP 少于它的程序受内存带宽限制，多于它的受算力限制。"},
    "sol.roof.ridge": {"en": "{level}: {ridge}", "de": "{level}: {ridge}", "zh": "{level}：{ridge}"},
    "sol.no_ceilings": {"en": "No ceilings to compare with: {why}", "de": "Keine Grenzen zum Vergleich: {why}",
                        "zh": "没有可供比较的上限：{why}"},
    "sol.memory.peak": {
        "en": "Memory of one call: at its peak, step {step} of {steps} of XLA's schedule ({instruction}), "
              "**{peak}** are live; XLA reserves **{reserved}** for a call (arguments, outputs and temporaries).",
        "de": "Speicher eines Aufrufs: Auf dem Höhepunkt, Schritt {step} von {steps} im Ablaufplan von XLA "
              "({instruction}), sind **{peak}** belegt; XLA reserviert **{reserved}** pro Aufruf (Argumente, "
              "Ausgaben und Zwischenwerte).",
        "zh": "一次调用的内存：在峰值处，即 XLA 调度的第 {step} 步（共 {steps} 步，{instruction}），"
              "有 **{peak}** 处于使用中；XLA 为一次调用预留 **{reserved}**（参数、输出和临时值）。"},
    "sol.memory.all_used": {"en": "The peak uses all of it.", "de": "Der Höhepunkt nutzt alles davon.",
                            "zh": "峰值用满了全部预留内存。"},
    "sol.memory.rest": {"en": "Reserved but not live at the peak: {pieces}.",
                        "de": "Reserviert, aber auf dem Höhepunkt nicht belegt: {pieces}.",
                        "zh": "已预留但在峰值处未使用：{pieces}。"},
    "sol.explained.outputs_after_peak": {"en": "{bytes} of outputs written after the peak",
                                         "de": "{bytes} an Ausgaben, die erst nach dem Höhepunkt geschrieben werden",
                                         "zh": "{bytes} 在峰值之后才写入的输出"},
    "sol.explained.temporaries_unused_at_peak": {"en": "{bytes} of the temporaries' block",
                                                 "de": "{bytes} des Blocks für Zwischenwerte",
                                                 "zh": "{bytes} 临时值内存块中的空闲部分"},
    "sol.explained.arguments_not_in_schedule": {"en": "{bytes} of arguments the schedule does not use",
                                                "de": "{bytes} an Argumenten, die der Ablaufplan nicht nutzt",
                                                "zh": "{bytes} 调度中未用到的参数"},
    "sol.explained.constants": {"en": "less {bytes} of constants, live at the peak but kept with the program, "
                                      "not reserved per call",
                                "de": "abzüglich {bytes} an Konstanten, die auf dem Höhepunkt belegt sind, aber "
                                      "beim Programm liegen und nicht pro Aufruf reserviert werden",
                                "zh": "减去 {bytes} 常量：它们在峰值处被使用，但随程序保存，不按每次调用预留"},
    "sol.memory.buffers": {"en": "The largest buffers live at the peak ({shown} of {count}):",
                           "de": "Die größten Puffer, die auf dem Höhepunkt belegt sind ({shown} von {count}):",
                           "zh": "峰值处占用最大的缓冲区（共 {count} 个，列出 {shown} 个）："},
    "sol.no_memory": {"en": "No memory timeline: {why}", "de": "Kein Speicherverlauf: {why}",
                      "zh": "没有内存时间线：{why}"},
    "sol.col.buffer": {"en": "buffer", "de": "Puffer", "zh": "缓冲区"},
    "sol.col.shape": {"en": "shape", "de": "Shape", "zh": "形状"},
    "sol.col.size": {"en": "size", "de": "Größe", "zh": "大小"},
    "sol.col.line": {"en": "your line", "de": "deine Zeile", "zh": "你的代码行"},
    "sol.col.kernel": {"en": "kernel", "de": "Kernel", "zh": "kernel"},
    "sol.col.runs": {"en": "runs", "de": "Läufe", "zh": "运行次数"},
    "sol.col.median": {"en": "median µs", "de": "Median µs", "zh": "中位数 µs"},
    "sol.col.bytes": {"en": "bytes", "de": "Bytes", "zh": "字节"},
    "sol.col.rate": {"en": "GB/s", "de": "GB/s", "zh": "GB/s"},
    "sol.gloss.argument": {"en": "parameter: an input of the program (an argument of your function)",
                           "de": "Parameter: eine Eingabe des Programms (ein Argument deiner Funktion)",
                           "zh": "参数：程序的输入（你的函数的一个参数）"},
    "sol.gloss.output": {"en": "output: what the program returns", "de": "Ausgabe: was das Programm zurückgibt",
                         "zh": "输出：程序返回的值"},
    "sol.gloss.temporary": {"en": "temporary: a value in between, its space reused after its last use",
                            "de": "Zwischenwert: ein Wert unterwegs, sein Platz nach der letzten Nutzung "
                                  "wiederverwendet",
                            "zh": "临时值：计算中间的值，最后一次使用后其空间被复用"},
    "sol.gloss.constant": {"en": "constant: kept with the compiled program", "de": "Konstante: liegt beim "
                           "kompilierten Programm", "zh": "常量：随编译后的程序保存"},
    "sol.gloss.fusion": {"en": "a fusion: several operations compiled into one kernel",
                         "de": "eine Fusion: mehrere Operationen zu einem Kernel kompiliert",
                         "zh": "一个 fusion：多个运算编译成的一个 kernel"},
    "sol.gloss.dot": {"en": "a matrix product", "de": "ein Matrixprodukt", "zh": "一次矩阵乘"},
    "sol.gloss.copy": {"en": "a copy XLA added (another layout, or a buffer it could not share)",
                       "de": "eine Kopie, die XLA einfügte (ein anderes Layout oder ein Puffer, den es nicht teilen "
                             "konnte)",
                       "zh": "XLA 加入的一次复制（换一种布局，或一个无法共用的缓冲区）"},
    "sol.gloss.loop": {"en": "a loop: its body runs as kernels of their own", "de": "eine Schleife: ihr Rumpf läuft "
                       "als eigene Kernels", "zh": "一个循环：循环体作为独立的 kernel 运行"},
    "sol.gloss.library": {"en": "a call into a library (a custom call), such as a vendor's matmul",
                          "de": "ein Aufruf einer Bibliothek (ein Custom Call), etwa die Matmul eines Herstellers",
                          "zh": "对库的调用（custom call），例如厂商提供的矩阵乘"},
    "sol.gloss.part": {"en": "part {part} of a tuple", "de": "Teil {part} eines Tupels", "zh": "元组的第 {part} 部分"},
    "sol.gloss.operation": {"en": "one operation of XLA, run as a kernel of its own",
                            "de": "eine Operation von XLA, als eigener Kernel ausgeführt",
                            "zh": "XLA 的一个运算，作为独立的 kernel 运行"},
    "sol.col.what": {"en": "what it is", "de": "was es ist", "zh": "含义"},
    "sol.line": {"en": "line {line}", "de": "Zeile {line}", "zh": "第 {line} 行"},
    "sol.grad.off": {
        "en": "Gradient memory was not asked for: tick the box above to see the memory of jax.grad with and "
              "without jax.checkpoint.",
        "de": "Der Speicher des Gradienten war nicht gefragt: Setz oben das Häkchen, um den Speicher von jax.grad "
              "mit und ohne jax.checkpoint zu sehen.",
        "zh": "没有要求计算梯度的内存：勾选上方的复选框，即可查看 jax.grad 在使用和不使用 jax.checkpoint 时的内存。"},
    "sol.grad.none": {"en": "No gradient memory: {why}", "de": "Kein Speicher des Gradienten: {why}",
                      "zh": "没有梯度的内存数据：{why}"},
    "sol.grad.no_checkpoint": {
        "en": "jax.grad of your function (of the sum of its output, by its first argument) peaks at **{peak}**{flops}. "
              "Your code calls no `jax.checkpoint`, so there is nothing to compare: wrap a layer's function in "
              "`jax.checkpoint` to keep less for the backward pass and compute it again there.",
        "de": "jax.grad deiner Funktion (der Summe ihrer Ausgabe, nach ihrem ersten Argument) erreicht höchstens "
              "**{peak}**{flops}. Dein Code ruft kein `jax.checkpoint` auf, also gibt es nichts zu vergleichen: "
              "Pack die Funktion einer Schicht in `jax.checkpoint`, damit für den Rückwärtsdurchlauf weniger "
              "aufbewahrt und dort neu berechnet wird.",
        "zh": "你的函数的 jax.grad（对其输出之和、关于第一个参数求导）的内存峰值为 **{peak}**{flops}。"
              "你的代码没有调用 `jax.checkpoint`，所以没有可比较的：把某一层的函数包进 `jax.checkpoint`，"
              "反向传播就少保存一些中间值，改为在那里重新计算。"},
    "sol.grad.flops": {"en": " and computes {flops}", "de": " und rechnet {flops}", "zh": "，计算量 {flops}"},
    "sol.grad.compared": {
        "en": "jax.grad of your function (of the sum of its output, by its first argument) peaks at **{plain}** "
              "without `jax.checkpoint` and at **{checkpointed}** with it ({calls} call(s) in your code){flops}.",
        "de": "jax.grad deiner Funktion (der Summe ihrer Ausgabe, nach ihrem ersten Argument) erreicht ohne "
              "`jax.checkpoint` höchstens **{plain}** und mit ihm **{checkpointed}** ({calls} Aufruf(e) in deinem "
              "Code){flops}.",
        "zh": "你的函数的 jax.grad（对其输出之和、关于第一个参数求导）不用 `jax.checkpoint` 时内存峰值为 "
              "**{plain}**，用它时为 **{checkpointed}**（你的代码中调用了 {calls} 次）{flops}。"},
    "sol.grad.flops_compared": {
        "en": "; it computes {plain} without and {checkpointed} with it: what was not kept is computed again in "
              "the backward pass",
        "de": "; es rechnet ohne {plain} und mit {checkpointed}: Was nicht aufbewahrt wurde, wird im "
              "Rückwärtsdurchlauf neu berechnet",
        "zh": "；不用时计算量为 {plain}，用时为 {checkpointed}：没有保存的部分会在反向传播中重新计算"},
    "sol.grad.partly": {"en": "Part of it could not be read: {why}", "de": "Ein Teil ließ sich nicht lesen: {why}",
                        "zh": "其中一部分无法读取：{why}"},
    "sol.kernels.head": {
        "en": "{runs} kernel runs in {calls} traced call(s) ({plane}), each kernel listed once, the most time in "
              "all first:",
        "de": "{runs} Kernel-Läufe in {calls} aufgezeichneten Aufruf(en) ({plane}), jeder Kernel einmal "
              "aufgeführt, der mit der meisten Zeit insgesamt zuerst:",
        "zh": "在 {calls} 次被记录的调用中（{plane}）共运行了 {runs} 次 kernel；"
              "每个 kernel 列一行，总耗时最多的排在最前："},
    "sol.kernels.more": {"en": "…and {count} more kernels.", "de": "…und {count} weitere Kernels.",
                         "zh": "……另有 {count} 个 kernel。"},
    "sol.kernels.left_out": {"en": "{count} more kernel runs are left out of the timeline.",
                             "de": "{count} weitere Kernel-Läufe fehlen im Zeitverlauf.",
                             "zh": "另有 {count} 次 kernel 运行没有画进时间线。"},
    "sol.kernels.none": {"en": "No kernel timeline: {why}", "de": "Kein Kernel-Zeitverlauf: {why}",
                         "zh": "没有 kernel 时间线：{why}"},
}
