"""The jit tab's narrative and the About summary, in en/de/zh (German uses "du"; JAX terms stay English)."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "jit.measured": {"en": "Measured on **{device}**. {agreement}", "de": "Gemessen auf **{device}**. {agreement}",
                     "zh": "在 **{device}** 上测量。{agreement}"},
    "jit.every_size": {"en": "every size measured (n = {sizes})", "de": "jeder gemessenen Größe (n = {sizes})",
                       "zh": "每个测量的大小（n = {sizes}）"},
    "jit.at_sizes": {"en": "n = {sizes}", "de": "n = {sizes}", "zh": "n = {sizes}"},
    "jit.agree": {"en": "Eager JAX and jit agree at {where}", "de": "Eager JAX und jit stimmen überein bei {where}",
                  "zh": "eager JAX 与 jit 的结果在{where}上一致"},
    "jit.numpy_each": {"en": "; NumPy agrees at each too.", "de": "; NumPy stimmt bei jeder auch überein.",
                       "zh": "；NumPy 在每个大小上也一致。"},
    "jit.numpy_some": {"en": "; NumPy agrees at n = {sizes}, and was left out after: {reason}",
                       "de": "; NumPy stimmt bei n = {sizes} überein und wurde danach weggelassen: {reason}",
                       "zh": "；NumPy 在 n = {sizes} 上一致，之后被略去：{reason}"},
    "jit.numpy_none": {"en": ". No NumPy column: {reason}", "de": ". Keine NumPy-Spalte: {reason}",
                       "zh": "。没有 NumPy 列：{reason}"},
    "jit.not_compared": {"en": "it was not compared", "de": "es wurde nicht verglichen", "zh": "没有比较"},
    "jit.why": {
        "en": "**Why jit is faster than eager JAX** ({ratio}× at n = {n}): the jaxpr has **{ops}** operations; eager "
              "JAX runs each as its own kernel, writing a whole array to memory every time. After `jit`, XLA fuses "
              "them into {fused}",
        "de": "**Warum jit schneller ist als eager JAX** ({ratio}× bei n = {n}): Der jaxpr hat **{ops}** "
              "Operationen; eager JAX führt jede als eigenen Kernel aus und schreibt dabei jedes Mal ein ganzes Array "
              "in den Speicher. Nach `jit` fusioniert XLA sie zu {fused}",
        "zh": "**为什么 jit 比 eager JAX 快**（n = {n} 时快 {ratio}×）：jaxpr 有 **{ops}** 个运算；eager JAX "
              "把每个运算作为单独的 kernel 运行，每次都把整个数组写入内存。用 `jit` 之后，XLA 把它们融合成 {fused}",
    },
    # What jit.why's {fused} says, for one kernel and for several.
    "jit.fused_one": {"en": "**one** kernel that reads the input once and writes the output once.",
                      "de": "**einem** Kernel, der die Eingabe einmal liest und die Ausgabe einmal schreibt.",
                      "zh": "**1** 个 kernel，只读一次输入、只写一次输出。"},
    "jit.fused_many": {"en": "**{kernels}** kernels that read the input once and write the output once.",
                       "de": "**{kernels}** Kerneln, die die Eingabe einmal lesen und die Ausgabe einmal schreiben.",
                       "zh": "**{kernels}** 个 kernel，只读一次输入、只写一次输出。"},
    "jit.slower_than": {"en": "slower than {who} at n = {n} ({ratio}×)", "de": "langsamer als {who} bei n = {n} "
                        "({ratio}×)", "zh": "n = {n} 时比 {who} 慢（{ratio}×）"},
    "jit.eager": {"en": "eager JAX", "de": "eager JAX", "zh": "eager JAX"},
    "jit.loses": {"en": "**Where jit loses:** {listed}.", "de": "**Wo jit verliert:** {listed}.",
                  "zh": "**jit 输在哪里：** {listed}。"},
    "jit.overhead": {
        "en": "At n = {sizes} a jitted call costs little more than its fixed cost (about {fixed} per call here, "
              "measured at n = {smallest}): JAX checks the arguments, finds the compiled program and dispatches it "
              "to the device, whatever the size. A kernel this small cannot amortise that; NumPy calls its loop "
              "directly.",
        "de": "Bei n = {sizes} kostet ein gejitteter Aufruf kaum mehr als seine festen Kosten (hier etwa {fixed} pro "
              "Aufruf, gemessen bei n = {smallest}): JAX prüft die Argumente, findet das kompilierte Programm und "
              "schickt es ans Gerät, egal wie groß. Ein so kleiner Kernel kann das nicht wettmachen; NumPy ruft "
              "seine Schleife direkt auf.",
        "zh": "在 n = {sizes} 时，一次 jit 调用的开销几乎只有固定开销（这里每次约 {fixed}，在 n = {smallest} "
              "时测得）：无论大小，JAX 都要检查参数、找到编译好的程序并把它分派到设备上。这么小的 kernel "
              "无法摊薄这部分开销；NumPy 则直接调用它的循环。",
    },
    "jit.compute": {
        "en": "At n = {sizes} the time is well above that fixed cost, so it is not dispatch: the compiled kernel "
              "itself ran slower than NumPy's loops at this size, on this device.",
        "de": "Bei n = {sizes} liegt die Zeit deutlich über diesen festen Kosten, es liegt also nicht am Dispatch: "
              "Der kompilierte Kernel selbst lief bei dieser Größe auf diesem Gerät langsamer als NumPys Schleifen.",
        "zh": "在 n = {sizes} 时，耗时远高于那部分固定开销，所以不是分派的问题：在这个大小、这台设备上，"
              "编译后的 kernel 本身就比 NumPy 的循环慢。",
    },
    "jit.nothing": {"en": "No size was measured for all engines, so there is nothing to compare.",
                    "de": "Keine Größe wurde für alle Varianten gemessen, also gibt es nichts zu vergleichen.",
                    "zh": "没有任何一个大小在所有方式下都测量过，所以无从比较。"},
    "jit.faults": {
        "en": "**Fresh memory:** a page fault is the system handing the process a fresh 4 KB page and zeroing it. At "
              "n = {n} each NumPy call here took **{numpy}** of them, each jit call **{jit}**. Arrays of more than "
              "32 MB go back to the system when they are freed and come fresh on the next call, in a script of yours "
              "as here, so their time includes that.",
        "de": "**Frischer Speicher:** Bei einem Seitenfehler gibt das System dem Prozess frischen Speicher (4 KB) "
              "und nullt ihn. Bei n = {n} kostete hier jeder NumPy-Aufruf **{numpy}** Seitenfehler, jeder "
              "jit-Aufruf **{jit}**. Arrays über 32 MB gehen beim Freigeben an das System zurück und kommen beim "
              "nächsten Aufruf frisch, in einem eigenen Skript wie hier; ihre Zeit enthält das.",
        "zh": "**新内存：** 缺页是指系统给进程一页新的 4 KB 内存并清零。在 n = {n} 时，这里每次 NumPy 调用产生 "
              "**{numpy}** 次缺页，每次 jit 调用 **{jit}** 次。大于 32 MB 的数组在释放时交还给系统，"
              "下一次调用时重新获取，你自己的脚本里也是如此，所以它们的时间包含这部分开销。"},
    "jit.busy": {
        "en": "**A busy machine:** other processes kept up to **{share} %** of this machine's processors busy while "
              "these calls were timed, so the times, and the ratios between them, are not what a quiet machine "
              "gives. Measure again when it is quieter.",
        "de": "**Ein ausgelasteter Rechner:** Andere Prozesse belegten bis zu **{share} %** der Prozessoren dieses "
              "Rechners, während diese Aufrufe gemessen wurden; die Zeiten und ihre Verhältnisse sind daher nicht "
              "die eines ruhigen Rechners. Miss noch einmal, wenn er ruhiger ist.",
        "zh": "**机器繁忙：** 计时期间，其他进程占用了本机最多 **{share} %** 的处理器，因此这些时间及其比值不是空闲机器"
              "上的结果。请在机器较空闲时再测一次。"},
    "jit.skipped": {"en": "Size {size} skipped: {reason}", "de": "Größe {size} übersprungen: {reason}",
                    "zh": "跳过大小 {size}：{reason}"},
    "jit.compile_time": {"en": "**Compile time (once per shape):** {row}",
                         "de": "**Kompilierzeit (einmal pro Shape):** {row}",
                         "zh": "**编译时间（每个 shape 一次）：** {row}"},
    # The About summary: our labels; the details the API reports stay as it wrote them.
    "about.head": {
        "en": "**Backend:** {backend}  \n**Devices:** {devices}  \n**Versions:** {versions}",
        "de": "**Backend:** {backend}  \n**Geräte:** {devices}  \n**Versionen:** {versions}",
        "zh": "**后端：** {backend}  \n**设备：** {devices}  \n**版本：** {versions}",
    },
    "about.local_mode": {
        "en": "**Local mode: your code runs on your machine with process isolation only — do not expose it "
              "publicly.** Each job is a fresh Python process, watched and stopped at its limits, but it runs as "
              "you and can read your files.",
        "de": "**Lokaler Modus: Dein Code läuft auf deinem Rechner, nur durch Prozesse getrennt — mach ihn nicht "
              "öffentlich erreichbar.** Jeder Job ist ein frischer Python-Prozess, überwacht und an seinen Grenzen "
              "gestoppt, aber er läuft als du und kann deine Dateien lesen.",
        "zh": "**本地模式：你的代码在你自己的电脑上运行，仅靠进程隔离——不要把它公开暴露。**每个作业都是一个全新的 "
              "Python 进程，受监控并在超出限制时被停止，但它以你的身份运行，可以读取你的文件。"},
    "about.unknown": {"en": "unknown", "de": "unbekannt", "zh": "未知"},
    "about.no_devices": {"en": "unknown (no worker answered)", "de": "unbekannt (kein Worker hat geantwortet)",
                         "zh": "未知（没有工作进程回应）"},
    "about.not_installed": {"en": "not installed", "de": "nicht installiert", "zh": "未安装"},
    "about.bounds": {"en": "### What bounds each job\n| resource | state | how |",
                     "de": "### Was jeden Job begrenzt\n| Ressource | Zustand | wie |",
                     "zh": "### 每个作业受什么限制\n| 资源 | 状态 | 方式 |"},
    "about.layers": {"en": "### Sandbox layers\n| layer | state | detail |",
                     "de": "### Schichten der Sandbox\n| Schicht | Zustand | Einzelheiten |",
                     "zh": "### 沙箱层\n| 层 | 状态 | 详情 |"},
    "about.active": {"en": "active", "de": "aktiv", "zh": "已启用"},
    "about.not_active": {"en": "not active", "de": "nicht aktiv", "zh": "未启用"},
    "about.bounded": {"en": "bounded", "de": "begrenzt", "zh": "有限制"},
    "about.partly": {"en": "partly", "de": "teilweise", "zh": "部分"},
    "about.queue": {"en": "**Jobs at once:** {concurrency}, **waiting at most:** {waiting}",
                    "de": "**Jobs gleichzeitig:** {concurrency}, **höchstens wartend:** {waiting}",
                    "zh": "**同时运行的作业：** {concurrency}，**最多等待：** {waiting}"},
    "about.no_cache": {"en": "**Results of identical jobs:** not kept (PLAYGROUND_RESULT_CACHE=0): every job runs.",
                       "de": "**Ergebnisse gleicher Jobs:** nicht aufbewahrt (PLAYGROUND_RESULT_CACHE=0): Jeder Job "
                             "läuft.",
                       "zh": "**相同作业的结果：** 不保留（PLAYGROUND_RESULT_CACHE=0）：每个作业都会运行。"},
    "about.cache": {"en": "**Results of identical jobs:** {entries} kept (at most {max_entries}, {mb} MB); {hits} "
                          "requests answered from them.",
                    "de": "**Ergebnisse gleicher Jobs:** {entries} aufbewahrt (höchstens {max_entries}, {mb} MB); "
                          "{hits} Anfragen damit beantwortet.",
                    "zh": "**相同作业的结果：** 保留了 {entries} 个（最多 {max_entries} 个，{mb} MB）；已用它们回答 "
                          "{hits} 个请求。"},
    "about.graphs": {"en": "**Graphs (Compiler tab):** drawn by Graphviz ({renderer}).",
                     "de": "**Graphen (Compiler-Tab):** gezeichnet von Graphviz ({renderer}).",
                     "zh": "**图（Compiler 标签页）：** 由 Graphviz（{renderer}）绘制。"},
    "about.no_graphs": {"en": "**Graphs (Compiler tab):** {warning} not drawn: {missing}",
                        "de": "**Graphen (Compiler-Tab):** {warning} nicht gezeichnet: {missing}",
                        "zh": "**图（Compiler 标签页）：** {warning} 无法绘制：{missing}"},
    "about.no_accelerator": {"en": "### Accelerator\nNone in use: {why}.", "de": "### Beschleuniger\nKeiner in "
                             "Gebrauch: {why}.", "zh": "### 加速器\n未使用：{why}。"},
    "about.cpu_only": {"en": "every job runs on the CPU", "de": "jeder Job läuft auf der CPU",
                       "zh": "所有作业都在 CPU 上运行"},
    "about.accelerator": {
        "en": "### Accelerator\n**{device}** ({why}).",
        "de": "### Beschleuniger\n**{device}** ({why}).",
        "zh": "### 加速器\n**{device}**（{why}）。"},
    "accelerator.unavailable": {
        "en": "the {device} could not be opened inside the sandbox: {reason}",
        "de": "{device} ließ sich in der Sandbox nicht öffnen: {reason}",
        "zh": "无法在沙箱内打开 {device}：{reason}"},
    "accelerator.measured_on_cpu": {
        "en": "**Measured on the CPU**, not the accelerator: {why}.",
        "de": "**Auf der CPU gemessen**, nicht auf dem Beschleuniger: {why}.",
        "zh": "**在 CPU 上测量**，而不是在加速器上：{why}。"},
    "about.owner": {
        "en": "### Device owner\n**{device}** is held by one long-lived process (pid {pid}), the only one that opens "
              "it. It runs the jobs of {kinds}, one at a time, and the training runs; {elsewhere} compute in the "
              "sandbox's CPU workers. No user code runs in it: the sandbox's "
              "CPU workers run your code and send it what they lowered with jax.export, and it checks each program "
              "before it compiles it (only pure computations: no host callbacks, only the custom calls jax.export "
              "treats as stable).  \n**Its layers:** {layers}  \n**Its memory:** {resident} MB of its {limit} MB "
              "(the device's own mappings left out); **restarts:** {restarts}{last}",
        "de": "### Gerätebesitzer\n**{device}** gehört einem langlebigen Prozess (PID {pid}), dem einzigen, der es "
              "öffnet. Er führt die Jobs von {kinds} aus, einen nach dem anderen, und die Trainingsläufe; {elsewhere} "
              "rechnen in den CPU-Workern der Sandbox. In ihm läuft kein "
              "Code von Nutzern: Die CPU-Worker der Sandbox führen deinen Code aus und schicken ihm, was sie mit "
              "jax.export heruntergebrochen haben, und er prüft jedes Programm, bevor er es kompiliert (nur reine "
              "Berechnungen: keine Host-Callbacks, nur die Custom Calls, die jax.export als stabil behandelt).  \n"
              "**Seine Schichten:** {layers}  \n**Sein Speicher:** {resident} MB von {limit} MB (ohne die "
              "Abbildungen des Geräts); **Neustarts:** {restarts}{last}",
        "zh": "### 设备所有者\n**{device}** 由一个长期运行的进程（pid {pid}）持有，它是唯一打开该设备的进程。"
              "它逐个运行 {kinds} 的作业以及训练任务；{elsewhere} 在沙箱的 CPU 工作进程中计算。"
              "其中不运行任何用户代码：沙箱的 CPU 工作进程运行你的代码，"
              "并把用 jax.export 降级后的程序发给它；它在编译前检查每个程序"
              "（只接受纯计算：没有主机回调，只允许 jax.export 视为稳定的自定义调用）。"
              "  \n**其安全层：** {layers}  \n**其内存：** {resident} MB / {limit} MB"
              "（不计设备自身的映射）；**重启次数：** {restarts}{last}"},
    "about.no_tab": {"en": "no tab", "de": "keinem Tab", "zh": "无标签页"},
    "about.when_asked": {"en": " (when asked)", "de": " (auf Wunsch)", "zh": "（按需）"},
    "about.owner_last_end": {"en": " (the last: {why})", "de": " (der letzte: {why})", "zh": "（上一次：{why}）"},
    "about.pool_backend": {
        "en": "**What each pool's warm workers opened:** {pools}",
        "de": "**Was die bereiten Worker jedes Pools geöffnet haben:** {pools}",
        "zh": "**每个池中预热的工作进程实际打开的设备：** {pools}"},
    "about.grants": {
        "en": "  \n**What its driver needed beyond its device files** (found at start-up, for the owner only): "
              "{grants}",
        "de": "  \n**Was sein Treiber über die Gerätedateien hinaus brauchte** (beim Start ermittelt, nur für den "
              "Gerätebesitzer): {grants}",
        "zh": "  \n**其驱动在设备文件之外还需要的权限**（启动时确定，仅授予设备所有者）：{grants}"},
    "about.compile_cache_on": {
        "en": "  \n**Its compilation cache:** {detail}: the training's compiled programs, kept for later runs and "
              "owners (the programs jobs send are compiled each time)",
        "de": "  \n**Sein Kompilier-Cache:** {detail}: die kompilierten Programme des Trainings, aufbewahrt für "
              "spätere Läufe und Besitzerprozesse (die Programme der Jobs werden jedes Mal kompiliert)",
        "zh": "  \n**它的编译缓存：** {detail}：训练的已编译程序，留给之后的训练和所有者进程使用"
              "（作业发来的程序每次都重新编译）"},
    "about.compile_cache_off": {
        "en": "  \n**Its compilation cache is off:** {detail}; every training run compiles its programs",
        "de": "  \n**Sein Kompilier-Cache ist aus:** {detail}; jeder Trainingslauf kompiliert seine Programme",
        "zh": "  \n**它的编译缓存已关闭：** {detail}；每次训练都要编译其程序"},
    "about.training": {
        "en": "### Training\n**Runs at once:** {slots} (one per accelerator), **running:** {running}, **waiting:** "
              "{waiting}, **stopped after:** {max_run_s} s  \n{process}",
        "de": "### Training\n**Läufe gleichzeitig:** {slots} (einer pro Beschleuniger), **laufend:** {running}, "
              "**wartend:** {waiting}, **gestoppt nach:** {max_run_s} s  \n{process}",
        "zh": "### 训练\n**同时运行：** {slots}（每个加速器一个），**运行中：** {running}，**等待中：** {waiting}，"
              "**运行上限：** {max_run_s} 秒  \n{process}",
    },
}
