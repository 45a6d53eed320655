"""The Speed of light tab's sentences (playground/server/roofline.py): what bounds a program, and how far it is from
the device's measured ceilings. XLA's and JAX's names stay as they are."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "sol.memory_bound": {
        "en": "memory-bound: moves {bytes} in {seconds} = {rate}, {percent} % of this machine's measured {ceiling}",
        "de": "speichergebunden: bewegt {bytes} in {seconds} = {rate}, {percent} % der gemessenen {ceiling} "
              "dieser Maschine",
        "zh": "受内存带宽限制：{seconds} 内搬运 {bytes} = {rate}，达到本机实测 {ceiling} 的 {percent} %",
    },
    "sol.memory_bound_cached": {
        "en": "memory-bound: moves {bytes} in {seconds} = {rate}, {times}× this machine's measured {ceiling} from "
              "memory: its data fit in the caches",
        "de": "speichergebunden: bewegt {bytes} in {seconds} = {rate}, das {times}-Fache der gemessenen {ceiling} "
              "aus dem Speicher dieser Maschine: seine Daten passen in die Caches",
        "zh": "受内存带宽限制：{seconds} 内搬运 {bytes} = {rate}，是本机实测内存带宽 {ceiling} 的 {times} 倍："
              "它的数据装得进缓存",
    },
    "sol.compute_bound": {
        "en": "compute-bound: {flops} in {seconds} = {rate}, {percent} % of this machine's measured {ceiling} "
              "({dtype} matmul)",
        "de": "rechengebunden: {flops} in {seconds} = {rate}, {percent} % der gemessenen {ceiling} dieser Maschine "
              "({dtype}-Matmul)",
        "zh": "受算力限制：{seconds} 内完成 {flops} = {rate}，达到本机实测 {ceiling} 的 {percent} %（{dtype} 矩阵乘）",
    },
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
        "en": "Measured {function} on {device}: as written and with XLA's fusion passes off, each timed on its own.",
        "de": "{function} auf {device} gemessen: wie geschrieben und ohne die Fusion-Passes von XLA, jede Fassung "
              "für sich gemessen.",
        "zh": "已在 {device} 上测量 {function}：按原样编译一次，关闭 XLA 的 fusion pass 再编译一次，分别计时。"},
    "sol.program": {"en": "**{label}**: {verdict}", "de": "**{label}**: {verdict}", "zh": "**{label}**：{verdict}"},
    "sol.as_written": {"en": "as written", "de": "wie geschrieben", "zh": "按原样"},
    "sol.fusion_off": {"en": "fusion off", "de": "ohne Fusion", "zh": "关闭 fusion"},
    "sol.ceilings": {
        "en": "This machine's ceilings ({device}, measured by a job that runs no user code): memory bandwidth "
              "**{bandwidth}** (a jitted `x * 2` over {stream}), peak **{flops}** (a {n} × {n} {dtype} matmul). "
              "They meet at {ridge} FLOP per byte: a program that does fewer FLOPs per byte it moves is "
              "memory-bound, one that does more is compute-bound.",
        "de": "Die Grenzen dieser Maschine ({device}, gemessen von einem Job, der keinen Nutzercode ausführt): "
              "Speicherbandbreite **{bandwidth}** (ein gejittetes `x * 2` über {stream}), Spitze **{flops}** "
              "(eine {n} × {n}-Matmul in {dtype}). Sie treffen sich bei {ridge} FLOP pro Byte: Ein Programm mit "
              "weniger FLOPs pro bewegtem Byte ist speichergebunden, eines mit mehr rechengebunden.",
        "zh": "本机的上限（{device}，由一个不运行用户代码的作业测得）：内存带宽 **{bandwidth}**"
              "（对 {stream} 数据执行 jit 编译的 `x * 2`），峰值算力 **{flops}**（{n} × {n} 的 {dtype} 矩阵乘）。"
              "两者交于每字节 {ridge} FLOP：每搬运一个字节做的 FLOP 少于它的程序受内存带宽限制，多于它的受算力限制。"},
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
    "sol.col.kind": {"en": "kind", "de": "Art", "zh": "类别"},
    "sol.col.shape": {"en": "shape", "de": "Shape", "zh": "形状"},
    "sol.col.size": {"en": "size", "de": "Größe", "zh": "大小"},
    "sol.col.line": {"en": "your line", "de": "deine Zeile", "zh": "你的代码行"},
    "sol.col.kernel": {"en": "kernel", "de": "Kernel", "zh": "kernel"},
    "sol.col.runs": {"en": "runs", "de": "Läufe", "zh": "运行次数"},
    "sol.col.median": {"en": "median µs", "de": "Median µs", "zh": "中位数 µs"},
    "sol.col.bytes": {"en": "bytes", "de": "Bytes", "zh": "字节"},
    "sol.col.rate": {"en": "GB/s", "de": "GB/s", "zh": "GB/s"},
    "sol.kind.argument": {"en": "argument", "de": "Argument", "zh": "参数"},
    "sol.kind.output": {"en": "output", "de": "Ausgabe", "zh": "输出"},
    "sol.kind.temporary": {"en": "temporary", "de": "Zwischenwert", "zh": "临时值"},
    "sol.kind.constant": {"en": "constant", "de": "Konstante", "zh": "常量"},
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
