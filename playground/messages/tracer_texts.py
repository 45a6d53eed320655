"""JAX's tracer errors explained, and their fixes, in en/de/zh (tracer_errors and tracer_fixes name the keys).

JAX terms (jit, tracer, static_argnums, ...) and code stay as they are; German uses "du".
"""

from __future__ import annotations

GOTCHAS_URL = "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html"
_G = GOTCHAS_URL

TEXTS: dict[str, dict[str, str]] = {
    "tracer.intro": {
        "en": "Under `jax.jit`, JAX does not run your function on your numbers: it calls it once with *tracers*, "
              "stand-ins that have a shape and a dtype{shape} but no value, and records what is done to them "
              "into a program that XLA compiles. ",
        "de": "Unter `jax.jit` führt JAX deine Funktion nicht mit deinen Zahlen aus: Es ruft sie einmal mit "
              "*Tracern* auf, Platzhaltern mit einer Shape und einem dtype{shape}, aber ohne Wert, und zeichnet auf, "
              "was mit ihnen geschieht, zu einem Programm, das XLA kompiliert. ",
        "zh": "在 `jax.jit` 下，JAX 不会用你的数值运行函数：它用 *tracer* 调用一次函数。tracer 是占位值，"
              "有 shape 和 dtype{shape}，但没有具体的值；JAX 记录对它们做的运算，组成一个由 XLA 编译的程序。",
    },
    # The tab put the jit there, not the user's code (staging.explained_error). The second follows a fix that may
    # end in a code block: it starts a paragraph of its own.
    "tracer.jitted_here": {
        "en": "Your code does not jit `{function}`: this tab does, to show the program XLA compiles from it. ",
        "de": "Dein Code jittet `{function}` nicht: dieser Tab tut es, um das Programm zu zeigen, das XLA daraus "
              "kompiliert. ",
        "zh": "你的代码并没有对 `{function}` 使用 jit：是这个标签页加上的，为了展示 XLA 由它编译出的程序。",
    },
    "tracer.without_jit": {
        "en": "\n\nWithout jit, your code is fine as it is: `jax.grad` alone runs `{function}` on real numbers, so "
              "Python's control flow sees values. The Derivatives tab differentiates it that way, point by point, "
              "where jit cannot trace it.",
        "de": "\n\nOhne jit ist dein Code so in Ordnung: `jax.grad` allein führt `{function}` mit echten Zahlen aus, "
              "also sieht Pythons Kontrollfluss Werte. Der Tab Ableitungen leitet sie so ab, Punkt für Punkt, wo "
              "jit sie nicht tracen kann.",
        "zh": "\n\n不用 jit 的话，你的代码本身没有问题：单独的 `jax.grad` 会用真实数值运行 `{function}`，"
              "所以 Python 的控制流看到的是具体的值。在 jit 无法追踪时，“导数”标签页就是这样逐点求导的。",
    },
    "tracer.here": {"en": " (here `{shape}`)", "de": " (hier `{shape}`)", "zh": "（这里是 `{shape}`）"},
    "tracer.TracerBoolConversionError.title": {
        "en": "Python needed True or False from a traced value",
        "de": "Python brauchte True oder False von einem getracten Wert",
        "zh": "Python 需要从被追踪的值得到 True 或 False",
    },
    "tracer.TracerBoolConversionError.what": {
        "en": "Your code asked Python for `True` or `False` from one of them (an `if`, `while`, `and`/`or`/`not`, "
              "`assert` or `bool()`), and a value that does not exist yet cannot pick a branch. Python control flow "
              "runs once, while tracing; control flow that depends on data must be written with JAX functions, "
              f"which put both branches (or the whole loop) into the compiled program. More: {_G}",
        "de": "Dein Code hat Python nach `True` oder `False` von einem davon gefragt (ein `if`, `while`, "
              "`and`/`or`/`not`, `assert` oder `bool()`), und ein Wert, den es noch nicht gibt, kann keinen Zweig "
              "wählen. Pythons Kontrollfluss läuft nur einmal, beim Tracen; Kontrollfluss, der von Daten abhängt, "
              "schreibst du mit JAX-Funktionen, die beide Zweige (oder die ganze Schleife) ins kompilierte Programm "
              f"aufnehmen. Mehr: {_G}",
        "zh": "你的代码让 Python 从其中一个 tracer 得到 `True` 或 `False`（`if`、`while`、`and`/`or`/`not`、"
              "`assert` 或 `bool()`），而一个还不存在的值无法选择分支。Python 的控制流只在追踪时运行一次；"
              f"依赖数据的控制流必须用 JAX 函数来写，它们会把两个分支（或整个循环）放进编译后的程序。更多：{_G}",
    },
    "tracer.TracerIntegerConversionError.title": {
        "en": "Python needed an int from a traced value",
        "de": "Python brauchte einen int von einem getracten Wert",
        "zh": "Python 需要从被追踪的值得到一个 int",
    },
    "tracer.TracerIntegerConversionError.what": {
        "en": "Python asked one of them for an integer: a `range()` bound, an index into a list or tuple, or a "
              "count. A tracer has no value, so it cannot be one. The loop or the index must either live inside the "
              f"compiled program (JAX loops, array indexing) or be a constant that is fixed when compiling. More: {_G}",
        "de": "Python hat einen davon nach einer ganzen Zahl gefragt: einer Grenze für `range()`, einem Index in "
              "eine Liste oder ein Tupel oder einer Anzahl. Ein Tracer hat keinen Wert, also kann er keine sein. Die "
              "Schleife oder der Index muss entweder im kompilierten Programm leben (JAX-Schleifen, Array-Indizes) "
              f"oder eine Konstante sein, die beim Kompilieren feststeht. Mehr: {_G}",
        "zh": "Python 向其中一个 tracer 要一个整数：`range()` 的边界、列表或元组的下标，或者一个计数。"
              "tracer 没有值，所以不能充当整数。循环或下标要么放在编译后的程序里（JAX 循环、数组索引），"
              f"要么是编译时就固定的常量。更多：{_G}",
    },
    "tracer.TracerArrayConversionError.title": {
        "en": "NumPy was given a traced value",
        "de": "NumPy hat einen getracten Wert bekommen",
        "zh": "NumPy 收到了一个被追踪的值",
    },
    "tracer.TracerArrayConversionError.what": {
        "en": "A NumPy function (or `np.asarray`/`np.array`) tried to turn one of them into a NumPy array. NumPy "
              "computes right away, on numbers in memory, and a tracer has none; `jax.numpy` functions record the "
              "operation into the program instead.",
        "de": "Eine NumPy-Funktion (oder `np.asarray`/`np.array`) wollte einen davon in ein NumPy-Array umwandeln. "
              "NumPy rechnet sofort, mit Zahlen im Speicher, und ein Tracer hat keine; `jax.numpy`-Funktionen "
              "zeichnen die Operation stattdessen ins Programm auf.",
        "zh": "一个 NumPy 函数（或 `np.asarray`/`np.array`）试图把其中一个 tracer 变成 NumPy 数组。NumPy "
              "会立刻用内存中的数值计算，而 tracer 没有数值；`jax.numpy` 函数则把运算记录进程序。",
    },
    "tracer.NonConcreteBooleanIndexError.title": {
        "en": "Boolean mask indexing needs a size known in advance",
        "de": "Indizieren mit einer booleschen Maske braucht eine vorher bekannte Größe",
        "zh": "布尔掩码索引需要事先知道大小",
    },
    "tracer.NonConcreteBooleanIndexError.what": {
        "en": "Indexing with a boolean mask, like `x[x > 0]`, returns as many elements as the mask has `True`s, so "
              "the shape of the result would depend on the data. Under jit every shape must be known before any "
              "data arrives.",
        "de": "Indizieren mit einer booleschen Maske wie `x[x > 0]` liefert so viele Elemente, wie die Maske `True`s "
              "hat, also hinge die Shape des Ergebnisses von den Daten ab. Unter jit muss jede Shape bekannt sein, "
              "bevor Daten ankommen.",
        "zh": "用布尔掩码索引（如 `x[x > 0]`）返回的元素个数等于掩码中 `True` 的个数，所以结果的 shape "
              "取决于数据。在 jit 下，每个 shape 都必须在数据到来之前确定。",
    },
    "tracer.ConcretizationTypeError.title": {
        "en": "A concrete value was needed, but there was only a tracer",
        "de": "Ein konkreter Wert wurde gebraucht, aber es gab nur einen Tracer",
        "zh": "需要一个具体的值，但只有一个 tracer",
    },
    "tracer.ConcretizationTypeError.what": {
        "en": "Your code needed an actual Python value from one of them: a number (`int()`, `float()`, `.item()`), a "
              "shape or length, or a branch. Shapes must be known while tracing, and values exist only when the "
              f"compiled program runs. More: {_G}",
        "de": "Dein Code brauchte von einem davon einen echten Python-Wert: eine Zahl (`int()`, `float()`, "
              "`.item()`), eine Shape oder Länge oder einen Zweig. Shapes müssen beim Tracen bekannt sein, und "
              f"Werte gibt es erst, wenn das kompilierte Programm läuft. Mehr: {_G}",
        "zh": "你的代码需要从其中一个 tracer 得到真正的 Python 值：一个数（`int()`、`float()`、`.item()`）、"
              "一个 shape 或长度，或者一个分支。shape 必须在追踪时就知道，而值只有在编译后的程序运行时才存在。"
              f"更多：{_G}",
    },
    "tracer.UnexpectedTracerError.title": {
        "en": "A traced value escaped its function",
        "de": "Ein getracter Wert ist aus seiner Funktion entkommen",
        "zh": "一个被追踪的值逃出了它的函数",
    },
    "tracer.UnexpectedTracerError.what": {
        "en": "A tracer was saved somewhere that outlives the trace (a global list or dict, an object attribute, a "
              "variable of an enclosing function) and used after that trace had finished, where it means nothing. "
              "Functions that JAX transforms must be pure: everything they produce leaves through `return`.",
        "de": "Ein Tracer wurde irgendwo gespeichert, das den Trace überlebt (eine globale Liste oder ein dict, ein "
              "Attribut eines Objekts, eine Variable einer umgebenden Funktion), und benutzt, nachdem der Trace "
              "vorbei war, wo er nichts bedeutet. Funktionen, die JAX transformiert, müssen pure sein: Alles, was "
              "sie erzeugen, verlässt sie über `return`.",
        "zh": "一个 tracer 被保存到了比这次追踪活得更久的地方（全局的列表或 dict、对象的属性、外层函数的变量），"
              "并在追踪结束后被使用，而那时它已没有意义。被 JAX 变换的函数必须是纯函数：它产生的一切都通过 "
              "`return` 离开。",
    },
    # Where the fix points: the user's line, quoted, or their code as a whole.
    "where.line": {"en": "Line {line} (`{code}`)", "de": "Zeile {line} (`{code}`)", "zh": "第 {line} 行（`{code}`）"},
    "where.code": {"en": "Your code", "de": "Dein Code", "zh": "你的代码"},
    "static.one": {
        "en": "If `{name}` is really a fixed setting (a size, a count, a flag), mark it static, and JAX compiles "
              "once per value:\n```python\n{function} = jax.jit({function}, static_argnums={nums})\n```",
        "de": "Wenn `{name}` wirklich eine feste Einstellung ist (eine Größe, eine Anzahl, ein Schalter), markiere es "
              "als static, und JAX kompiliert einmal pro Wert:\n```python\n{function} = jax.jit({function}, "
              "static_argnums={nums})\n```",
        "zh": "如果 `{name}` 其实是一个固定的设置（大小、次数、开关），就把它标为 static，JAX 会为每个值编译一次："
              "\n```python\n{function} = jax.jit({function}, static_argnums={nums})\n```",
    },
    "static.many": {
        "en": "If {first} and `{last}` are really a fixed setting (a size, a count, a flag), mark it static, and JAX "
              "compiles once per value:\n```python\n{function} = jax.jit({function}, static_argnums={nums})\n```",
        "de": "Wenn {first} und `{last}` wirklich feste Einstellungen sind (eine Größe, eine Anzahl, ein Schalter), "
              "markiere sie als static, und JAX kompiliert einmal pro Wert:\n```python\n{function} = "
              "jax.jit({function}, static_argnums={nums})\n```",
        "zh": "如果 {first} 和 `{last}` 其实是固定的设置（大小、次数、开关），就把它们标为 static，JAX "
              "会为每组值编译一次：\n```python\n{function} = jax.jit({function}, static_argnums={nums})\n```",
    },
    "static.tab": {
        "en": "\n(In the Inspect tab: {spots} in the static_argnums field.)",
        "de": "\n(Im Inspect-Tab: {spots} ins Feld static_argnums.)",
        "zh": "\n（在 Inspect 标签页：在 static_argnums 字段中填 {spots}。）",
    },
    "static.general": {
        "en": "If the value is really a fixed setting (a size, a count, a flag), mark that argument static, and JAX "
              "compiles once per value:\n```python\nf = jax.jit(f, static_argnums=1)   # the position of that "
              "argument\n```",
        "de": "Wenn der Wert wirklich eine feste Einstellung ist (eine Größe, eine Anzahl, ein Schalter), markiere "
              "dieses Argument als static, und JAX kompiliert einmal pro Wert:\n```python\nf = jax.jit(f, "
              "static_argnums=1)   # die Position dieses Arguments\n```",
        "zh": "如果这个值其实是一个固定的设置（大小、次数、开关），就把那个参数标为 static，JAX 会为每个值编译一次："
              "\n```python\nf = jax.jit(f, static_argnums=1)   # 那个参数的位置\n```",
    },
    "fix.bool.while": {
        "en": "{where} loops on a traced condition. Use `lax.while_loop(cond_fun, body_fun, init)`: it carries the "
              "loop state through the compiled program and checks the condition on the device.\n```python\n"
              "def body({state}): ...; return {state}   # one pass of your loop\n"
              "{state} = lax.while_loop(lambda {state}: {test}, body, {state})\n```",
        "de": "{where} läuft in einer Schleife mit einer getracten Bedingung. Nimm `lax.while_loop(cond_fun, "
              "body_fun, init)`: Es trägt den Zustand der Schleife durch das kompilierte Programm und prüft die "
              "Bedingung auf dem Gerät.\n```python\n"
              "def body({state}): ...; return {state}   # ein Durchlauf deiner Schleife\n"
              "{state} = lax.while_loop(lambda {state}: {test}, body, {state})\n```",
        "zh": "{where} 用被追踪的条件做循环。请用 `lax.while_loop(cond_fun, body_fun, init)`：它让循环状态"
              "穿过编译后的程序，并在设备上检查条件。\n```python\n"
              "def body({state}): ...; return {state}   # 你的循环的一轮\n"
              "{state} = lax.while_loop(lambda {state}: {test}, body, {state})\n```",
    },
    "fix.bool.while_many": {
        "en": "\nWith several loop variables, carry them as one tuple.",
        "de": "\nBei mehreren Schleifenvariablen trägst du sie als ein Tupel.",
        "zh": "\n有多个循环变量时，把它们放进一个元组一起传递。",
    },
    "fix.bool.if": {
        "en": "{where} branches on a traced value. Compute both sides and select, element by element, with "
              "`jnp.where`; or, when a branch is expensive, use `lax.cond`, which compiles both branches and runs "
              "one (both must return the same shapes and dtypes):\n```python\n{example}\n```",
        "de": "{where} verzweigt nach einem getracten Wert. Berechne beide Seiten und wähle Element für Element mit "
              "`jnp.where`; oder nimm, wenn ein Zweig teuer ist, `lax.cond`, das beide Zweige kompiliert und einen "
              "ausführt (beide müssen dieselben Shapes und dtypes liefern):\n```python\n{example}\n```",
        "zh": "{where} 根据被追踪的值做分支。把两边都算出来，再用 `jnp.where` 逐元素选择；或者在某个分支开销大时"
              "用 `lax.cond`，它编译两个分支、只运行其中一个（两者必须返回相同的 shape 和 dtype）：\n```python\n"
              "{example}\n```",
    },
    "fix.bool.if_quoted": {
        "en": "y = jnp.where({cond}, {yes}, {no})\ny = lax.cond({cond}, lambda {x}: {yes}, lambda {x}: {no}, {x})",
    },
    "fix.bool.if_general": {
        "en": "y = jnp.where({cond}, a, b)   # a where True, b where False\n"
              "y = lax.cond({cond}, true_fn, false_fn, {x})   # each branch is a function of {x}",
        "de": "y = jnp.where({cond}, a, b)   # a wo True, b wo False\n"
              "y = lax.cond({cond}, true_fn, false_fn, {x})   # jeder Zweig ist eine Funktion von {x}",
        "zh": "y = jnp.where({cond}, a, b)   # True 处取 a，False 处取 b\n"
              "y = lax.cond({cond}, true_fn, false_fn, {x})   # 每个分支都是 {x} 的函数",
    },
    "fix.bool.assert": {
        "en": "{where} asserts on a traced value. Check inputs before calling the jitted function, or use "
              "`checkify`, which makes the check part of the program:\n```python\n"
              "from jax.experimental import checkify\ncheckify.check(jnp.all(x > 0), \"x must be positive\")\n```",
        "de": "{where} macht ein assert auf einen getracten Wert. Prüfe die Eingaben, bevor du die gejittete "
              "Funktion aufrufst, oder nimm `checkify`, das die Prüfung zum Teil des Programms macht:\n```python\n"
              "from jax.experimental import checkify\ncheckify.check(jnp.all(x > 0), \"x muss positiv sein\")\n```",
        "zh": "{where} 对被追踪的值使用了 assert。请在调用 jit 过的函数之前检查输入，或者用 `checkify`，"
              "它把检查变成程序的一部分：\n```python\n"
              "from jax.experimental import checkify\ncheckify.check(jnp.all(x > 0), \"x 必须为正\")\n```",
    },
    "fix.bool.logic": {
        "en": "{where} uses `and`/`or`/`not`, which ask for a Python bool. Use the element-wise JAX versions:"
              "\n```python\nok = {version}   # also jnp.logical_or, jnp.logical_not\n```",
        "de": "{where} benutzt `and`/`or`/`not`, die ein Python-bool verlangen. Nimm die elementweisen "
              "JAX-Versionen:\n```python\nok = {version}   # auch jnp.logical_or, jnp.logical_not\n```",
        "zh": "{where} 使用了 `and`/`or`/`not`，它们需要一个 Python bool。请用逐元素的 JAX 版本："
              "\n```python\nok = {version}   # 还有 jnp.logical_or、jnp.logical_not\n```",
    },
    "fix.bool.general": {
        "en": "Replace Python control flow on traced values with JAX's: `jnp.where(cond, a, b)` or "
              "`lax.cond(cond, true_fn, false_fn, x)` for `if`, `lax.while_loop` for `while`, `lax.fori_loop` or "
              "`lax.scan` for loops.\n```python\ny = jnp.where(x > 0, x, -x)\n```\n",
        "de": "Ersetze Pythons Kontrollfluss auf getracten Werten durch den von JAX: `jnp.where(cond, a, b)` oder "
              "`lax.cond(cond, true_fn, false_fn, x)` für `if`, `lax.while_loop` für `while`, `lax.fori_loop` oder "
              "`lax.scan` für Schleifen.\n```python\ny = jnp.where(x > 0, x, -x)\n```\n",
        "zh": "把作用在被追踪值上的 Python 控制流换成 JAX 的：`if` 用 `jnp.where(cond, a, b)` 或 "
              "`lax.cond(cond, true_fn, false_fn, x)`，`while` 用 `lax.while_loop`，循环用 `lax.fori_loop` 或 "
              "`lax.scan`。\n```python\ny = jnp.where(x > 0, x, -x)\n```\n",
    },
    "fix.int.range": {
        "en": "{where} uses a traced number as a loop count. Run the loop inside the program with `lax.fori_loop` "
              "(or `lax.scan`, which also collects a result per step):\n```python\n"
              "{state} = lax.fori_loop({low}, {high}, lambda i, {state}: ..., {state})   # the body returns the "
              "next {state}\n```\n",
        "de": "{where} benutzt eine getracte Zahl als Anzahl der Schleifendurchläufe. Lass die Schleife im Programm "
              "laufen, mit `lax.fori_loop` (oder `lax.scan`, das auch ein Ergebnis pro Schritt sammelt):\n```python\n"
              "{state} = lax.fori_loop({low}, {high}, lambda i, {state}: ..., {state})   # der Rumpf liefert das "
              "nächste {state}\n```\n",
        "zh": "{where} 把被追踪的数用作循环次数。请用 `lax.fori_loop`（或 `lax.scan`，它还会收集每一步的结果）"
              "让循环在程序内部运行：\n```python\n"
              "{state} = lax.fori_loop({low}, {high}, lambda i, {state}: ..., {state})   # 循环体返回下一个 "
              "{state}\n```\n",
    },
    "fix.int.index": {
        "en": "{where} indexes a Python list or tuple with a traced number. Make the sequence an array, which can be "
              "indexed by a traced value:\n```python\ny = jnp.asarray({seq})[{index}]\n```\n",
        "de": "{where} indiziert eine Python-Liste oder ein Tupel mit einer getracten Zahl. Mach die Folge zu einem "
              "Array, das sich mit einem getracten Wert indizieren lässt:\n```python\ny = jnp.asarray({seq})[{index}]"
              "\n```\n",
        "zh": "{where} 用被追踪的数索引 Python 列表或元组。把这个序列变成数组，数组可以用被追踪的值索引："
              "\n```python\ny = jnp.asarray({seq})[{index}]\n```\n",
    },
    "fix.int.general": {
        "en": "Keep traced numbers inside JAX: loop with `lax.fori_loop`/`lax.scan` instead of `range(n)`, index "
              "arrays rather than lists.\n```python\nx = lax.fori_loop(0, n, lambda i, x: x + i, x)\n```\n",
        "de": "Lass getracte Zahlen in JAX: Schleifen mit `lax.fori_loop`/`lax.scan` statt `range(n)`, indiziere "
              "Arrays statt Listen.\n```python\nx = lax.fori_loop(0, n, lambda i, x: x + i, x)\n```\n",
        "zh": "让被追踪的数留在 JAX 里：用 `lax.fori_loop`/`lax.scan` 代替 `range(n)` 做循环，索引数组而不是列表。"
              "\n```python\nx = lax.fori_loop(0, n, lambda i, x: x + i, x)\n```\n",
    },
    "fix.numpy.call": {
        "en": "{where} calls `{old}` on a traced value. Use the `jax.numpy` version, which JAX can trace:"
              "\n```python\njnp.{attr}(...)   # instead of {old}(...)\n```\nTo look at values while debugging, use "
              "`jax.debug.print(\"{{x}}\", x=x)`; for a library JAX cannot trace, `jax.pure_callback`.",
        "de": "{where} ruft `{old}` mit einem getracten Wert auf. Nimm die `jax.numpy`-Version, die JAX tracen kann:"
              "\n```python\njnp.{attr}(...)   # statt {old}(...)\n```\nUm beim Debuggen Werte anzusehen, nimm "
              "`jax.debug.print(\"{{x}}\", x=x)`; für eine Bibliothek, die JAX nicht tracen kann, `jax.pure_callback`.",
        "zh": "{where} 对被追踪的值调用了 `{old}`。请用 JAX 能追踪的 `jax.numpy` 版本："
              "\n```python\njnp.{attr}(...)   # 代替 {old}(...)\n```\n调试时想看值，用 "
              "`jax.debug.print(\"{{x}}\", x=x)`；对 JAX 无法追踪的库，用 `jax.pure_callback`。",
    },
    "fix.numpy.general": {
        "en": "Use `jax.numpy` (`jnp`) instead of `numpy` (`np`) inside the function; `np` is fine outside it, on "
              "results.\n```python\ny = jnp.sin(x)   # not np.sin(x)\n```\nTo look at values while debugging, use "
              "`jax.debug.print(\"{{x}}\", x=x)`.",
        "de": "Nimm in der Funktion `jax.numpy` (`jnp`) statt `numpy` (`np`); außerhalb, auf Ergebnissen, ist `np` "
              "in Ordnung.\n```python\ny = jnp.sin(x)   # nicht np.sin(x)\n```\nUm beim Debuggen Werte anzusehen, "
              "nimm `jax.debug.print(\"{{x}}\", x=x)`.",
        "zh": "在函数内部用 `jax.numpy`（`jnp`）代替 `numpy`（`np`）；在函数外部处理结果时用 `np` 没问题。"
              "\n```python\ny = jnp.sin(x)   # 不要用 np.sin(x)\n```\n调试时想看值，用 "
              "`jax.debug.print(\"{{x}}\", x=x)`。",
    },
    "fix.mask.update": {
        "en": "{where} updates the elements picked by a traced mask. Select instead, which keeps every shape fixed:"
              "\n```python\n{array} = {new}   # not {old}\n```",
        "de": "{where} ändert die Elemente, die eine getracte Maske auswählt. Wähle stattdessen aus, so bleibt jede "
              "Shape fest:\n```python\n{array} = {new}   # nicht {old}\n```",
        "zh": "{where} 更新由被追踪的掩码选出的元素。改用选择，这样每个 shape 都保持固定："
              "\n```python\n{array} = {new}   # 不要用 {old}\n```",
    },
    "fix.mask.select": {
        "en": "{where} selects by a traced mask. Keep the shape fixed: select with `jnp.where`, reduce with "
              "`where=`, or ask `jnp.nonzero` for a fixed number of indices with `size=`:\n```python\n"
              "kept = jnp.where({mask}, {array}, 0)   # same shape, 0 where the mask is False\n"
              "picked = {array}[jnp.nonzero({mask}, size={array}.size, fill_value=0)]   # fixed length, padded\n```"
              "\nFor a sum of the selected values: `jnp.sum({array}, where={mask})`.",
        "de": "{where} wählt mit einer getracten Maske aus. Halte die Shape fest: wähle mit `jnp.where`, reduziere "
              "mit `where=`, oder frag `jnp.nonzero` mit `size=` nach einer festen Zahl von Indizes:\n```python\n"
              "kept = jnp.where({mask}, {array}, 0)   # gleiche Shape, 0 wo die Maske False ist\n"
              "picked = {array}[jnp.nonzero({mask}, size={array}.size, fill_value=0)]   # feste Länge, aufgefüllt\n```"
              "\nFür die Summe der ausgewählten Werte: `jnp.sum({array}, where={mask})`.",
        "zh": "{where} 用被追踪的掩码做选择。保持 shape 固定：用 `jnp.where` 选择，用 `where=` 做归约，"
              "或用 `size=` 让 `jnp.nonzero` 返回固定个数的下标：\n```python\n"
              "kept = jnp.where({mask}, {array}, 0)   # shape 不变，掩码为 False 处为 0\n"
              "picked = {array}[jnp.nonzero({mask}, size={array}.size, fill_value=0)]   # 固定长度，补齐\n```"
              "\n对选中的值求和：`jnp.sum({array}, where={mask})`。",
    },
    "fix.concrete.sized": {
        "en": "{where} calls `{call}`, whose result size depends on the data. Give it a fixed `size=` (extra slots "
              "get `fill_value`):\n```python\nidx = {call}({arg}, size={size}, fill_value=0)\n```",
        "de": "{where} ruft `{call}` auf, dessen Ergebnisgröße von den Daten abhängt. Gib ihm eine feste `size=` "
              "(übrige Plätze bekommen `fill_value`):\n```python\nidx = {call}({arg}, size={size}, fill_value=0)\n```",
        "zh": "{where} 调用了 `{call}`，它的结果大小取决于数据。给它一个固定的 `size=`（多出的位置填 "
              "`fill_value`）：\n```python\nidx = {call}({arg}, size={size}, fill_value=0)\n```",
    },
    "fix.concrete.shape": {
        "en": "{where} makes an array whose shape comes from a traced value in `{call}`. Shapes must be known when "
              "compiling: pass sizes as static arguments, or compute them from `x.shape`, which is always known."
              "\n```python\ny = jnp.arange(x.shape[0])   # a shape, not a value\n```\n",
        "de": "{where} erzeugt in `{call}` ein Array, dessen Shape aus einem getracten Wert kommt. Shapes müssen beim "
              "Kompilieren bekannt sein: Gib Größen als static-Argumente, oder berechne sie aus `x.shape`, das immer "
              "bekannt ist.\n```python\ny = jnp.arange(x.shape[0])   # eine Shape, kein Wert\n```\n",
        "zh": "{where} 在 `{call}` 中创建的数组的 shape 来自被追踪的值。shape 必须在编译时已知：把大小作为 static "
              "参数传入，或者从总是已知的 `x.shape` 计算。\n```python\ny = jnp.arange(x.shape[0])   # 是 shape，"
              "不是值\n```\n",
    },
    "fix.concrete.convert": {
        "en": "{where} turns a traced value into a Python number. Keep it an array (change its dtype if needed), and "
              "print it with `jax.debug.print`:\n```python\ny = {new}   # not {old}\n"
              "jax.debug.print(\"y = {{y}}\", y=y)\n```\n",
        "de": "{where} macht aus einem getracten Wert eine Python-Zahl. Lass ihn ein Array bleiben (ändere bei Bedarf "
              "seinen dtype), und gib ihn mit `jax.debug.print` aus:\n```python\ny = {new}   # nicht {old}\n"
              "jax.debug.print(\"y = {{y}}\", y=y)\n```\n",
        "zh": "{where} 把被追踪的值变成了 Python 数。让它保持为数组（需要时改变它的 dtype），并用 "
              "`jax.debug.print` 打印：\n```python\ny = {new}   # 不要用 {old}\n"
              "jax.debug.print(\"y = {{y}}\", y=y)\n```\n",
    },
    "fix.concrete.general": {
        "en": "Keep traced values inside JAX operations (`jnp`, `lax`), and make values that decide shapes or Python "
              "control flow static.\n",
        "de": "Lass getracte Werte in JAX-Operationen (`jnp`, `lax`), und mach Werte, die über Shapes oder Pythons "
              "Kontrollfluss entscheiden, static.\n",
        "zh": "让被追踪的值留在 JAX 运算（`jnp`、`lax`）里，并把决定 shape 或 Python 控制流的值设为 static。\n",
    },
    "fix.leak.site": {
        "en": "Line {line} (`{statement}`) stores a value computed inside `{function}` outside of it, where it "
              "outlives the trace. Return it instead:\n",
        "de": "Zeile {line} (`{statement}`) speichert einen in `{function}` berechneten Wert außerhalb davon, wo er "
              "den Trace überlebt. Gib ihn stattdessen mit return zurück:\n",
        "zh": "第 {line} 行（`{statement}`）把在 `{function}` 内部算出的值存到了函数外面，它会比这次追踪活得更久。"
              "请改为把它 return 出来：\n",
    },
    "fix.leak.line": {
        "en": "{where} created the value that escaped. Return it from the function instead:\n",
        "de": "{where} hat den entkommenen Wert erzeugt. Gib ihn stattdessen aus der Funktion zurück:\n",
        "zh": "{where} 创建了逃出的值。请改为从函数中把它 return 出来：\n",
    },
    "fix.leak.general": {
        "en": "Return every value the function computes, instead of storing it outside the function:\n",
        "de": "Gib jeden Wert, den die Funktion berechnet, mit return zurück, statt ihn außerhalb der Funktion zu "
              "speichern:\n",
        "zh": "把函数算出的每个值都 return 出来，而不是存到函数外面：\n",
    },
    "fix.leak.example": {
        "en": "```python\ndef f(x):\n    y = x * 2\n    return x, y   # return y instead of cache.append(y)\n```",
        "de": "```python\ndef f(x):\n    y = x * 2\n    return x, y   # y zurückgeben statt cache.append(y)\n```",
        "zh": "```python\ndef f(x):\n    y = x * 2\n    return x, y   # 返回 y，而不是 cache.append(y)\n```",
    },
}
