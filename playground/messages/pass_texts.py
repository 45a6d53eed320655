"""One plain sentence for each XLA pass a learner should know (server/compiler/pass_notes.py), and for the families
the others belong to, by the words in their names: "pass.<name>" and "pass.family.<family>"."""

from __future__ import annotations

TEXTS = {
    "pass.fusion": {
        "en": "Fusion: merges elementwise operations and their producers into one loop (one kernel), so intermediate "
              "results stay in registers instead of going through memory.",
        "de": "Fusion: verschmilzt elementweise Operationen und ihre Erzeuger zu einer Schleife (einem Kernel), sodass "
              "Zwischenergebnisse in Registern bleiben, statt durch den Speicher zu gehen.",
        "zh": "融合：把逐元素运算及其上游运算合并成一个循环（一个 kernel），中间结果留在寄存器里，不必经过内存。"},
    "pass.priority-fusion": {
        "en": "Fusion on a GPU: merges producers into consumers in order of benefit, guided by a cost model of memory "
              "traffic and kernel launches.",
        "de": "Fusion auf einer GPU: verschmilzt Erzeuger mit Verbrauchern nach Nutzen geordnet, geleitet von einem "
              "Kostenmodell für Speicherverkehr und Kernel-Starts.",
        "zh": "GPU 上的融合：按收益顺序把上游运算并入下游运算，依据内存流量和 kernel 启动次数的代价模型。"},
    "pass.multi_output_fusion": {
        "en": "Multi-output fusion: merges sibling loops that read the same inputs into one kernel with several "
              "outputs, reading the inputs once.",
        "de": "Fusion mit mehreren Ausgaben: verschmilzt Geschwister-Schleifen, die dieselben Eingaben lesen, zu "
              "einem Kernel mit mehreren Ausgaben, der die Eingaben einmal liest.",
        "zh": "多输出融合：把读取相同输入的并列循环合并成一个有多个输出的 kernel，输入只读一次。"},
    "pass.horizontal-loop-fusion": {
        "en": "Horizontal fusion: launches several small independent kernels as one, saving kernel launches on a GPU.",
        "de": "Horizontale Fusion: startet mehrere kleine unabhängige Kernels als einen und spart auf einer GPU "
              "Kernel-Starts.",
        "zh": "水平融合：把几个互不依赖的小 kernel 作为一个启动，在 GPU 上节省 kernel 启动。"},
    "pass.fusion-wrapper": {
        "en": "Wraps each operation left unfused into a fusion of its own, so that every kernel is emitted the same "
              "way.",
        "de": "Packt jede nicht verschmolzene Operation in eine eigene Fusion, damit jeder Kernel auf dieselbe Weise "
              "erzeugt wird.",
        "zh": "把每个未被融合的运算单独包成一个融合，使每个 kernel 都以同样的方式生成。"},
    "pass.cse": {
        "en": "Common subexpression elimination: computes an operation that appears twice with the same inputs once "
              "(x*x in x + x*x + x*x*x).",
        "de": "Eliminierung gemeinsamer Teilausdrücke: berechnet eine Operation, die zweimal mit denselben Eingaben "
              "vorkommt, nur einmal (x*x in x + x*x + x*x*x).",
        "zh": "公共子表达式消除：输入相同、出现两次的运算只计算一次（x + x*x + x*x*x 中的 x*x）。"},
    "pass.algsimp": {
        "en": "Algebraic simplification: rewrites with algebra's rules (x*1 -> x, a reshape of a reshape -> one "
              "reshape, a transpose into a dot's operand).",
        "de": "Algebraische Vereinfachung: formt mit den Regeln der Algebra um (x*1 -> x, ein Reshape eines "
              "Reshapes -> ein Reshape, eine Transposition in den Operanden eines Dot).",
        "zh": "代数化简：按代数规则改写（x*1 -> x，两次 reshape -> 一次 reshape，把转置并入 dot 的操作数）。"},
    "pass.constant_folding": {
        "en": "Constant folding: computes at compile time what depends only on constants.",
        "de": "Konstantenfaltung: berechnet beim Kompilieren, was nur von Konstanten abhängt.",
        "zh": "常量折叠：在编译时计算只依赖常量的部分。"},
    "pass.dce": {
        "en": "Dead code elimination: removes operations whose results nothing uses.",
        "de": "Entfernung toten Codes: entfernt Operationen, deren Ergebnisse nichts verwendet.",
        "zh": "死代码消除：删除结果无人使用的运算。"},
    "pass.layout-assignment": {
        "en": "Layout assignment: chooses how each array lies in memory (which dimension is contiguous), shown as "
              "{{1,0}} after each shape.",
        "de": "Layout-Zuweisung: wählt, wie jedes Array im Speicher liegt (welche Dimension zusammenhängend ist), "
              "zu sehen als {{1,0}} nach jeder Shape.",
        "zh": "布局分配：选择每个数组在内存中的排布（哪一维连续），显示为每个 shape 后的 {{1,0}}。"},
    "pass.copy-insertion": {
        "en": "Copy insertion: adds the copies needed so that no buffer is overwritten while still in use, e.g. a "
              "loop's state or an output that is also an input.",
        "de": "Kopien einfügen: fügt die nötigen Kopien ein, damit kein Puffer überschrieben wird, solange er noch "
              "gebraucht wird, etwa der Zustand einer Schleife oder eine Ausgabe, die auch Eingabe ist.",
        "zh": "插入拷贝：加入必要的拷贝，使仍在使用的缓冲区不会被覆盖，例如循环状态或同时作为输入的输出。"},
    "pass.simplification": {
        "en": "The simplification pipeline: algebraic simplification, dead code elimination and friends, run again "
              "and again until nothing changes.",
        "de": "Die Vereinfachungs-Pipeline: algebraische Vereinfachung, Entfernung toten Codes und Verwandte, immer "
              "wieder ausgeführt, bis sich nichts mehr ändert.",
        "zh": "化简流水线：代数化简、死代码消除等，反复运行直到不再有变化。"},
    "pass.tuple-simplifier": {
        "en": "Removes tuples that are built only to be taken apart again.",
        "de": "Entfernt Tupel, die nur gebaut werden, um wieder zerlegt zu werden.",
        "zh": "删除只为再次拆开而构造的元组。"},
    "pass.reshape-mover": {
        "en": "Moves reshapes and transposes past elementwise operations, so that fewer of them remain.",
        "de": "Schiebt Reshapes und Transpositionen an elementweisen Operationen vorbei, sodass weniger übrig bleiben.",
        "zh": "把 reshape 和转置移过逐元素运算，使它们的数量减少。"},
    "pass.call-inliner": {
        "en": "Inlines called computations (a nested jit becomes part of the program around it).",
        "de": "Setzt aufgerufene Berechnungen ein (ein verschachteltes jit wird Teil des umgebenden Programms).",
        "zh": "内联被调用的计算（嵌套的 jit 成为外层程序的一部分）。"},
    "pass.flatten-call-graph": {
        "en": "Gives each call site a computation of its own, so that later passes may change one without the "
              "others.",
        "de": "Gibt jeder Aufrufstelle eine eigene Berechnung, damit spätere Durchläufe eine ändern können, ohne die "
              "anderen.",
        "zh": "让每个调用点拥有自己的计算，使后续 pass 可以只修改其中一个。"},
    "pass.while-loop-invariant-code-motion": {
        "en": "Moves work that is the same in every iteration of a while loop out of the loop.",
        "de": "Zieht Arbeit, die in jeder Iteration einer while-Schleife gleich ist, aus der Schleife heraus.",
        "zh": "把 while 循环中每次迭代都相同的计算移到循环之外。"},
    "pass.while-loop-simplifier": {
        "en": "Removes loops that run zero or one times, and loop state that is never used.",
        "de": "Entfernt Schleifen, die null- oder einmal laufen, und Schleifenzustand, der nie verwendet wird.",
        "zh": "删除运行零次或一次的循环，以及从未使用的循环状态。"},
    "pass.conditional-simplifier": {
        "en": "Replaces a conditional whose predicate is a constant with the branch it takes.",
        "de": "Ersetzt eine Bedingung mit konstantem Prädikat durch den Zweig, den sie nimmt.",
        "zh": "把谓词为常量的条件语句替换为它所走的分支。"},
    "pass.dot_decomposer": {
        "en": "Rewrites dot products into the canonical form the backends implement (batch, contracting and free "
              "dimensions in a fixed order).",
        "de": "Formt Skalarprodukte in die kanonische Form um, die die Backends umsetzen (Batch-, Kontraktions- und "
              "freie Dimensionen in fester Reihenfolge).",
        "zh": "把 dot 运算改写成后端实现的规范形式（batch 维、收缩维和自由维按固定顺序）。"},
    "pass.transpose-folding": {
        "en": "Folds a transpose into the dot or convolution that uses it: the kernel reads the operand transposed, "
              "no copy is made.",
        "de": "Faltet eine Transposition in das Dot oder die Faltung, die sie nutzt: Der Kernel liest den Operanden "
              "transponiert, es entsteht keine Kopie.",
        "zh": "把转置并入使用它的 dot 或卷积：kernel 直接按转置方式读取操作数，不产生拷贝。"},
    "pass.cpu-parallel-task-assigner": {
        "en": "On a CPU: decides which large operations are split across several threads.",
        "de": "Auf einer CPU: entscheidet, welche großen Operationen auf mehrere Threads verteilt werden.",
        "zh": "在 CPU 上：决定哪些大型运算拆分到多个线程执行。"},
    "pass.gemm-rewriter": {
        "en": "On a GPU: turns dot products into calls of cuBLAS's matrix multiplication (a custom-call).",
        "de": "Auf einer GPU: macht aus Skalarprodukten Aufrufe der Matrixmultiplikation von cuBLAS (ein "
              "custom-call).",
        "zh": "在 GPU 上：把 dot 运算变成对 cuBLAS 矩阵乘法的调用（一个 custom-call）。"},
    "pass.gemm-fusion": {
        "en": "On a GPU: fuses a dot product with the operations around it into one Triton kernel.",
        "de": "Auf einer GPU: verschmilzt ein Skalarprodukt mit den Operationen drumherum zu einem Triton-Kernel.",
        "zh": "在 GPU 上：把 dot 运算与周围的运算融合成一个 Triton kernel。"},
    "pass.command-buffer-scheduling": {
        "en": "On a GPU: records sequences of kernels as CUDA graphs, launched at once.",
        "de": "Auf einer GPU: zeichnet Folgen von Kernels als CUDA-Graphen auf, die auf einmal gestartet werden.",
        "zh": "在 GPU 上：把一串 kernel 记录成 CUDA graph，一次性启动。"},
    "pass.sort-rewriter": {
        "en": "On a GPU: replaces large sorts with a call of CUB's radix sort.",
        "de": "Auf einer GPU: ersetzt große Sortierungen durch einen Aufruf von CUBs Radix-Sort.",
        "zh": "在 GPU 上：把大型排序替换为对 CUB 基数排序的调用。"},
    "pass.scheduling": {
        "en": "Chooses the order in which the operations run, to keep the memory alive at once small.",
        "de": "Wählt die Reihenfolge, in der die Operationen laufen, damit wenig Speicher zugleich belegt ist.",
        "zh": "选择运算的执行顺序，使同时占用的内存尽量少。"},
    "pass.apply-xla-transforms": {
        "en": "Applies the transformations that a program embedding XLA registered for this stage of the pipeline "
              "(before or after scheduling); JAX registers none, so it changes nothing.",
        "de": "Wendet die Umformungen an, die ein Programm, das XLA einbettet, für diese Stufe der Pipeline "
              "registriert hat (vor oder nach dem Scheduling); JAX registriert keine, also ändert er nichts.",
        "zh": "应用嵌入 XLA 的程序为流水线这一阶段（调度之前或之后）注册的变换；"
              "JAX 没有注册任何变换，所以它不做改动。"},
    # The families the other passes belong to, by a word in their names; {what}: the rest of the name, in words.
    "pass.family.expander": {
        "en": "Expands {what} into simpler operations the backend implements; a program without any is left as it "
              "was.",
        "de": "Zerlegt {what} in einfachere Operationen, die das Backend umsetzt; ein Programm ohne solche bleibt, "
              "wie es war.",
        "zh": "把 {what} 展开成后端实现的更简单运算；没有这类运算的程序保持不变。"},
    "pass.family.decomposer": {
        "en": "Decomposes {what} into simpler operations; a program without any is left as it was.",
        "de": "Zerlegt {what} in einfachere Operationen; ein Programm ohne solche bleibt, wie es war.",
        "zh": "把 {what} 分解成更简单的运算；没有这类运算的程序保持不变。"},
    "pass.family.simplifier": {
        "en": "Simplifies {what} where a simpler equivalent exists; a program without any is left as it was.",
        "de": "Vereinfacht {what}, wo es eine einfachere gleichwertige Form gibt; ein Programm ohne solche bleibt, "
              "wie es war.",
        "zh": "在存在更简单的等价形式时化简 {what}；没有这类运算的程序保持不变。"},
    "pass.family.rewriter": {
        "en": "Rewrites {what} into the form later passes or the backend handle.",
        "de": "Formt {what} in die Form um, die spätere Durchläufe oder das Backend verarbeiten.",
        "zh": "把 {what} 改写成后续 pass 或后端能处理的形式。"},
    "pass.family.canonicalizer": {
        "en": "Puts {what} into the one form the later passes expect.",
        "de": "Bringt {what} in die eine Form, die spätere Durchläufe erwarten.",
        "zh": "把 {what} 整理成后续 pass 期望的统一形式。"},
    "pass.family.normalization": {
        "en": "Rewrites arithmetic in {what}, a type this backend does not compute in, into one it does; a program "
              "without it is left as it was.",
        "de": "Formt Arithmetik in {what}, einem Typ, in dem dieses Backend nicht rechnet, in einen um, in dem es "
              "rechnet; ein Programm ohne sie bleibt, wie es war.",
        "zh": "把 {what}（此后端不直接计算的类型）中的运算改写成它能计算的类型；没有这类运算的程序保持不变。"},
    "pass.family.other": {
        "en": "One of XLA's own passes ({what}), not described here: the instruction count and its diff show what it "
              "did to this program.",
        "de": "Einer von XLAs eigenen Durchläufen ({what}), hier nicht beschrieben: Die Zahl der Anweisungen und "
              "sein Diff zeigen, was er mit diesem Programm gemacht hat.",
        "zh": "XLA 自身的一个 pass（{what}），这里没有说明：指令数和它的差异对比显示了它对本程序做了什么。"},
}
