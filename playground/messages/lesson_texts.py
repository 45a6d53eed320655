"""The error lessons' titles, explanations and fixes in en/de/zh (array_, shape_ and transform_lessons use them).

A lesson's title and words are ``lesson.<key>.title`` and ``lesson.<key>.what`` (lesson_kit.taught); its fixes,
where written in pieces, are the ``lfix.*`` keys. JAX terms (jit, vmap, grad, tracer, pytree, ...) and code stay
as they are; German uses "du". Generated from the English once; edit here.
"""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "lesson.not_a_jax_type.title": {
        "en": 'JAX takes arrays, not arbitrary Python objects',
        "de": 'JAX nimmt Arrays, keine beliebigen Python-Objekte',
        "zh": 'JAX 接受数组，而不是任意的 Python 对象'},
    "lesson.not_a_jax_type.what": {
        "en": 'Whatever a JAX function or transformation receives as an input (an operand of `lax.cond`, an argument '
              'of a jitted function) is traced: it must be an array, a number, or a pytree of them. A {type} is none '
              'of these; an iterator in particular has state that changes as it is used, which a traced program '
              'cannot replay.',
        "de": 'Was eine JAX-Funktion oder -Transformation als Eingabe bekommt (ein Operand von `lax.cond`, ein '
              'Argument einer gejitteten Funktion), wird getract: Es muss ein Array, eine Zahl oder ein Pytree '
              'daraus sein. Ein {type} ist nichts davon; vor allem ein Iterator hat einen Zustand, der sich beim '
              'Benutzen ändert, und den kann ein getracetes Programm nicht nachspielen.',
        "zh": 'JAX 函数或变换收到的输入（`lax.cond` 的操作数、被 jit 的函数的参数）都会被追踪：它必须是数组、数字，'
              '或由它们组成的 pytree。{type} 都不是；尤其是迭代器带有会随使用而改变的状态，被追踪的程序无法重放它。'},
    "lesson.list_input.title": {
        "en": 'jax.numpy takes arrays, not Python lists',
        "de": 'jax.numpy nimmt Arrays, keine Python-Listen',
        "zh": 'jax.numpy 接受数组，而不是 Python 列表'},
    "lesson.list_input.what": {
        "en": 'NumPy quietly turns a Python list or tuple into an array; `jax.numpy` refuses to, on purpose. Under '
              '`jit` each element of a list would be a separate input, traced and compiled one by one, so a long '
              'list would make tracing and compiling slow with no sign of why. Converting it yourself makes it one '
              'array, once.',
        "de": 'NumPy macht aus einer Python-Liste oder einem Tupel stillschweigend ein Array; `jax.numpy` weigert '
              'sich absichtlich. Unter `jit` wäre jedes Element einer Liste eine eigene Eingabe, einzeln getract und '
              'kompiliert, sodass eine lange Liste Tracen und Kompilieren langsam machen würde, ohne dass man sieht, '
              'warum. Wandelst du sie selbst um, wird sie ein einziges Array, einmal.',
        "zh": 'NumPy 会悄悄地把 Python 列表或元组变成数组；`jax.numpy` 故意拒绝这样做。在 `jit` 下，'
              '列表的每个元素都会是一个单独的输入，逐个被追踪和编译，所以一个长列表会让追踪和编译变慢，却看不出原因。'
              '自己先转换，它就成为一个数组，只转换一次。'},
    "lesson.truth.title": {
        "en": 'an array of many booleans is not one True or False',
        "de": 'ein Array aus vielen Booleans ist nicht ein True oder False',
        "zh": '由许多布尔值组成的数组不是单个 True 或 False'},
    "lesson.truth.what": {
        "en": '`if`, `while`, `and`, `or`, `not` and `bool()` need a single True or False, but this condition is an '
              'array with one boolean per element (NumPy refuses the same way). Say what you mean: all of them, any '
              'of them, or element by element.',
        "de": '`if`, `while`, `and`, `or`, `not` und `bool()` brauchen ein einzelnes True oder False, aber diese '
              'Bedingung ist ein Array mit einem Boolean pro Element (NumPy weigert sich genauso). Sag, was du '
              'meinst: alle, irgendeines oder Element für Element.',
        "zh": '`if`、`while`、`and`、`or`、`not` 和 `bool()` 需要单个 True 或 False，但这个条件是一个数组，'
              '每个元素一个布尔值（NumPy 也同样拒绝）。说清楚你的意思：全部、任意一个，还是逐元素。'},
    "lesson.setitem.title": {
        "en": 'JAX arrays cannot be changed in place',
        "de": 'JAX-Arrays lassen sich nicht an Ort und Stelle ändern',
        "zh": 'JAX 数组不能原地修改'},
    "lesson.setitem.what": {
        "en": 'A JAX array never changes once it is made: that is what lets JAX trace, differentiate and compile '
              'functions without tracking who else holds the array. `x.at[i]` makes a new array with the change '
              'instead; under `jit`, XLA still updates in place when the old array is not used again.',
        "de": 'Ein JAX-Array ändert sich nie, wenn es einmal erzeugt ist: Deshalb kann JAX Funktionen tracen, '
              'ableiten und kompilieren, ohne zu verfolgen, wer das Array sonst noch hält. `x.at[i]` erzeugt '
              'stattdessen ein neues Array mit der Änderung; unter `jit` aktualisiert XLA trotzdem an Ort und '
              'Stelle, wenn das alte Array nicht mehr gebraucht wird.',
        "zh": 'JAX 数组一旦创建就不会改变：正因如此，JAX 才能追踪、求导和编译函数，而不必追踪还有谁持有这个数组。'
              '`x.at[i]` 会创建一个带有修改的新数组；在 `jit` 下，如果旧数组不再被使用，XLA 仍会原地更新。'},
    "lesson.take_raise.title": {
        "en": 'JAX does not raise for an index out of bounds',
        "de": 'JAX löst bei einem Index außerhalb der Grenzen keinen Fehler aus',
        "zh": 'JAX 不会因下标越界而报错'},
    "lesson.take_raise.what": {
        "en": 'Compiled code on an accelerator cannot stop and raise an error, so JAX never raises for an index out '
              'of bounds (NumPy raises `IndexError`): reading clamps the index to the nearest valid one, and an '
              'update out of bounds is dropped. You can choose another behaviour, but not an error.',
        "de": 'Kompilierter Code auf einem Beschleuniger kann nicht anhalten und einen Fehler auslösen, deshalb löst '
              'JAX bei einem Index außerhalb der Grenzen nie einen Fehler aus (NumPy löst `IndexError` aus): Beim '
              'Lesen wird der Index auf den nächsten gültigen begrenzt, und ein Update außerhalb der Grenzen wird '
              'verworfen. Du kannst ein anderes Verhalten wählen, aber keinen Fehler.',
        "zh": '加速器上的编译代码不能中途停下来抛出错误，所以 JAX 从不因下标越界而报错（NumPy 会抛出 `IndexError`）：'
              '读取时下标会被截到最近的有效位置，越界的更新会被丢弃。你可以选择别的行为，但不能是报错。'},
    "lesson.lax_dtypes.title": {
        "en": 'jax.lax does not mix dtypes',
        "de": 'jax.lax mischt keine dtypes',
        "zh": 'jax.lax 不混用 dtype'},
    "lesson.lax_dtypes.what": {
        "en": '`jax.lax` is the layer below `jax.numpy`: each of its functions is one XLA operation, and does '
              'exactly that, so it never promotes types: `lax.{op}` got {a} and {b}. `jax.numpy` is the layer that '
              'promotes, as NumPy does.',
        "de": '`jax.lax` ist die Schicht unter `jax.numpy`: Jede ihrer Funktionen ist eine XLA-Operation und tut '
              'genau das, deshalb befördert sie nie Typen: `lax.{op}` hat {a} und {b} bekommen. `jax.numpy` ist die '
              'Schicht, die Typen befördert, wie NumPy.',
        "zh": '`jax.lax` 是 `jax.numpy` 下面的一层：它的每个函数都是一个 XLA 运算，只做这一件事，所以从不做类型提升：'
              '`lax.{op}` 收到了 {a} 和 {b}。会像 NumPy 那样做类型提升的是 `jax.numpy` 这一层。'},
    "lesson.overflow.title": {
        "en": 'that integer does not fit in its dtype',
        "de": 'diese ganze Zahl passt nicht in ihren dtype',
        "zh": '这个整数放不进它的 dtype'},
    "lesson.overflow.what": {
        "en": 'JAX uses 32 bits unless told otherwise: integers are int32 and floats float32, where NumPy would use '
              '64 bits. A Python int too large for its dtype cannot become a JAX value. The same default is why '
              '`dtype=jnp.float64` quietly gives float32 (with only a warning). The `jax_enable_x64` flag switches '
              '64-bit types on.',
        "de": 'JAX nutzt 32 Bit, solange nichts anderes gesagt wird: Ganze Zahlen sind int32 und Floats float32, wo '
              'NumPy 64 Bit nehmen würde. Ein Python-int, der für seinen dtype zu groß ist, kann kein JAX-Wert '
              'werden. Derselbe Standard ist der Grund, warum `dtype=jnp.float64` stillschweigend float32 liefert '
              '(nur mit einer Warnung). Das Flag `jax_enable_x64` schaltet 64-Bit-Typen ein.',
        "zh": '除非另行设置，JAX 使用 32 位：整数是 int32，浮点数是 float32，而 NumPy 会用 64 位。对其 dtype '
              '来说太大的 Python int 无法成为 JAX 值。同样的默认设置也是 `dtype=jnp.float64` 悄悄给出 '
              'float32（只有一个警告）的原因。`jax_enable_x64` 标志会开启 64 位类型。'},
    "lesson.key.title": {
        "en": 'jax.random needs a key, not a seed',
        "de": 'jax.random braucht einen Key, keinen Seed',
        "zh": 'jax.random 需要 key，而不是种子'},
    "lesson.key.what": {
        "en": "JAX has no hidden global random state (NumPy's `np.random` has one, which `jit` would freeze into a "
              'constant): every `jax.random` function takes a *key*, made from a seed with `jax.random.key(seed)` '
              'and split into a new key for each use, so the same key always gives the same numbers, under `jit` and '
              '`vmap` too.',
        "de": 'JAX hat keinen versteckten globalen Zufallszustand (NumPys `np.random` hat einen, den `jit` zu einer '
              'Konstante einfrieren würde): Jede `jax.random`-Funktion nimmt einen *Key*, der mit '
              '`jax.random.key(seed)` aus einem Seed gemacht und für jede Verwendung in einen neuen Key gesplittet '
              'wird, sodass derselbe Key immer dieselben Zahlen liefert, auch unter `jit` und `vmap`.',
        "zh": 'JAX 没有隐藏的全局随机状态（NumPy 的 `np.random` 有一个，而 `jit` 会把它冻结成常量）：每个 '
              '`jax.random` 函数都接受一个 *key*，它由种子通过 `jax.random.key(seed)` 生成，每次使用前 split '
              '出一个新 key，所以同一个 key 总是给出同样的数，在 `jit` 和 `vmap` 下也是如此。'},
    "lesson.ragged.title": {
        "en": "an array's rows must all have one length",
        "de": 'die Zeilen eines Arrays müssen alle gleich lang sein',
        "zh": '数组的每一行长度必须相同'},
    "lesson.ragged.what": {
        "en": 'An array is a rectangular block of numbers of one dtype: every row has the same length. Rows of '
              'different lengths are not an array (NumPy refuses them the same way), and JAX must know every shape '
              'before it compiles.',
        "de": 'Ein Array ist ein rechteckiger Block von Zahlen eines dtypes: Jede Zeile hat dieselbe Länge. Zeilen '
              'verschiedener Länge sind kein Array (NumPy weigert sich genauso), und JAX muss jede Shape kennen, '
              'bevor es kompiliert.',
        "zh": '数组是由同一种 dtype 的数字组成的矩形块：每一行长度相同。长度不同的行不构成数组（NumPy 也同样拒绝），'
              '而且 JAX 必须在编译前知道每个 shape。'},
    "lesson.matmul.title": {
        "en": 'the shapes do not line up for a matrix product',
        "de": 'die Shapes passen für ein Matrixprodukt nicht zusammen',
        "zh": '这两个 shape 对不上，无法做矩阵乘法'},
    "lesson.matmul.what": {
        "en": 'A matrix product `a @ b` sums over the last axis of `a` and the first axis of `b` (its second to '
              'last, if `b` has more than two), so those two lengths must be equal; here they are {a} and {b}.',
        "de": 'Ein Matrixprodukt `a @ b` summiert über die letzte Achse von `a` und die erste Achse von `b` (ihre '
              'vorletzte, wenn `b` mehr als zwei hat), also müssen diese beiden Längen gleich sein; hier sind sie '
              '{a} und {b}.',
        "zh": '矩阵乘法 `a @ b` 对 `a` 的最后一个轴和 `b` 的第一个轴（如果 `b` 超过两维，则是倒数第二个轴）求和，'
              '所以这两个长度必须相等；这里它们是 {a} 和 {b}。'},
    "lesson.broadcast.title": {
        "en": 'these shapes cannot be broadcast together',
        "de": 'diese Shapes lassen sich nicht gegeneinander broadcasten',
        "zh": '这些 shape 无法相互广播'},
    "lesson.broadcast.what": {
        "en": 'Element-wise operations (`+`, `*`, `jnp.where`, ...) match shapes from the last axis backwards: two '
              'lengths fit when they are equal or one of them is 1, and a missing axis counts as 1. JAX follows '
              "NumPy's broadcasting rules exactly, and these shapes break them.",
        "de": 'Elementweise Operationen (`+`, `*`, `jnp.where`, ...) gleichen Shapes von der letzten Achse rückwärts '
              'ab: Zwei Längen passen, wenn sie gleich sind oder eine davon 1 ist, und eine fehlende Achse zählt als '
              '1. JAX folgt den Broadcasting-Regeln von NumPy genau, und diese Shapes verletzen sie.',
        "zh": '逐元素运算（`+`、`*`、`jnp.where` 等）从最后一个轴往前匹配 shape：两个长度相等或其中一个为 1 '
              '时才匹配，缺少的轴算作 1。JAX 完全遵循 NumPy 的广播规则，而这些 shape 违反了它。'},
    "lesson.reshape.title": {
        "en": 'a reshape must keep the number of elements',
        "de": 'ein reshape muss die Anzahl der Elemente behalten',
        "zh": 'reshape 必须保持元素个数不变'},
    "lesson.reshape.what": {
        "en": 'A reshape only regroups the elements, so the new shape must hold exactly as many as the old one.',
        "de": 'Ein reshape gruppiert die Elemente nur neu, also muss die neue Shape genau so viele fassen wie die '
              'alte.',
        "zh": 'reshape 只是重新组织元素，所以新 shape 容纳的元素个数必须和旧的完全一样。'},
    "lesson.join.title": {
        "en": 'these arrays cannot be joined',
        "de": 'diese Arrays lassen sich nicht zusammenfügen',
        "zh": '这些数组无法拼接'},
    "lesson.join.what": {
        "en": 'Joining arrays keeps every axis but one as it is, so their shapes must agree everywhere else.',
        "de": 'Beim Zusammenfügen von Arrays bleibt jede Achse bis auf eine, wie sie ist, also müssen ihre Shapes '
              'überall sonst übereinstimmen.',
        "zh": '拼接数组时，除了一个轴之外，其他轴都保持不变，所以它们的 shape 在其他轴上必须一致。'},
    "lesson.shape_argument.title": {
        "en": 'a shape must be a tuple of ints known when compiling',
        "de": 'eine Shape muss ein Tupel von ints sein, das beim Kompilieren bekannt ist',
        "zh": 'shape 必须是编译时已知的 int 元组'},
    "lesson.shape_argument.what": {
        "en": 'Functions that make arrays (`jnp.zeros`, `jax.random.normal`, `reshape`, ...) take a shape: a tuple '
              'of Python ints, known while tracing, because XLA compiles a program for one shape. They were given a '
              'traced {dtype} value instead.',
        "de": 'Funktionen, die Arrays erzeugen (`jnp.zeros`, `jax.random.normal`, `reshape`, ...), nehmen eine '
              'Shape: ein Tupel von Python-ints, beim Tracen bekannt, weil XLA ein Programm für eine Shape '
              'kompiliert. Sie haben stattdessen einen getracten {dtype}-Wert bekommen.',
        "zh": '创建数组的函数（`jnp.zeros`、`jax.random.normal`、`reshape` 等）接受一个 shape：一个在追踪时已知的 '
              'Python int 元组，因为 XLA 为一个 shape 编译一个程序。它们却收到了一个被追踪的 {dtype} 值。'},
    "lesson.reverse_while.title": {
        "en": 'reverse mode cannot differentiate a while_loop',
        "de": 'der Rückwärtsmodus kann eine while_loop nicht ableiten',
        "zh": '反向模式无法对 while_loop 求导'},
    "lesson.reverse_while.what": {
        "en": "`grad` works backwards from the result, so it must keep every step's values; a `while_loop` runs a "
              'number of steps known only as it runs, so there is no fixed set to keep. Forward mode (`jax.jvp`, '
              '`jax.jacfwd`) goes along with the loop and works, as does `grad` of a loop with a fixed length.',
        "de": '`grad` arbeitet vom Ergebnis rückwärts, also muss es die Werte jedes Schritts behalten; eine '
              '`while_loop` läuft eine Anzahl von Schritten, die erst beim Laufen bekannt ist, also gibt es keine '
              'feste Menge zum Behalten. Der Vorwärtsmodus (`jax.jvp`, `jax.jacfwd`) geht mit der Schleife mit und '
              'funktioniert, ebenso `grad` einer Schleife mit fester Länge.',
        "zh": '`grad` 从结果往回计算，所以必须保存每一步的值；`while_loop` 的步数只有在运行时才知道，'
              '所以没有固定的一组值可以保存。前向模式（`jax.jvp`、`jax.jacfwd`）随循环一起前进，可以工作；'
              '对固定长度的循环用 `grad` 也可以。'},
    "lesson.unhashable.title": {
        "en": 'a static argument must be hashable',
        "de": 'ein statisches Argument muss hashbar sein',
        "zh": '静态参数必须是可哈希的'},
    "lesson.unhashable.what": {
        "en": '`jax.jit` compiles once per value of each static argument and keeps the programs in a dictionary '
              'keyed by those values, so a static argument must be hashable (a number, a string, a tuple). A {type} '
              'is not: lists, dicts and sets can change after they were hashed, and a tracer stands for a value not '
              'known yet.',
        "de": '`jax.jit` kompiliert einmal pro Wert jedes statischen Arguments und hält die Programme in einem '
              'Dictionary, dessen Keys diese Werte sind, also muss ein statisches Argument hashbar sein (eine Zahl, '
              'ein String, ein Tupel). Ein {type} ist es nicht: Listen, Dicts und Sets können sich ändern, nachdem '
              'sie gehasht wurden, und ein Tracer steht für einen Wert, der noch nicht bekannt ist.',
        "zh": '`jax.jit` 对每个静态参数的每个值编译一次，并把程序存在以这些值为键的字典里，'
              '所以静态参数必须可哈希（数字、字符串、元组）。{type} 不可哈希：列表、'
              '字典和集合在被哈希之后还可能改变，而 tracer 代表一个还不知道的值。'},
    "lesson.non_array_argument.title": {
        "en": "jit's arguments are arrays unless marked static",
        "de": 'die Argumente von jit sind Arrays, außer sie sind als statisch markiert',
        "zh": 'jit 的参数是数组，除非标记为静态'},
    "lesson.non_array_argument.what": {
        "en": '`jax.jit` traces each argument as an array: it needs its shape and dtype, and a {type} has neither. A '
              'setting such as a string, a function or a flag must be marked static: it is then fixed in the '
              'compiled program, and each new value compiles a new one.',
        "de": '`jax.jit` behandelt beim Tracing jedes Argument als Array: Es braucht seine Shape und seinen dtype, '
              'und ein {type} hat keins von beiden. Eine Einstellung wie ein String, eine Funktion oder ein Flag '
              'muss als statisch markiert werden: Sie steht dann im kompilierten Programm fest, und jeder neue Wert '
              'kompiliert ein neues.',
        "zh": '`jax.jit` 把每个参数当作数组来追踪：它需要参数的 shape 和 dtype，而 {type} 两者都没有。像字符串、'
              '函数或开关这样的设置必须标记为静态：这样它在编译后的程序中是固定的，每个新值都会编译一个新程序。'},
    "lesson.grad_output.title": {
        "en": 'jax.grad needs a function with one number as output',
        "de": 'jax.grad braucht eine Funktion mit einer einzigen Zahl als Ausgabe',
        "zh": 'jax.grad 需要输出为单个数的函数'},
    "lesson.grad_output.what": {
        "en": '`jax.grad` gives the gradient of a function whose output is one number, like a loss. This function '
              'returns an array, and its derivative is a whole matrix of them (a Jacobian): one row per output.',
        "de": '`jax.grad` liefert den Gradienten einer Funktion, deren Ausgabe eine Zahl ist, wie ein Loss. Diese '
              'Funktion gibt ein Array zurück, und ihre Ableitung ist eine ganze Matrix davon (eine Jacobi-Matrix): '
              'eine Zeile pro Ausgabe.',
        "zh": '`jax.grad` 给出输出为一个数（比如 loss）的函数的梯度。这个函数返回的是一个数组，'
              '它的导数是一整个矩阵（Jacobian）：每个输出一行。'},
    "lesson.grad_input.title": {
        "en": 'derivatives are taken at floats, not integers',
        "de": 'Ableitungen werden an Floats genommen, nicht an ganzen Zahlen',
        "zh": '导数是在浮点数上求的，不是整数'},
    "lesson.grad_input.what": {
        "en": 'A derivative asks how the output changes when the input changes a little, and an integer ({dtype}) '
              'cannot change a little: `jax.grad` takes float (or complex) inputs.',
        "de": 'Eine Ableitung fragt, wie sich die Ausgabe ändert, wenn sich die Eingabe ein wenig ändert, und eine '
              'ganze Zahl ({dtype}) kann sich nicht ein wenig ändern: `jax.grad` nimmt Float- (oder komplexe) '
              'Eingaben.',
        "zh": '导数问的是输入稍微变化时输出如何变化，而整数（{dtype}）无法“稍微”变化：`jax.grad` 接受浮点（或复数）'
              '输入。'},
    "lesson.array_pred.title": {
        "en": '`lax.cond` and `lax.switch` choose once per call: they need one value to choose on',
        "de": '`lax.cond` und `lax.switch` wählen einmal pro Aufruf: Sie brauchen einen einzigen Wert zum Wählen',
        "zh": '`lax.cond` 和 `lax.switch` 每次调用只选择一次：用来选择的必须是单个值'},
    "lesson.array_pred.what": {
        "en": '`lax.cond` runs one branch for the whole call (and `lax.switch` one of its functions), so its predicate '
              '(or index) must be a single value; this one has shape {shape}, a choice per element.',
        "de": '`lax.cond` führt für den ganzen Aufruf einen Zweig aus (und `lax.switch` eine seiner Funktionen), also '
              'muss die Bedingung (oder der Index) ein einziger Wert sein; diese hat die Shape {shape}, eine Wahl pro '
              'Element.',
        "zh": '`lax.cond` 在整个调用中只运行一个分支（`lax.switch` 只运行其中一个函数），'
              '所以条件（或索引）必须是单个值；这里的 shape 是 {shape}，即每个元素一个选择。'},
    "lesson.carry.title": {
        "en": 'a loop must carry values of one shape and dtype',
        "de": 'eine Schleife muss Werte einer Shape und eines dtypes mitführen',
        "zh": '循环携带的值必须保持同一个 shape 和 dtype'},
    "lesson.carry.what": {
        "en": '`lax.fori_loop`, `lax.while_loop` and `lax.scan` compile the body once and run it many times, so what '
              'it carries from one step to the next must keep its shape and dtype: here it went in as {before} and '
              'came out as {after}.',
        "de": '`lax.fori_loop`, `lax.while_loop` und `lax.scan` kompilieren den Rumpf einmal und führen ihn viele '
              'Male aus, also muss das, was er von einem Schritt zum nächsten mitführt, seine Shape und seinen dtype '
              'behalten: Hier ging es als {before} hinein und kam als {after} heraus.',
        "zh": '`lax.fori_loop`、`lax.while_loop` 和 `lax.scan` 只编译一次循环体，然后运行很多次，'
              '所以它从一步带到下一步的值必须保持 shape 和 dtype 不变：这里它进去时是 {before}，出来时是 {after}。'},
    "lesson.branches.title": {
        "en": 'both branches must return the same shapes and dtypes',
        "de": 'beide Zweige müssen dieselben Shapes und dtypes zurückgeben',
        "zh": '所有分支必须返回相同的 shape 和 dtype'},
    "lesson.branches.what": {
        "en": '`lax.{prim}` compiles every branch into one program and picks one when it runs, so all of them must '
              'return the same shapes and dtypes: one returns {a} and another {b}.',
        "de": '`lax.{prim}` kompiliert jeden Zweig in ein Programm und wählt beim Laufen einen aus, also müssen alle '
              'dieselben Shapes und dtypes zurückgeben: Einer gibt {a} zurück und ein anderer {b}.',
        "zh": '`lax.{prim}` 把每个分支都编译进同一个程序，在运行时选择其中一个，所以它们必须返回相同的 shape 和 '
              'dtype：一个返回 {a}，另一个返回 {b}。'},
    "lesson.vmap_sizes.title": {
        "en": 'the batched arguments have different numbers of examples',
        "de": 'die gebatchten Argumente haben unterschiedlich viele Beispiele',
        "zh": '被批处理的参数样本数不同'},
    "lesson.vmap_sizes.what": {
        "en": '`jax.vmap` runs the function once per example, taking example i from every batched argument, so their '
              'batch axes must be equally long.',
        "de": '`jax.vmap` führt die Funktion einmal pro Beispiel aus und nimmt Beispiel i aus jedem gebatchten '
              'Argument, also müssen ihre Batch-Achsen gleich lang sein.',
        "zh": '`jax.vmap` 对每个样本运行一次函数，从每个被批处理的参数中取第 i 个样本，所以它们的批轴长度必须相等。'},
    "lesson.keys.title": {
        "en": "a dict's keys must be sortable",
        "de": 'die Keys eines Dicts müssen sortierbar sein',
        "zh": '字典的键必须可以排序'},
    "lesson.keys.what": {
        "en": 'JAX flattens a dict into its leaves in the order of its sorted keys, so that dicts with the same keys '
              'always have the same structure (and `jit` can reuse its program). Keys of types that cannot be '
              "compared, like `1` and `'b'`, cannot be sorted.",
        "de": 'JAX zerlegt ein Dict in seine Blätter in der Reihenfolge seiner sortierten Keys, damit Dicts mit '
              'denselben Keys immer dieselbe Struktur haben (und `jit` sein Programm wiederverwenden kann). Keys von '
              "Typen, die sich nicht vergleichen lassen, wie `1` und `'b'`, lassen sich nicht sortieren.",
        "zh": 'JAX 按照排序后的键的顺序把字典展开成叶子，这样键相同的字典总是有相同的结构（`jit` 也就能重用它的程序）'
              "。无法相互比较的类型的键，比如 `1` 和 `'b'`，无法排序。"},
    "lesson.nan.title": {
        "en": 'jax_debug_nans caught a NaN (or inf)',
        "de": 'jax_debug_nans hat ein NaN (oder inf) gefangen',
        "zh": 'jax_debug_nans 捕获到了一个 NaN（或 inf）'},
    "lesson.nan.what": {
        "en": 'Your code switched on `jax_debug_nans` (or `jax_debug_infs`), and a computation produced one: JAX '
              'stops there, instead of letting it spread silently into the result as it does by default.',
        "de": 'Dein Code hat `jax_debug_nans` (oder `jax_debug_infs`) eingeschaltet, und eine Berechnung hat eines '
              'erzeugt: JAX hält dort an, statt es wie sonst still bis ins Ergebnis weiterlaufen zu lassen.',
        "zh": '你的代码打开了 `jax_debug_nans`（或 `jax_debug_infs`），而某个计算产生了它：JAX 在那里停下，'
              '而不是像默认那样让它悄悄扩散到结果中。'},
    "lfix.list.literal": {
        "en": '{where} passes a Python {kind} to `{fn}`. Make it one array first:\n```python\n{new}\n```\n'
              '(`jnp.stack` does the same for a list of arrays of one shape.)',
        "de": '{where} übergibt ein Python-{kind} an `{fn}`. Mach zuerst ein Array daraus:\n```python\n{new}\n```\n'
              '(`jnp.stack` tut dasselbe für eine Liste von Arrays einer Shape.)',
        "zh": '{where}把一个 Python {kind} 传给了 `{fn}`。先把它变成一个数组：\n```python\n{new}\n```\n（对于由同一 '
              'shape 的数组组成的列表，`jnp.stack` 也一样。）'},
    "lfix.list.name": {
        "en": '{where} passes `{name}` to `{fn}`, and `{name}` is a Python {kind}. Convert it here, or make it an '
              'array where it comes from (in the Arguments field, `jnp.array([1, 2, 3])` rather than `[1, 2, 3]`):\n'
              '```python\n{new}\n```',
        "de": '{where} übergibt `{name}` an `{fn}`, und `{name}` ist ein Python-{kind}. Wandle es hier um, oder mach '
              'es dort zu einem Array, wo es herkommt (im Feld Argumente `jnp.array([1, 2, 3])` statt `[1, 2, 3]`):\n'
              '```python\n{new}\n```',
        "zh": '{where}把 `{name}` 传给了 `{fn}`，而 `{name}` 是一个 Python {kind}。在这里转换它，'
              '或者在它的来源处就把它变成数组（在参数框中写 `jnp.array([1, 2, 3])` 而不是 `[1, 2, 3]`）：\n'
              '```python\n{new}\n```'},
    "lfix.list.general": {
        "en": 'Convert the list or tuple to an array before passing it: `jnp.{fn}(jnp.asarray(values))`, or '
              '`jnp.stack(values)` for a list of arrays of one shape.',
        "de": 'Wandle die Liste oder das Tupel in ein Array um, bevor du es übergibst: '
              '`jnp.{fn}(jnp.asarray(values))`, oder `jnp.stack(values)` für eine Liste von Arrays einer Shape.',
        "zh": '在传入之前先把列表或元组转换成数组：`jnp.{fn}(jnp.asarray(values))`；对于由同一 shape '
              '的数组组成的列表，用 `jnp.stack(values)`。'},
    "lfix.truth.logic": {
        "en": '{where} combines arrays with `and`/`or`/`not`, which ask each side for one True or False. Combine '
              'them element by element instead:\n```python\nok = {logical}\n```\n(`&`, `|` and `~` do the same on '
              'boolean arrays.)',
        "de": '{where} verknüpft Arrays mit `and`/`or`/`not`, die jede Seite nach einem einzigen True oder False '
              'fragen. Verknüpfe sie stattdessen Element für Element:\n```python\nok = {logical}\n```\n(`&`, `|` und '
              '`~` tun dasselbe auf booleschen Arrays.)',
        "zh": '{where}用 `and`/`or`/`not` 组合数组，而它们要求每一边都是单个 True 或 False。改为逐元素组合：\n'
              '```python\nok = {logical}\n```\n（`&`、`|` 和 `~` 对布尔数组也是这样做的。）'},
    "lfix.truth.in_function": {
        "en": '{where} asks one True or False of a whole array. To choose element by element, select with '
              '`jnp.where`; to branch once on all (or any) of them, reduce first, and under `jit` branch with '
              '`lax.cond`:\n```python\ny = jnp.where({cond}, a, b)   # a where True, b where False\ny = '
              'lax.cond(jnp.all({cond}), true_fn, false_fn, x)   # or jnp.any\n```',
        "de": '{where} verlangt ein einziges True oder False von einem ganzen Array. Um Element für Element zu '
              'wählen, wähle mit `jnp.where` aus; um einmal nach allen (oder irgendeinem) zu verzweigen, reduziere '
              'zuerst und verzweige unter `jit` mit `lax.cond`:\n```python\ny = jnp.where({cond}, a, b)   # a wo '
              'True, b wo False\ny = lax.cond(jnp.all({cond}), true_fn, false_fn, x)   # oder jnp.any\n```',
        "zh": '{where}要求整个数组给出单个 True 或 False。要逐元素选择，用 `jnp.where`；要根据全部（或任意一个）'
              '元素只分支一次，先做归约，在 `jit` 下用 `lax.cond` 分支：\n```python\ny = jnp.where({cond}, a, b)   # '
              'True 处取 a，False 处取 b\ny = lax.cond(jnp.all({cond}), true_fn, false_fn, x)   # 或 jnp.any\n```'},
    "lfix.truth.top": {
        "en": '{where} asks one True or False of a whole array. Say which you mean:\n```python\nif jnp.all({cond}): '
              '...   # every element (also {method}.all())\nif jnp.any({cond}): ...   # at least one\ny = '
              'jnp.where({cond}, a, b)   # element by element\n```',
        "de": '{where} verlangt ein einziges True oder False von einem ganzen Array. Sag, welches du meinst:\n'
              '```python\nif jnp.all({cond}): ...   # jedes Element (auch {method}.all())\nif jnp.any({cond}): ...   '
              '# mindestens eines\ny = jnp.where({cond}, a, b)   # Element für Element\n```',
        "zh": '{where}要求整个数组给出单个 True 或 False。说清楚你指的是哪种：\n```python\nif jnp.all({cond}): ...   '
              '# 每个元素（也可写 {method}.all()）\nif jnp.any({cond}): ...   # 至少一个\ny = jnp.where({cond}, a, '
              'b)   # 逐元素\n```'},
    "lfix.setitem.line": {
        "en": '{where} assigns into an array. Make a new array with the change, and keep the name:\n```python\n'
              '{array} = {array}.at[{index}].{method}({value})\n```',
        "de": '{where} weist in ein Array hinein zu. Erzeuge ein neues Array mit der Änderung und behalte den '
              'Namen:\n```python\n{array} = {array}.at[{index}].{method}({value})\n```',
        "zh": '{where}对数组的元素赋值。改为创建一个带有修改的新数组，并沿用原来的名字：\n```python\n{array} = '
              '{array}.at[{index}].{method}({value})\n```'},
    "lfix.setitem.general": {
        "en": 'Write the update as a new array: `x = x.at[i].set(y)` (also `.add`, `.multiply`, `.min`, `.max`, '
              '...).\n```python\nx = x.at[0].set(1.0)\n```',
        "de": 'Schreib das Update als neues Array: `x = x.at[i].set(y)` (auch `.add`, `.multiply`, `.min`, `.max`, '
              '...).\n```python\nx = x.at[0].set(1.0)\n```',
        "zh": '把更新写成一个新数组：`x = x.at[i].set(y)`（还有 `.add`、`.multiply`、`.min`、`.max` 等）。\n'
              '```python\nx = x.at[0].set(1.0)\n```'},
    "lfix.take": {
        "en": '{where} asks `jnp.take` to raise. Pick what an index out of bounds should give instead, for example '
              'NaN:\n```python\ny = jnp.take({array}, {index}, mode="fill", fill_value=jnp.nan)\ny = '
              '{array}.at[{index}].get(mode="fill", fill_value=jnp.nan)   # the same, as indexing\n```\nTo check '
              'indices on purpose, check them before calling the function, or use `checkify`.',
        "de": '{where} verlangt von `jnp.take`, einen Fehler auszulösen. Wähle stattdessen, was ein Index außerhalb '
              'der Grenzen liefern soll, zum Beispiel NaN:\n```python\ny = jnp.take({array}, {index}, mode="fill", '
              'fill_value=jnp.nan)\ny = {array}.at[{index}].get(mode="fill", fill_value=jnp.nan)   # dasselbe, als '
              'Indizierung\n```\nUm Indizes bewusst zu prüfen, prüfe sie vor dem Aufruf der Funktion, oder nutze '
              '`checkify`.',
        "zh": '{where}要求 `jnp.take` 报错。改为选择越界下标应该给出什么，例如 NaN：\n```python\ny = '
              'jnp.take({array}, {index}, mode="fill", fill_value=jnp.nan)\ny = {array}.at[{index}].get(mode="fill", '
              'fill_value=jnp.nan)   # 同样的效果，用索引写法\n```\n如果确实要检查下标，在调用函数之前检查，或者使用 '
              '`checkify`。'},
    "lfix.lax.general": {
        "en": 'Use `jnp.{op}(a, b)`, which promotes, or give `lax.{op}` two values of one dtype: '
              '`lax.{op}(a.astype(b.dtype), b)`.',
        "de": 'Nutze `jnp.{op}(a, b)`, das Typen befördert, oder gib `lax.{op}` zwei Werte eines dtypes: '
              '`lax.{op}(a.astype(b.dtype), b)`.',
        "zh": '使用会做类型提升的 `jnp.{op}(a, b)`，或者给 `lax.{op}` 两个相同 dtype 的值：'
              '`lax.{op}(a.astype(b.dtype), b)`。'},
    "lfix.lax.line": {
        "en": '{where} gives `lax.{op}` {a} and {b}. Either let `jax.numpy` promote them, or give `lax` one dtype '
              'yourself:\n```python\n{promoting}   # instead of {old}\n{converted}\n```',
        "de": '{where} gibt `lax.{op}` {a} und {b}. Lass entweder `jax.numpy` die Typen befördern, oder gib `lax` '
              'selbst einen dtype:\n```python\n{promoting}   # statt {old}\n{converted}\n```',
        "zh": '{where}给了 `lax.{op}` {a} 和 {b}。要么让 `jax.numpy` 做类型提升，要么自己给 `lax` 统一的 dtype：\n'
              '```python\n{promoting}   # 代替 {old}\n{converted}\n```'},
    "lfix.lax.converted": {
        "en": 'lax.{op}(a.astype(jnp.{b}), b)   # a is the {a} one',
        "de": 'lax.{op}(a.astype(jnp.{b}), b)   # a ist der {a}-Wert',
        "zh": 'lax.{op}(a.astype(jnp.{b}), b)   # a 是 {a} 的那个'},
    "lfix.overflow.lead": {
        "en": '{where} uses the integer {value}, which {dtype} cannot hold ({low} to {high}).',
        "de": '{where} nutzt die ganze Zahl {value}, die {dtype} nicht fassen kann ({low} bis {high}).',
        "zh": '{where}使用了整数 {value}，而 {dtype} 放不下它（范围 {low} 到 {high}）。'},
    "lfix.overflow.lead_plain": {
        "en": '{where} uses the integer {value}.',
        "de": '{where} nutzt die ganze Zahl {value}.',
        "zh": '{where}使用了整数 {value}。'},
    "lfix.overflow.narrow": {
        "en": ' Choose a dtype wide enough for it (`jnp.int32`), or clip the value first.',
        "de": ' Wähle einen dtype, der breit genug dafür ist (`jnp.int32`), oder begrenze den Wert vorher.',
        "zh": '请选择足够宽的 dtype（`jnp.int32`），或者先截断这个值。'},
    "lfix.overflow.none": {
        "en": ' No integer dtype of JAX holds it. If a float will do, write it as one (`{raw}.0`, a float with about '
              '7 significant digits in float32).',
        "de": ' Kein ganzzahliger dtype von JAX fasst sie. Wenn ein Float reicht, schreib sie als einen (`{raw}.0`, '
              'ein Float mit etwa 7 signifikanten Stellen in float32).',
        "zh": 'JAX 没有任何整数 dtype 能放下它。如果浮点数就够用，就写成浮点数（`{raw}.0`，在 float32 中约有 7 '
              '位有效数字）。'},
    "lfix.overflow.x64": {
        "en": ' If a float will do, write it as one (`{raw}.0`, a float with about 7 significant digits in float32); '
              'for 64-bit integers and floats, switch JAX to 64 bits at the top of your code, before any array is '
              'made:\n```python\njax.config.update("jax_enable_x64", True)\n```',
        "de": ' Wenn ein Float reicht, schreib sie als einen (`{raw}.0`, ein Float mit etwa 7 signifikanten Stellen '
              'in float32); für 64-Bit-Ganzzahlen und -Floats schalte JAX ganz oben in deinem Code auf 64 Bit um, '
              'bevor irgendein Array erzeugt wird:\n```python\njax.config.update("jax_enable_x64", True)\n```',
        "zh": '如果浮点数就够用，就写成浮点数（`{raw}.0`，在 float32 中约有 7 位有效数字）；要使用 64 '
              '位整数和浮点数，在代码最上面、创建任何数组之前把 JAX 切换到 64 位：\n```python\n'
              'jax.config.update("jax_enable_x64", True)\n```'},
    "lfix.key": {
        "en": '{where} gives `jax.random` something that is not a key. Make a key once from a seed, and split it for '
              'each use (a key used twice gives the same numbers twice):\n```python\nkey = jax.random.key({seed})\n'
              'key, subkey = jax.random.split(key)\n{new}\n```\nIn a function, take the key as an argument, like the '
              'data.',
        "de": '{where} gibt `jax.random` etwas, das kein Key ist. Mach einmal einen Key aus einem Seed und splitte '
              'ihn für jede Verwendung (ein zweimal benutzter Key liefert zweimal dieselben Zahlen):\n```python\nkey '
              '= jax.random.key({seed})\nkey, subkey = jax.random.split(key)\n{new}\n```\nIn einer Funktion nimm den '
              'Key als Argument, wie die Daten.',
        "zh": '{where}给 `jax.random` 的不是 key。用种子生成一次 key，每次使用前 split（同一个 key '
              '用两次会给出两次同样的数）：\n```python\nkey = jax.random.key({seed})\nkey, subkey = '
              'jax.random.split(key)\n{new}\n```\n在函数中，像数据一样把 key 作为参数传入。'},
    "lfix.ragged": {
        "en": '{where} makes an array from rows of different lengths. Pad the rows to one length (and keep a mask of '
              'which entries are real), or keep them as a list of arrays, which JAX handles as a pytree:\n```python\n'
              'rows = jnp.array([[1, 2], [3, 0]])   # padded with 0\nlengths = jnp.array([2, 1])\n```',
        "de": '{where} erzeugt ein Array aus Zeilen verschiedener Länge. Fülle die Zeilen auf eine Länge auf (und '
              'behalte eine Maske, welche Einträge echt sind), oder behalte sie als Liste von Arrays, die JAX als '
              'Pytree behandelt:\n```python\nrows = jnp.array([[1, 2], [3, 0]])   # mit 0 aufgefüllt\nlengths = '
              'jnp.array([2, 1])\n```',
        "zh": '{where}用长度不同的行创建数组。把各行填充到同一长度（并保留一个标记哪些元素是真实数据的掩码），'
              '或者把它们保留为数组列表，JAX 会把它当作 pytree 处理：\n```python\nrows = jnp.array([[1, 2], [3, 0]]) '
              '  # 用 0 填充\nlengths = jnp.array([2, 1])\n```'},
    "lfix.jaxtype.iterator": {
        "en": '{where} hands JAX a {kind}. Make the values an array first (`jnp.arange(10)` for `iter(range(10))`, '
              '`jnp.asarray(list(values))` otherwise) and index it (`x[0]`) instead of calling `next`: an array has '
              'no hidden position that changes as it is read.',
        "de": '{where} gibt JAX ein {kind}. Mach die Werte zuerst zu einem Array (`jnp.arange(10)` für '
              '`iter(range(10))`, sonst `jnp.asarray(list(values))`) und indiziere es (`x[0]`), statt `next` '
              'aufzurufen: Ein Array hat keine versteckte Position, die sich beim Lesen ändert.',
        "zh": '{where}把一个 {kind} 交给了 JAX。先把这些值变成数组（`iter(range(10))` 用 `jnp.arange(10)`，'
              '其他情况用 `jnp.asarray(list(values))`），然后用下标（`x[0]`）取值，而不是调用 `next`：'
              '数组没有会随读取而改变的隐藏位置。'},
    "lfix.jaxtype.other": {
        "en": '{where} hands JAX a {kind}. Pass an array, a number or a pytree (tuple, list, dict) of them '
              '(`jnp.asarray(...)`), or, if the object is a setting rather than data, close over it as a constant '
              '(use it inside the function without passing it in).',
        "de": '{where} gibt JAX ein {kind}. Übergib ein Array, eine Zahl oder einen Pytree (Tupel, Liste, Dict) '
              'daraus (`jnp.asarray(...)`), oder, wenn das Objekt eine Einstellung und keine Daten ist, schließ es '
              'als Konstante ein (benutze es in der Funktion, ohne es zu übergeben).',
        "zh": '{where}把一个 {kind} 交给了 JAX。请传入数组、数字，或由它们组成的 pytree（元组、列表、字典）'
              '（`jnp.asarray(...)`）；如果这个对象是设置而不是数据，就把它作为常量闭包进去（在函数内部直接使用，'
              '而不作为参数传入）。'},
    "lfix.shape.has": {
        "en": '`{name}` has shape {shape}',
        "de": '`{name}` hat die Shape {shape}',
        "zh": '`{name}` 的 shape 是 {shape}'},
    "lfix.shape.and": {
        "en": ' and ',
        "de": ' und ',
        "zh": '，'},
    "lfix.shape.stop": {
        "en": '. ',
        "de": '. ',
        "zh": '。'},
    "lfix.shapes2": {
        "en": '{a} and {b}',
        "de": '{a} und {b}',
        "zh": '{a} 和 {b}'},
    "lfix.matmul.lead": {
        "en": '{where} multiplies arrays whose inner lengths differ ({a} against {b}). ',
        "de": '{where} multipliziert Arrays, deren innere Längen sich unterscheiden ({a} gegen {b}). ',
        "zh": '{where}相乘的两个数组内侧长度不同（{a} 对 {b}）。'},
    "lfix.matmul.second": {
        "en": 'Transpose the second:\n```python\n{code}   # shape {shape}\n```',
        "de": 'Transponiere das zweite:\n```python\n{code}   # Shape {shape}\n```',
        "zh": '转置第二个：\n```python\n{code}   # shape {shape}\n```'},
    "lfix.matmul.first": {
        "en": 'Transpose the first:\n```python\n{code}   # shape {shape}\n```',
        "de": 'Transponiere das erste:\n```python\n{code}   # Shape {shape}\n```',
        "zh": '转置第一个：\n```python\n{code}   # shape {shape}\n```'},
    "lfix.matmul.general": {
        "en": 'The last axis of the left operand must be as long as the first axis of the right one (its second to '
              'last, if it has more). Print the shapes (`print(x.shape)` works while tracing), then transpose (`.T`) '
              'or reshape the one that is the wrong way round.',
        "de": 'Die letzte Achse des linken Operanden muss so lang sein wie die erste Achse des rechten (seine '
              'vorletzte, wenn er mehr hat). Gib die Shapes aus (`print(x.shape)` funktioniert beim Tracen) und '
              'transponiere (`.T`) oder reshape dann den, der falsch herum ist.',
        "zh": '左操作数的最后一个轴必须和右操作数的第一个轴（如果右操作数超过两维，则是倒数第二个轴）一样长。打印出 '
              'shape（`print(x.shape)` 在追踪时也能用），然后把方向错了的那个转置（`.T`）或 reshape。'},
    "lfix.broadcast.lead": {
        "en": '{where} combines shapes {shapes} element by element. ',
        "de": '{where} verknüpft die Shapes {shapes} Element für Element. ',
        "zh": '{where}逐元素地组合 shape {shapes}。'},
    "lfix.broadcast.outer": {
        "en": 'If you want every pair (an outer {sign}), give the first an axis of length 1:\n```python\n{a}[:, '
              'None] {sign} {b}   # shape {shape}\n```\nIf the two should have one length, the bug is where one of '
              'them was made.',
        "de": 'Wenn du jedes Paar willst (ein äußeres {sign}), gib dem ersten eine Achse der Länge 1:\n```python\n'
              '{a}[:, None] {sign} {b}   # Shape {shape}\n```\nWenn die beiden eine Länge haben sollten, steckt der '
              'Fehler dort, wo eines von ihnen erzeugt wurde.',
        "zh": '如果你想要每一对的组合（外积式的 {sign}），给第一个加一个长度为 1 的轴：\n```python\n{a}[:, None] '
              '{sign} {b}   # shape {shape}\n```\n如果这两者本该一样长，问题出在创建其中一个的地方。'},
    "lfix.broadcast.general": {
        "en": 'Line the shapes up from the right so that each pair of lengths is equal or 1: add axes of length 1 '
              'with `x[:, None]` or `jnp.expand_dims(x, axis)`, or `reshape` one of them.\n```python\n'
              'jnp.broadcast_shapes((3, 1), (4,))   # (3, 4): check a combination before you run it\n```',
        "de": 'Richte die Shapes von rechts aus, sodass jedes Paar von Längen gleich oder 1 ist: Füge Achsen der '
              'Länge 1 mit `x[:, None]` oder `jnp.expand_dims(x, axis)` hinzu, oder `reshape` eines davon.\n'
              '```python\njnp.broadcast_shapes((3, 1), (4,))   # (3, 4): prüfe eine Kombination, bevor du sie '
              'ausführst\n```',
        "zh": '从右边对齐各个 shape，使每一对长度相等或为 1：用 `x[:, None]` 或 `jnp.expand_dims(x, axis)` '
              '添加长度为 1 的轴，或者对其中一个做 `reshape`。\n```python\njnp.broadcast_shapes((3, 1), (4,))   # '
              '(3, 4)：运行之前先检查组合\n```'},
    "lfix.reshape.lead": {
        "en": '{where} reshapes the {size} elements of shape {old} into shape {new}. ',
        "de": '{where} formt die {size} Elemente der Shape {old} in die Shape {new} um. ',
        "zh": '{where}把 shape 为 {old} 的 {size} 个元素 reshape 成 shape {new}。'},
    "lfix.reshape.lead_holds": {
        "en": '{where} reshapes the {size} elements of shape {old} into shape {new}, which holds {m}. ',
        "de": '{where} formt die {size} Elemente der Shape {old} in die Shape {new} um, die {m} fasst. ',
        "zh": '{where}把 shape 为 {old} 的 {size} 个元素 reshape 成 shape {new}，而它容纳 {m} 个。'},
    "lfix.reshape.minus_one": {
        "en": 'With a -1, the other lengths must multiply to a number that divides {size}.',
        "de": 'Mit einer -1 müssen die anderen Längen multipliziert eine Zahl ergeben, die {size} teilt.',
        "zh": '有 -1 时，其他长度的乘积必须能整除 {size}。'},
    "lfix.reshape.minus_one_divisors": {
        "en": 'With a -1, the other lengths must multiply to a number that divides {size} ({divisors}).',
        "de": 'Mit einer -1 müssen die anderen Längen multipliziert eine Zahl ergeben, die {size} teilt ({divisors}).',
        "zh": '有 -1 时，其他长度的乘积必须能整除 {size}（{divisors}）。'},
    "lfix.reshape.fixed": {
        "en": 'Let JAX work out one length with -1:\n```python\n{fixed}   # shape {result}\n```',
        "de": 'Lass JAX eine Länge mit -1 ausrechnen:\n```python\n{fixed}   # Shape {result}\n```',
        "zh": '用 -1 让 JAX 算出其中一个长度：\n```python\n{fixed}   # shape {result}\n```'},
    "lfix.reshape.general": {
        "en": 'The lengths of the new shape must multiply to {size}; one of them may be -1, which JAX works out from '
              'the others.',
        "de": 'Die Längen der neuen Shape müssen multipliziert {size} ergeben; eine davon darf -1 sein, die JAX aus '
              'den anderen ausrechnet.',
        "zh": '新 shape 各长度的乘积必须等于 {size}；其中一个可以是 -1，由 JAX 根据其他长度算出。'},
    "lfix.join.stack": {
        "en": '{where} stacks arrays of shapes {shapes}. `jnp.stack` puts arrays of one shape side by side along a '
              'new axis; to join arrays of different lengths end to end, use `jnp.concatenate`.',
        "de": '{where} stapelt Arrays der Shapes {shapes}. `jnp.stack` legt Arrays einer Shape entlang einer neuen '
              'Achse nebeneinander; um Arrays verschiedener Länge hintereinander zu hängen, nutze `jnp.concatenate`.',
        "zh": '{where}堆叠 shape 为 {shapes} 的数组。`jnp.stack` 把同一 shape 的数组沿一个新轴并排放在一起；'
              '要把长度不同的数组首尾相接，请用 `jnp.concatenate`。'},
    "lfix.join.concat": {
        "en": '{where} concatenates arrays of shapes {shapes}. They must have the same number of axes, and equal '
              'lengths on every axis except the one joined (`axis=`, 0 unless given). Add an axis with `x[None]` or '
              '`x[:, None]`, or choose another `axis`:\n```python\njnp.concatenate([a, b], axis=0)   # a: (3, 2), b: '
              '(4, 2) -> (7, 2)\n```',
        "de": '{where} verkettet Arrays der Shapes {shapes}. Sie müssen gleich viele Achsen haben und auf jeder '
              'Achse außer der verbundenen (`axis=`, 0, wenn nicht angegeben) gleich lang sein. Füge eine Achse mit '
              '`x[None]` oder `x[:, None]` hinzu, oder wähle eine andere `axis`:\n```python\njnp.concatenate([a, b], '
              'axis=0)   # a: (3, 2), b: (4, 2) -> (7, 2)\n```',
        "zh": '{where}拼接 shape 为 {shapes} 的数组。它们的轴数必须相同，并且除了拼接的那个轴（`axis=`，默认为 0）'
              '之外，每个轴上长度都要相等。用 `x[None]` 或 `x[:, None]` 添加一个轴，或者选择另一个 `axis`：\n'
              '```python\njnp.concatenate([a, b], axis=0)   # a: (3, 2), b: (4, 2) -> (7, 2)\n```'},
    "lfix.shape_arg.traced": {
        "en": '{where} sizes an array with a traced number. Shapes must be known when compiling: compute sizes from '
              '`x.shape`, which is always known, or make the size a static argument.\n',
        "de": '{where} gibt einem Array seine Größe mit einer getracten Zahl. Shapes müssen beim Kompilieren bekannt '
              'sein: Berechne Größen aus `x.shape`, das immer bekannt ist, oder mach die Größe zu einem statischen '
              'Argument.\n',
        "zh": '{where}用一个被追踪的数值来确定数组的大小。shape 必须在编译时已知：从总是已知的 `x.shape` 计算大小，'
              '或者把大小设为静态参数。\n'},
    "lfix.shape_arg.array": {
        "en": '{where} passes the array `{name}` where a shape is expected. For an array of its shape, pass its '
              'shape:\n```python\n{code}\n```',
        "de": '{where} übergibt das Array `{name}`, wo eine Shape erwartet wird. Für ein Array seiner Shape übergib '
              'seine Shape:\n```python\n{code}\n```',
        "zh": '{where}在需要 shape 的地方传入了数组 `{name}`。要得到与它 shape 相同的数组，请传入它的 shape：\n'
              '```python\n{code}\n```'},
    "lfix.shape_arg.general": {
        "en": 'Pass a shape as a tuple of Python ints, like `(3,)` or `x.shape`, not an array.',
        "de": 'Übergib eine Shape als Tupel von Python-ints, wie `(3,)` oder `x.shape`, nicht als Array.',
        "zh": '把 shape 作为 Python int 元组传入，比如 `(3,)` 或 `x.shape`，而不是数组。'},
    "lfix.unhashable.tracer": {
        "en": '{where} passes a traced value where a jitted function declares a static argument: the value comes '
              'from an argument of an outer `jax.jit`, which traces it. Make it static there too (for `{inspected}` '
              'in the Inspect tab: its position in the static_argnums field, or `@partial(jax.jit, '
              'static_argnames=...)` on it), and pass a Python value (an int, a tuple), not an array: a static value '
              'must be known when tracing.',
        "de": '{where} übergibt einen getracten Wert, wo eine gejittete Funktion ein statisches Argument erklärt: '
              'Der Wert kommt aus einem Argument eines äußeren `jax.jit`, das ihn beim Tracing erfasst. Mach ihn dort '
              'auch statisch (für `{inspected}` im Inspect-Tab: seine Position im Feld static_argnums, oder '
              '`@partial(jax.jit, static_argnames=...)` darauf), und übergib einen Python-Wert (einen int, ein '
              'Tupel), kein Array: Ein statischer Wert muss beim Tracen bekannt sein.',
        "zh": '{where}在被 jit 的函数声明了静态参数的地方传入了一个被追踪的值：这个值来自外层 `jax.jit` 的参数，'
              '外层会追踪它。在外层也把它设为静态（对 Inspect 标签页中的 `{inspected}`：把它的位置填进 '
              'static_argnums 框，或者给它加上 `@partial(jax.jit, static_argnames=...)`），并传入 Python 值（int、'
              '元组），而不是数组：静态值必须在追踪时已知。'},
    "lfix.unhashable.literal": {
        "en": '{where} passes the {kind} `{old}` as a static argument. Pass a tuple, which is hashable:\n```python\n'
              '{code}   # instead of {old}\n```\nOr, if it holds numbers to compute with, pass it as an ordinary '
              '(traced) argument, as an array.',
        "de": '{where} übergibt das {kind} `{old}` als statisches Argument. Übergib ein Tupel, das hashbar ist:\n'
              '```python\n{code}   # statt {old}\n```\nOder, wenn es Zahlen enthält, mit denen gerechnet wird, '
              'übergib es als gewöhnliches (getractes) Argument, als Array.',
        "zh": '{where}把 {kind} `{old}` 作为静态参数传入。改为传入可哈希的元组：\n```python\n{code}   # 代替 {old}\n'
              '```\n或者，如果它装的是要参与计算的数字，就把它作为普通（被追踪的）参数、以数组形式传入。'},
    "lfix.unhashable.dict": {
        "en": '{where} passes a dict as a static argument. Pass its items as a tuple, '
              '`tuple(sorted(config.items()))`, or, if its values are numbers to compute with, pass the dict as an '
              'ordinary (traced) argument: a dict of arrays is a pytree, which `jit` traces leaf by leaf.',
        "de": '{where} übergibt ein Dict als statisches Argument. Übergib seine Einträge als Tupel, '
              '`tuple(sorted(config.items()))`, oder, wenn seine Werte Zahlen sind, mit denen gerechnet wird, '
              'übergib das Dict als gewöhnliches (getractes) Argument: Ein Dict von Arrays ist ein Pytree, dessen '
              'Blätter `jit` einzeln beim Tracing erfasst.',
        "zh": '{where}把字典作为静态参数传入。把它的条目作为元组传入，`tuple(sorted(config.items()))`；或者，'
              '如果它的值是要参与计算的数字，就把字典作为普通（被追踪的）参数传入：由数组组成的字典是一个 pytree，'
              '`jit` 会逐个叶子地追踪它。'},
    "lfix.unhashable.other": {
        "en": '{where} passes a {kind} as a static argument. Make it a tuple (`tuple(values)`), or pass it as an '
              'ordinary (traced) argument, leaving it out of `static_argnums`/`static_argnames`: arrays are traced '
              'arguments, not static ones.',
        "de": '{where} übergibt ein {kind} als statisches Argument. Mach ein Tupel daraus (`tuple(values)`), oder '
              'übergib es als gewöhnliches (getractes) Argument und lass es aus `static_argnums`/`static_argnames` '
              'heraus: Arrays sind getracte Argumente, keine statischen.',
        "zh": '{where}把一个 {kind} 作为静态参数传入。把它变成元组（`tuple(values)`），或者把它作为普通（被追踪的）'
              '参数传入，不放进 `static_argnums`/`static_argnames`：数组是被追踪的参数，不是静态参数。'},
    "lfix.non_array.static": {
        "en": '{where} passes a {type} as `{argument}` to the jitted `{function}`. Mark that argument static, and JAX '
              'compiles one program per value of it:\n```python\n{marked}\n```\nor, as a decorator, '
              '`@partial(jax.jit, {static})` (with `from functools import partial`).',
        "de": '{where} übergibt ein {type} als `{argument}` an das gejittete `{function}`. Markiere dieses Argument '
              'als statisch, dann kompiliert JAX ein Programm pro Wert davon:\n```python\n{marked}\n```\noder, als '
              'Dekorator, `@partial(jax.jit, {static})` (mit `from functools import partial`).',
        "zh": '{where}把一个 {type} 作为 `{argument}` 传给了被 jit 的 `{function}`。把这个参数标记为静态，JAX '
              '就会为它的每个值编译一个程序：\n```python\n{marked}\n```\n或者用装饰器 `@partial(jax.jit, '
              '{static})`（需要 `from functools import partial`）。'},
    "lfix.non_array.tab": {
        "en": '\n(In the Inspect tab: {n} in the static_argnums field.)',
        "de": '\n(Im Inspect-Tab: {n} ins Feld static_argnums.)',
        "zh": '\n（在 Inspect 标签页中：在 static_argnums 框中填 {n}。）'},
    "lfix.non_array.other": {
        "en": '{where} passes a {type} to `{function}`, which takes arrays and numbers only. Pass it an array '
              '(`jnp.asarray(...)`), or, if the value is a setting, mark it static in the `jax.jit` that receives it '
              '(`static_argnames=`).',
        "de": '{where} übergibt ein {type} an `{function}`, das nur Arrays und Zahlen nimmt. Übergib ihm ein Array '
              '(`jnp.asarray(...)`), oder, wenn der Wert eine Einstellung ist, markiere ihn im `jax.jit`, das ihn '
              'bekommt, als statisch (`static_argnames=`).',
        "zh": '{where}把一个 {type} 传给了只接受数组和数字的 `{function}`。给它传数组（`jnp.asarray(...)`）；或者，'
              '如果这个值是设置，就在接收它的 `jax.jit` 中把它标记为静态（`static_argnames=`）。'},
    "lfix.grad_output": {
        "en": '{where} differentiates `{g}`, which returns shape ({shape}). Say which derivative you mean:\n'
              '```python\njax.vmap(jax.grad({g}))(x)   # each output by its own input, if {g} works element by '
              'element\njax.grad(lambda x: jnp.sum({g}(x)))(x)   # the gradient of the sum\njax.jacrev({g})(x)   # '
              'every output by every input (its Jacobian)\n```',
        "de": '{where} leitet `{g}` ab, das die Shape ({shape}) zurückgibt. Sag, welche Ableitung du meinst:\n'
              '```python\njax.vmap(jax.grad({g}))(x)   # jede Ausgabe nach ihrer eigenen Eingabe, wenn {g} '
              'elementweise arbeitet\njax.grad(lambda x: jnp.sum({g}(x)))(x)   # der Gradient der Summe\n'
              'jax.jacrev({g})(x)   # jede Ausgabe nach jeder Eingabe (ihre Jacobi-Matrix)\n```',
        "zh": '{where}对 `{g}` 求导，而它返回 shape ({shape})。说清楚你要的是哪种导数：\n```python\n'
              'jax.vmap(jax.grad({g}))(x)   # 每个输出对它自己的输入求导，如果 {g} 是逐元素计算的\njax.grad(lambda '
              'x: jnp.sum({g}(x)))(x)   # 总和的梯度\njax.jacrev({g})(x)   # 每个输出对每个输入求导（雅可比矩阵）'
              '\n```'},
    "lfix.grad_input.literal": {
        "en": '{where} differentiates at the integer `{value}`. Write it as a float:\n```python\n{code}   # not '
              '{value}\n```',
        "de": '{where} leitet an der ganzen Zahl `{value}` ab. Schreib sie als Float:\n```python\n{code}   # nicht '
              '{value}\n```',
        "zh": '{where}在整数 `{value}` 处求导。把它写成浮点数：\n```python\n{code}   # 而不是 {value}\n```'},
    "lfix.grad_input.array": {
        "en": '{where} differentiates at an integer array. Convert it: `x.astype(jnp.float32)`; or, if it is data '
              'that needs no derivative, pass `allow_int=True` to `jax.grad` (its gradient is then zero, of dtype '
              'float0).',
        "de": '{where} leitet an einem ganzzahligen Array ab. Wandle es um: `x.astype(jnp.float32)`; oder, wenn es '
              'Daten sind, die keine Ableitung brauchen, übergib `allow_int=True` an `jax.grad` (sein Gradient ist '
              'dann null, vom dtype float0).',
        "zh": '{where}在整数数组处求导。把它转换一下：`x.astype(jnp.float32)`；或者，如果它是不需要导数的数据，给 '
              '`jax.grad` 传 `allow_int=True`（这时它的梯度为零，dtype 为 float0）。'},
    "lfix.carry.dtype": {
        "en": '{where} starts the loop with `{old}` ({before}), but each step returns a {after}. Start with the '
              'dtype the body returns:\n```python\n{code}\n```',
        "de": '{where} beginnt die Schleife mit `{old}` ({before}), aber jeder Schritt gibt ein {after} zurück. '
              'Beginne mit dem dtype, den der Rumpf zurückgibt:\n```python\n{code}\n```',
        "zh": '{where}用 `{old}`（{before}）开始循环，但每一步返回的是 {after}。用循环体返回的 dtype 作为初始值：\n'
              '```python\n{code}\n```'},
    "lfix.carry.dtype_general": {
        "en": 'Start the loop with a value of the dtype its body returns ({after}), e.g. `0.0` instead of `0`.',
        "de": 'Beginne die Schleife mit einem Wert des dtypes, den ihr Rumpf zurückgibt ({after}), z. B. `0.0` statt '
              '`0`.',
        "zh": '用循环体返回的 dtype（{after}）的值开始循环，例如用 `0.0` 而不是 `0`。'},
    "lfix.carry.grows": {
        "en": '{where} grows the value the loop carries ({before} -> {after}). Make it full size from the start and '
              'fill it in, or let `lax.scan` collect one result per step:\n```python\nout = lax.fori_loop(0, n, '
              'lambda i, out: out.at[i].set(step(i)), jnp.zeros(n))\n_, out = lax.scan(lambda carry, i: (carry, '
              'step(i)), None, jnp.arange(n))\n```',
        "de": '{where} lässt den Wert wachsen, den die Schleife mitführt ({before} -> {after}). Mach ihn von Anfang '
              'an voll groß und fülle ihn, oder lass `lax.scan` ein Ergebnis pro Schritt sammeln:\n```python\nout = '
              'lax.fori_loop(0, n, lambda i, out: out.at[i].set(step(i)), jnp.zeros(n))\n_, out = lax.scan(lambda '
              'carry, i: (carry, step(i)), None, jnp.arange(n))\n```',
        "zh": '{where}让循环携带的值变大了（{before} -> {after}）。一开始就把它设成完整大小再逐步填充，或者让 '
              '`lax.scan` 每一步收集一个结果：\n```python\nout = lax.fori_loop(0, n, lambda i, out: '
              'out.at[i].set(step(i)), jnp.zeros(n))\n_, out = lax.scan(lambda carry, i: (carry, step(i)), None, '
              'jnp.arange(n))\n```'},
    "lfix.branches": {
        "en": '{where} has branches that return {a} and {b}. Make each return the same shape and dtype, e.g. '
              '`jnp.zeros_like(x)` rather than `0` or a smaller array{which}; for a choice element by element, '
              '`jnp.where(cond, a, b)` broadcasts both sides for you.',
        "de": '{where} hat Zweige, die {a} und {b} zurückgeben. Lass jeden dieselbe Shape und denselben dtype '
              'zurückgeben, z. B. `jnp.zeros_like(x)` statt `0` oder eines kleineren Arrays{which}; für eine Wahl '
              'Element für Element broadcastet `jnp.where(cond, a, b)` beide Seiten für dich.',
        "zh": '{where}的分支分别返回 {a} 和 {b}。让每个分支返回相同的 shape 和 dtype，例如用 `jnp.zeros_like(x)` '
              '而不是 `0` 或更小的数组{which}；如果要逐元素选择，`jnp.where(cond, a, b)` 会替你把两边广播好。'},
    "lfix.branches.which": {
        "en": ' (the branches: `{branches}`)',
        "de": ' (die Zweige: `{branches}`)',
        "zh": '（分支：`{branches}`）'},
    "lfix.vmap_sizes.head": {
        "en": '{where} batches ',
        "de": '{where} batcht ',
        "zh": '{where}用 `jax.vmap` 批处理 '},
    "lfix.vmap_sizes.arg": {
        "en": '`{name}` ({kind}, batched along axis {axis})',
        "de": '`{name}` ({kind}, gebatcht entlang Achse {axis})',
        "zh": '`{name}`（{kind}，沿轴 {axis} 批处理）'},
    "lfix.vmap_sizes.arguments": {
        "en": 'arguments',
        "de": 'Argumente',
        "zh": '参数'},
    "lfix.vmap_sizes.tail": {
        "en": ' with `jax.vmap`, but their batch axes differ in length. Every batched argument must have the same '
              'number of examples; an argument shared by all examples gets `None` in `in_axes`:\n```python\n'
              'jax.vmap(g, in_axes=(0, None))(xs, w)   # w is the same for every x\n```',
        "de": ' mit `jax.vmap`, aber ihre Batch-Achsen sind verschieden lang. Jedes gebatchte Argument muss gleich '
              'viele Beispiele haben; ein Argument, das alle Beispiele teilen, bekommt `None` in `in_axes`:\n'
              '```python\njax.vmap(g, in_axes=(0, None))(xs, w)   # w ist für jedes x dasselbe\n```',
        "zh": '，但它们的批轴长度不同。每个被批处理的参数必须有相同数量的样本；所有样本共用的参数在 `in_axes` 中写 '
              '`None`：\n```python\njax.vmap(g, in_axes=(0, None))(xs, w)   # 每个 x 用的都是同一个 w\n```'},
    "lfix.keys.mixed": {
        "en": 'Line {line} makes a dict whose keys have different types. Give it keys of one type:\n```python\n{new} '
              '  # instead of {old}\n```\nor use `collections.OrderedDict`, which JAX flattens in insertion order '
              'without sorting.',
        "de": 'Zeile {line} erzeugt ein Dict, dessen Keys verschiedene Typen haben. Gib ihm Keys eines Typs:\n'
              '```python\n{new}   # statt {old}\n```\noder nutze `collections.OrderedDict`, das JAX in '
              'Einfügereihenfolge zerlegt, ohne zu sortieren.',
        "zh": '第 {line} 行创建的字典的键类型不同。让所有键类型相同：\n```python\n{new}   # 代替 {old}\n```\n'
              '或者使用 `collections.OrderedDict`，JAX 会按插入顺序展开它，不做排序。'},
    "lfix.keys.that_dict": {
        "en": 'that dict',
        "de": 'dieses Dict',
        "zh": '那个字典'},
    "lfix.keys.general": {
        "en": 'Give the dict keys of one type (all `str`, say), or use `collections.OrderedDict`, which JAX flattens '
              'in insertion order without sorting.',
        "de": 'Gib dem Dict Keys eines Typs (etwa alle `str`), oder nutze `collections.OrderedDict`, das JAX in '
              'Einfügereihenfolge zerlegt, ohne zu sortieren.',
        "zh": '让字典的键类型相同（比如都是 `str`），或者使用 `collections.OrderedDict`，JAX 会按插入顺序展开它，'
              '不做排序。'},
    "lfix.nan.line": {
        "en": '{where} produced it.',
        "de": '{where} hat es erzeugt.',
        "zh": '{where}产生了它。'},
    "lfix.nan.compiled": {
        "en": '`{function}` produced it: JAX checked the output of the compiled program as a whole, so it cannot '
              'name the line. To find it, call `{name}` once at the top level of your code, below its `def`, with '
              'the same arguments: run operation by operation, the check stops at the one that made it, and names '
              'its line.',
        "de": '`{function}` hat es erzeugt: JAX hat die Ausgabe des kompilierten Programms als Ganzes geprüft, also '
              'kann es die Zeile nicht nennen. Um sie zu finden, ruf `{name}` einmal auf der obersten Ebene deines '
              'Codes auf, unter seinem `def`, mit denselben Argumenten: Operation für Operation ausgeführt, hält die '
              'Prüfung bei der an, die es erzeugt hat, und nennt ihre Zeile.',
        "zh": '是 `{function}` 产生了它：JAX 检查的是整个编译后程序的输出，所以无法指出是哪一行。要找到它，'
              '在代码的最外层、它的 `def` 下面，用同样的参数调用一次 `{name}`：逐个运算执行时，'
              '检查会停在产生它的那个运算上，并指出它所在的行。'},
    "lfix.nan.calls": {
        "en": ' Calls that give NaN outside their domain:\n',
        "de": ' Aufrufe, die außerhalb ihres Definitionsbereichs NaN liefern:\n',
        "zh": '在定义域之外会给出 NaN 的调用：\n'},
    "lfix.nan.call": {
        "en": '- line {line}: `{code}`\n',
        "de": '- Zeile {line}: `{code}`\n',
        "zh": '- 第 {line} 行：`{code}`\n'},
    "lfix.nan.guard": {
        "en": 'Keep inputs in the domain, e.g. `jnp.log(jnp.where(x > 0, x, 1.0))`; the inner `jnp.where` also keeps '
              'the gradient free of NaN, which an outer `jnp.where` would not.',
        "de": 'Halte die Eingaben im Definitionsbereich, z. B. `jnp.log(jnp.where(x > 0, x, 1.0))`; das innere '
              '`jnp.where` hält auch den Gradienten frei von NaN, was ein äußeres `jnp.where` nicht täte.',
        "zh": '让输入保持在定义域内，例如 `jnp.log(jnp.where(x > 0, x, 1.0))`；内层的 `jnp.where` 还能让梯度不出现 '
              'NaN，而外层的 `jnp.where` 做不到。'},
    "lfix.array_pred": {
        "en": '{where} asks `lax.{prim}` for a choice per element. To choose element by element, compute every '
              'result and pick with `{pick}` (it broadcasts them for you); to choose once per '
              'example, write the function for one example, with a single value to choose on, and batch it with '
              '`jax.vmap` (under `vmap` a batched `lax.cond` runs both branches and picks per example).',
        "de": '{where} verlangt von `lax.{prim}` eine Wahl pro Element. Für eine Wahl Element für Element berechne '
              'jedes Ergebnis und wähle mit `{pick}` (es broadcastet sie für dich); für eine '
              'Wahl pro Beispiel schreib die Funktion für ein Beispiel, mit einem einzigen Wert zum Wählen, und batche '
              'sie mit `jax.vmap` (unter `vmap` führt ein gebatchtes `lax.cond` beide Zweige aus und wählt pro '
              'Beispiel).',
        "zh": '{where}要求 `lax.{prim}` 对每个元素分别选择。要逐元素选择，请把每个结果都算出来，再用 '
              '`{pick}` 挑选（它会替你广播）；要对每个样本选择一次，请把函数写成处理单个样本、'
              '只根据一个值来选择，再用 `jax.vmap` 批处理（在 `vmap` 下，批处理的 `lax.cond` 会运行两个分支并按样本'
              '挑选）。'},
    "lfix.reverse_while": {
        "en": '{where} differentiates a loop whose number of steps is known only while it runs. If it is known '
              'beforehand, write the loop as `lax.fori_loop(0, n, body, init)` with Python ints (JAX turns it into a '
              '`lax.scan`, which `grad` handles) or as a `lax.scan`; otherwise differentiate forwards: '
              '`jax.jacfwd(f)(x)`, or `jax.jvp(f, (x,), (1.0,))[1]` for the derivative of f: R -> R.',
        "de": '{where} leitet eine Schleife ab, deren Schrittzahl erst beim Laufen bekannt ist. Wenn sie vorher '
              'bekannt ist, schreib die Schleife als `lax.fori_loop(0, n, body, init)` mit Python-ints (JAX macht '
              'daraus einen `lax.scan`, den `grad` kann) oder als `lax.scan`; sonst leite vorwärts ab: '
              '`jax.jacfwd(f)(x)`, oder `jax.jvp(f, (x,), (1.0,))[1]` für die Ableitung von f: R -> R.',
        "zh": '{where}对一个步数只有在运行时才知道的循环求导。如果步数事先已知，把循环写成使用 Python int 的 '
              '`lax.fori_loop(0, n, body, init)`（JAX 会把它变成 `grad` 能处理的 `lax.scan`），或者直接写成 '
              '`lax.scan`；否则就用前向模式求导：`jax.jacfwd(f)(x)`，或者对 f: R -> R 用 `jax.jvp(f, (x,), '
              '(1.0,))[1]` 求导数。'},
    "lesson.grad_tuple.title": {
        "en": 'jax.grad needs one number as output, not several values',
        "de": 'jax.grad braucht eine einzige Zahl als Ausgabe, nicht mehrere Werte',
        "zh": 'jax.grad 需要一个数作为输出，而不是多个值'},
    "lesson.grad_tuple.what": {
        "en": '`jax.grad` differentiates a function whose output is one number, like a loss. This function returns '
              'several values (a tuple, a list or a dict): say which one to differentiate, or, to return other values '
              'beside the loss, pass `has_aux=True`: the function then returns `(loss, extra)` and `jax.grad` gives '
              '`(gradient, extra)`.',
        "de": '`jax.grad` leitet eine Funktion ab, deren Ausgabe eine Zahl ist, wie ein Loss. Diese Funktion gibt '
              'mehrere Werte zurück (ein Tupel, eine Liste oder ein Dict): Sag, welcher abgeleitet werden soll, oder '
              'übergib `has_aux=True`, um neben dem Loss andere Werte zurückzugeben: Die Funktion gibt dann '
              '`(loss, extra)` zurück und `jax.grad` liefert `(gradient, extra)`.',
        "zh": '`jax.grad` 对输出为一个数（比如 loss）的函数求导。这个函数返回多个值（元组、列表或字典）：说明要对'
              '哪一个求导；或者，如果要在 loss 之外返回其他值，就传 `has_aux=True`：这时函数返回 `(loss, extra)`，'
              '`jax.grad` 给出 `(gradient, extra)`。'},
    "lesson.vmap_in_axes.title": {
        "en": "vmap's in_axes needs one entry per positional argument",
        "de": 'vmaps in_axes braucht einen Eintrag pro Positionsargument',
        "zh": 'vmap 的 in_axes 需要每个位置参数各一项'},
    "lesson.vmap_in_axes.what": {
        "en": '`in_axes` says, for each positional argument of the batched function, which of its axes holds the '
              'examples (`None`: the argument is not batched, every example uses it whole). It is one int or `None` '
              'for all arguments, or a tuple with exactly one entry per argument (a list at the top is not '
              'accepted); an entry may itself be a pytree that matches its argument.',
        "de": '`in_axes` sagt für jedes Positionsargument der gebatchten Funktion, welche seiner Achsen die Beispiele '
              'hält (`None`: Das Argument wird nicht gebatcht, jedes Beispiel nutzt es ganz). Es ist ein int oder '
              '`None` für alle Argumente, oder ein Tupel mit genau einem Eintrag pro Argument (eine Liste auf oberster '
              'Ebene wird nicht angenommen); ein Eintrag kann selbst ein Pytree sein, der zu seinem Argument passt.',
        "zh": '`in_axes` 为被批处理函数的每个位置参数说明它的哪个轴存放样本（`None`：该参数不被批处理，每个样本都'
              '使用整个参数）。它可以是对所有参数通用的一个 int 或 `None`，也可以是每个参数恰好一项的元组（最外层不'
              '接受列表）；每一项本身也可以是与其参数结构相符的 pytree。'},
    "lesson.vmap_rank.title": {
        "en": 'vmap maps over an axis the argument does not have',
        "de": 'vmap bildet über eine Achse ab, die das Argument nicht hat',
        "zh": 'vmap 要映射的轴在参数中并不存在'},
    "lesson.vmap_rank.what": {
        "en": '`jax.vmap` takes example i of each batched argument along the axis `in_axes` gives it (0 unless '
              'said), so that argument needs that axis: one of shape {shape} has only {rank}. A value every example '
              'shares is not batched: give it `None` in `in_axes`.',
        "de": '`jax.vmap` nimmt Beispiel i jedes gebatchten Arguments entlang der Achse, die `in_axes` ihm gibt (0, '
              'wenn nichts gesagt ist), also braucht das Argument diese Achse: Eines der Shape {shape} hat nur {rank}. '
              'Ein Wert, den alle Beispiele teilen, wird nicht gebatcht: Gib ihm `None` in `in_axes`.',
        "zh": '`jax.vmap` 沿 `in_axes` 为每个被批处理参数指定的轴（未指定时为 0）取第 i 个样本，所以该参数必须有这个'
              '轴：shape 为 {shape} 的参数只有 {rank} 个轴。所有样本共用的值不需要批处理：在 `in_axes` 中给它 '
              '`None`。'},
    "lesson.memory.title": {
        "en": "the program needs more memory than a job has",
        "de": 'das Programm braucht mehr Speicher, als ein Job hat',
        "zh": '程序需要的内存超过了一个作业拥有的内存'},
    "lesson.memory.what": {
        "en": 'XLA could not allocate a buffer of the program: an array it makes, or one it keeps between two '
              'steps. An array takes its number of elements times the bytes of its dtype (4 for float32): a float32 '
              'array of shape (100000, 100000) takes 40 GB.',
        "de": 'XLA konnte einen Puffer des Programms nicht anlegen: ein Array, das es erzeugt, oder eines, das es '
              'zwischen zwei Schritten behält. Ein Array braucht seine Anzahl Elemente mal die Bytes seines dtypes '
              '(4 für float32): Ein float32-Array der Shape (100000, 100000) braucht 40 GB.',
        "zh": 'XLA 无法为程序分配一个缓冲区：程序生成的数组，或在两步之间保留的数组。一个数组占用的字节数是元素个数'
              '乘以其 dtype 的字节数（float32 为 4）：shape 为 (100000, 100000) 的 float32 数组占 40 GB。'},
    "lesson.memory.limit": {
        "en": ' A job here may hold {mb} MB.',
        "de": ' Ein Job darf hier {mb} MB belegen.',
        "zh": '这里一个作业最多可占用 {mb} MB。'},
    "lfix.grad_tuple": {
        "en": '{where} differentiates `{g}`, which returns several values. Say which derivative you mean:\n'
              '```python\njax.grad({g}, has_aux=True)(x)   # if it returns (loss, extra): gives (gradient, extra)\n'
              'jax.grad(lambda x: {g}(x)[0])(x)   # the gradient of its first output\n```',
        "de": '{where} leitet `{g}` ab, das mehrere Werte zurückgibt. Sag, welche Ableitung du meinst:\n'
              '```python\njax.grad({g}, has_aux=True)(x)   # wenn es (loss, extra) zurückgibt: liefert (gradient, '
              'extra)\njax.grad(lambda x: {g}(x)[0])(x)   # der Gradient seiner ersten Ausgabe\n```',
        "zh": '{where}对 `{g}` 求导，而它返回多个值。说清楚你要的是哪种导数：\n```python\n'
              'jax.grad({g}, has_aux=True)(x)   # 如果它返回 (loss, extra)：给出 (gradient, extra)\n'
              'jax.grad(lambda x: {g}(x)[0])(x)   # 它第一个输出的梯度\n```'},
    "lfix.vmap_in_axes.count": {
        "en": '{where}: the batched function gets {args} positional arguments, and `in_axes` has {axes} entries. '
              'Give one per argument, as a tuple, e.g. `in_axes=({example})`: `None` for an argument every example '
              'uses whole.',
        "de": '{where}: Die gebatchte Funktion bekommt {args} Positionsargumente, und `in_axes` hat {axes} Einträge. '
              'Gib einen pro Argument an, als Tupel, z. B. `in_axes=({example})`: `None` für ein Argument, das jedes '
              'Beispiel ganz nutzt.',
        "zh": '{where}：被批处理的函数收到 {args} 个位置参数，而 `in_axes` 有 {axes} 项。以元组形式为每个参数给一项，'
              '例如 `in_axes=({example})`：每个样本都整体使用的参数写 `None`。'},
    "lfix.vmap_in_axes.other": {
        "en": '{where}: write `in_axes` as one int, `None`, or a tuple with one entry per positional argument, each '
              'entry an int, `None`, or a pytree shaped like its argument (a dict with the same keys).',
        "de": '{where}: Schreib `in_axes` als einen int, `None` oder ein Tupel mit einem Eintrag pro '
              'Positionsargument, jeder Eintrag ein int, `None` oder ein Pytree wie sein Argument (ein Dict mit '
              'denselben Keys).',
        "zh": '{where}：把 `in_axes` 写成一个 int、`None`，或每个位置参数各一项的元组，每一项为 int、`None`，或与'
              '其参数结构相同的 pytree（键相同的字典）。'},
    "lfix.vmap_rank": {
        "en": '{where} batches an argument of shape {shape} along axis {axis}. If every example uses it whole, give '
              'it `None` in `in_axes`:\n```python\njax.vmap(g, in_axes=(0, None))(xs, w)   # w is the same for '
              'every x\n```\nelse give it a batch axis: shape (batch, ...), one example per row.',
        "de": '{where} batcht ein Argument der Shape {shape} entlang Achse {axis}. Wenn jedes Beispiel es ganz nutzt, '
              'gib ihm `None` in `in_axes`:\n```python\njax.vmap(g, in_axes=(0, None))(xs, w)   # w ist für jedes x '
              'dasselbe\n```\nsonst gib ihm eine Batch-Achse: Shape (batch, ...), ein Beispiel pro Zeile.',
        "zh": '{where}沿轴 {axis} 批处理一个 shape 为 {shape} 的参数。如果每个样本都整体使用它，就在 `in_axes` 中给它 '
              '`None`：\n```python\njax.vmap(g, in_axes=(0, None))(xs, w)   # 每个 x 用的都是同一个 w\n```\n否则给'
              '它一个批轴：shape 为 (batch, ...)，每行一个样本。'},
    "lfix.memory": {
        "en": '{where} needs a buffer of {size} at once. Use a smaller shape: a float32 array of shape (10000, '
              '10000) takes 400 MB, one of (1000, 1000) 4 MB. To go through more data than fits, take it in parts: '
              '`jax.lax.map(f, xs, batch_size=100)` runs `f` over `xs` 100 at a time.',
        "de": '{where} braucht einen Puffer von {size} auf einmal. Nimm eine kleinere Shape: Ein float32-Array der '
              'Shape (10000, 10000) braucht 400 MB, eines von (1000, 1000) 4 MB. Um mehr Daten durchzugehen, als '
              'hineinpassen, nimm sie in Teilen: `jax.lax.map(f, xs, batch_size=100)` wendet `f` auf jeweils 100 von '
              '`xs` an.',
        "zh": '{where}一次需要 {size} 的缓冲区。用更小的 shape：shape 为 (10000, 10000) 的 float32 数组占 400 MB，'
              '(1000, 1000) 的占 4 MB。要处理放不下的更多数据，就分批处理：`jax.lax.map(f, xs, batch_size=100)` 每次'
              '对 `xs` 中的 100 个运行 `f`。'},
    "lesson.not_a_jax_output.title": {
        "en": 'a jitted function returns arrays, not arbitrary Python objects',
        "de": 'eine gejittete Funktion gibt Arrays zurück, keine beliebigen Python-Objekte',
        "zh": '被 jit 的函数返回数组，而不是任意的 Python 对象'},
    "lesson.not_a_jax_output.what": {
        "en": 'Under `jax.jit` the function runs once, at trace time, and what it returns becomes the outputs of the '
              'compiled program: arrays, numbers, or pytrees of them. A {type} is none of these, so the program '
              'cannot produce it.',
        "de": 'Unter `jax.jit` läuft die Funktion einmal, beim Tracen, und was sie zurückgibt, wird zu den Ausgaben '
              'des kompilierten Programms: Arrays, Zahlen oder Pytrees daraus. Ein {type} ist nichts davon, also kann '
              'das Programm es nicht erzeugen.',
        "zh": '在 `jax.jit` 下，函数只在追踪时运行一次，它返回的东西成为编译后程序的输出：数组、数字，或由它们组成的 '
              'pytree。{type} 都不是，所以程序无法产生它。'},
    "lfix.not_a_jax_output": {
        "en": '`{function}` returns a {type}{component}. Return arrays (or a pytree of them) from the jitted function, '
              'and make the {type} outside it, from the arrays it returns.',
        "de": '`{function}` gibt ein {type}{component} zurück. Gib aus der gejitteten Funktion Arrays (oder einen '
              'Pytree daraus) zurück und erzeuge das {type} außerhalb, aus den Arrays, die sie zurückgibt.',
        "zh": '`{function}` 返回了一个 {type}{component}。让被 jit 的函数返回数组（或由数组组成的 pytree），在函数'
              '外面再用它返回的数组生成这个 {type}。'},
    "lfix.not_a_jax_output.component": {
        "en": ' (output {output})',
        "de": ' (Ausgabe {output})',
        "zh": '（输出 {output}）'},
}
