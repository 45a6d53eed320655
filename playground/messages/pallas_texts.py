"""The Pallas job's words: the lessons for a kernel's mistakes, and what it asks of the code."""

from __future__ import annotations

TEXTS = {
    # Lessons (worker/lessons/pallas_lessons.py): JAX's error, read as a kernel writer's mistake.
    "lesson.pallas_slice.title": {
        "en": "a kernel reads or writes past the end of its block",
        "de": "ein Kernel liest oder schreibt über das Ende seines Blocks hinaus",
        "zh": "kernel 读写超出了它的块"},
    "lesson.pallas_slice.what": {
        "en": "Inside a kernel a ref is the block of its array that the BlockSpec gives this program instance, not the "
              "whole array: a slice from {start} of {size} elements goes past that block's {dim} along one axis.",
        "de": "In einem Kernel ist eine Ref der Block ihres Arrays, den die BlockSpec dieser Programminstanz gibt, "
              "nicht das ganze Array: Ein Ausschnitt ab {start} mit {size} Elementen geht entlang einer Achse über "
              "die {dim} des Blocks hinaus.",
        "zh": "在 kernel 中，ref 是 BlockSpec 分给当前程序实例的那一块，而不是整个数组："
              "从 {start} 开始取 {size} 个元素的切片，在某个轴上超出了该块的 {dim} 个元素。"},
    "lfix.pallas_slice": {
        "en": "{where} slices a ref past its block. Index it within its block shape (`x_ref[...]` is the whole "
              "block), or make the block larger in its `pl.BlockSpec`, and let the grid and the `index_map` choose "
              "which part of the array each instance sees.",
        "de": "{where} schneidet eine Ref über ihren Block hinaus. Indiziere innerhalb der Block-Shape (`x_ref[...]` "
              "ist der ganze Block) oder mach den Block in seiner `pl.BlockSpec` größer, und lass Grid und "
              "`index_map` wählen, welchen Teil des Arrays jede Instanz sieht.",
        "zh": "{where}对 ref 的切片超出了它的块。请在块的 shape 内索引（`x_ref[...]` 就是整个块），或在 `pl.BlockSpec` "
              "中把块设大一些，并让 grid 和 `index_map` 决定每个实例看到数组的哪一部分。"},
    "lesson.pallas_write.title": {
        "en": "a kernel writes a value that does not fit its output block",
        "de": "ein Kernel schreibt einen Wert, der nicht in seinen Ausgabeblock passt",
        "zh": "kernel 写入的值与输出块不符"},
    "lesson.pallas_write.what": {
        "en": "The output ref holds {ref} (its block, as `out_shape` and `out_specs` make it), and the kernel stores "
              "{value} into it.",
        "de": "Die Ausgabe-Ref hat {ref} (ihren Block, wie `out_shape` und `out_specs` ihn machen), und der Kernel "
              "speichert {value} hinein.",
        "zh": "输出 ref 是 {ref}（由 `out_shape` 和 `out_specs` 决定的块），而 kernel 往里存的是 {value}。"},
    "lfix.pallas_write": {
        "en": "{where} stores into the output ref. Give `out_shape` the shape and dtype of the whole result "
              "(`jax.ShapeDtypeStruct(x.shape, x.dtype)` for an elementwise kernel), and the output's BlockSpec the "
              "same block shape as the value the kernel computes; cast with `.astype(o_ref.dtype)` where the dtypes "
              "differ.",
        "de": "{where} speichert in die Ausgabe-Ref. Gib `out_shape` Shape und dtype des ganzen Ergebnisses "
              "(`jax.ShapeDtypeStruct(x.shape, x.dtype)` bei einem elementweisen Kernel) und der BlockSpec der Ausgabe "
              "dieselbe Block-Shape wie der Wert, den der Kernel berechnet; wandle mit `.astype(o_ref.dtype)` um, wo "
              "die dtypes sich unterscheiden.",
        "zh": "{where}向输出 ref 写入。请给 `out_shape` 整个结果的 shape 和 dtype（逐元素 kernel 用 "
              "`jax.ShapeDtypeStruct(x.shape, x.dtype)`），并让输出的 BlockSpec 与 kernel 算出的值有相同的块 shape；"
              "dtype 不同时用 `.astype(o_ref.dtype)` 转换。"},
    "lesson.pallas_ref_escaped.title": {
        "en": "a kernel's ref is used outside the kernel",
        "de": "die Ref eines Kernels wird außerhalb des Kernels benutzt",
        "zh": "在 kernel 之外使用了 kernel 的 ref"},
    "lesson.pallas_ref_escaped.what": {
        "en": "A ref exists only while its kernel runs: it is a window onto a block in the chip's fast memory. Kept "
              "in a list or a global and read later, it is a leaked tracer.",
        "de": "Eine Ref existiert nur, solange ihr Kernel läuft: Sie ist ein Fenster auf einen Block im schnellen "
              "Speicher des Chips. In einer Liste oder globalen Variable aufbewahrt und später gelesen, ist sie ein "
              "entkommener Tracer.",
        "zh": "ref 只在它的 kernel 运行时存在：它是芯片快速内存中一个块的窗口。把它存在列表或全局变量里以后再读，"
              "就成了泄漏的 tracer。"},
    "lfix.pallas_ref_escaped": {
        "en": "{where} reads a ref after its kernel ended. Read it inside the kernel and write what you need to an "
              "output ref: whatever the kernel's caller uses must come back as an output of `pl.pallas_call`.",
        "de": "{where} liest eine Ref, nachdem ihr Kernel geendet hat. Lies sie im Kernel und schreib, was du "
              "brauchst, in eine Ausgabe-Ref: Alles, was der Aufrufer des Kernels benutzt, muss als Ausgabe von "
              "`pl.pallas_call` zurückkommen.",
        "zh": "{where}在 kernel 结束后读取了 ref。请在 kernel 里读取它，并把需要的值写到输出 ref："
              "kernel 的调用者要用的一切都必须作为 `pl.pallas_call` 的输出返回。"},
    "lesson.pallas_block_outside.title": {
        "en": "an index map points to a block outside its array",
        "de": "eine Index-Map zeigt auf einen Block außerhalb ihres Arrays",
        "zh": "index map 指向了数组之外的块"},
    "lesson.pallas_block_outside.what": {
        "en": "At grid point {point} the BlockSpec of {ref} maps to block {block}, which starts past the end of its "
              "array: the `index_map` returns block numbers (not element offsets), from 0 up to the array's size "
              "divided by the block's.",
        "de": "Am Grid-Punkt {point} bildet die BlockSpec von {ref} auf den Block {block} ab, der hinter dem Ende "
              "seines Arrays beginnt: Die `index_map` gibt Blocknummern zurück (keine Element-Offsets), von 0 bis zur "
              "Größe des Arrays geteilt durch die des Blocks.",
        "zh": "在 grid 点 {point}，{ref} 的 BlockSpec 映射到块 {block}，它从数组末尾之后开始：`index_map` "
              "返回的是块编号（不是元素偏移），从 0 到数组大小除以块大小。"},
    "lfix.pallas_block_outside": {
        "en": "{where} runs the kernel over a grid larger than the blocks its arrays hold. Make the grid "
              "`(pl.cdiv(n, block),)` along each axis, and have the `index_map` return the grid index itself "
              "(`lambda i: (i, 0)`), not `i * block` or `i + 1`.",
        "de": "{where} lässt den Kernel über ein Grid laufen, das größer ist als die Blöcke seiner Arrays. Mach das "
              "Grid entlang jeder Achse zu `(pl.cdiv(n, block),)` und lass die `index_map` den Grid-Index selbst "
              "zurückgeben (`lambda i: (i, 0)`), nicht `i * block` oder `i + 1`.",
        "zh": "{where}让 kernel 在比数组块数更大的 grid 上运行。请让每个轴上的 grid 为 `(pl.cdiv(n, block),)`，"
              "并让 `index_map` 直接返回 grid 索引（`lambda i: (i, 0)`），而不是 `i * block` 或 `i + 1`。"},
    "lesson.pallas_revisited.title": {
        "en": "a kernel writes an output block again after other blocks",
        "de": "ein Kernel schreibt einen Ausgabeblock nach anderen Blöcken noch einmal",
        "zh": "kernel 在写过其他块之后又写了同一个输出块"},
    "lesson.pallas_revisited.what": {
        "en": "On a TPU an output block stays in fast memory while consecutive grid points write it, and goes back "
              "to the array when the next block comes: output {output}'s block, written at grid point {first}, comes "
              "back at {again}, and that later write would replace the first.",
        "de": "Auf einer TPU bleibt ein Ausgabeblock im schnellen Speicher, solange aufeinanderfolgende Grid-Punkte "
              "ihn schreiben, und geht zurück ins Array, wenn der nächste Block kommt: Der Block von Ausgabe "
              "{output}, am Grid-Punkt {first} geschrieben, kommt an {again} wieder, und dieses spätere Schreiben "
              "würde das erste ersetzen.",
        "zh": "在 TPU 上，连续的 grid 点写同一个输出块时，它留在快速内存中；下一个块到来时，它被写回数组："
              "输出 {output} 的块在 grid 点 {first} 写入，又在 {again} 再次出现，后一次写入会覆盖前一次。"},
    "lfix.pallas_revisited": {
        "en": "{where} maps two grid points that are not next to each other to the same output block. Give each "
              "output block its own grid point through the output's `index_map`; to add up into a block (a "
              "reduction), put that axis last in the grid, so its steps come one after the other.",
        "de": "{where} bildet zwei Grid-Punkte, die nicht aufeinander folgen, auf denselben Ausgabeblock ab. Gib "
              "jedem Ausgabeblock über die `index_map` der Ausgabe seinen eigenen Grid-Punkt; um in einen Block zu "
              "summieren (eine Reduktion), setz diese Achse ans Ende des Grids, damit ihre Schritte aufeinander "
              "folgen.",
        "zh": "{where}把两个不相邻的 grid 点映射到同一个输出块。请通过输出的 `index_map` 让每个输出块有自己的 grid "
              "点；要在一个块里累加（归约），请把这个轴放在 grid 的最后，让它的步骤一个接一个。"},
    # The job's own refusals.
    "pallas.no_call": {
        "en": "`{function}` calls no `pl.pallas_call`: the Pallas job runs a kernel. Write the kernel, then call it "
              "from `{function}` with `pl.pallas_call(kernel, out_shape=...)(x)`.",
        "de": "`{function}` ruft kein `pl.pallas_call` auf: Der Pallas-Job führt einen Kernel aus. Schreib den "
              "Kernel und ruf ihn dann in `{function}` mit `pl.pallas_call(kernel, out_shape=...)(x)` auf.",
        "zh": "`{function}` 没有调用 `pl.pallas_call`：Pallas 作业运行的是 kernel。请先写 kernel，再在 `{function}` "
              "中用 `pl.pallas_call(kernel, out_shape=...)(x)` 调用它。"},
    "pallas.no_reference": {
        "en": "Define `def reference(...)`: the same computation in plain `jnp`, with `{function}`'s arguments. The "
              "kernel's result is checked against it.",
        "de": "Definiere `def reference(...)`: dieselbe Rechnung in einfachem `jnp`, mit den Argumenten von "
              "`{function}`. Das Ergebnis des Kernels wird damit verglichen.",
        "zh": "请定义 `def reference(...)`：用普通 `jnp` 写的同一计算，参数与 `{function}` 相同。"
              "kernel 的结果会与它对照。"},
}
