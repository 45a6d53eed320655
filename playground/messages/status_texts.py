"""Status lines, verdicts, error headings and the Train tab's status, in en/de/zh (German uses "du")."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # The word of a verdict label: it carries the meaning with colour, without needing an emoji font.
    "verdict.ok": {"en": "OK", "de": "OK", "zh": "成功"},
    "verdict.error": {"en": "Error", "de": "Fehler", "zh": "错误"},
    "verdict.warning": {"en": "Warning", "de": "Warnung", "zh": "警告"},
    "verdict.busy": {"en": "Working", "de": "Läuft", "zh": "进行中"},
    "verdict.stopped": {"en": "Stopped", "de": "Gestoppt", "zh": "已停止"},
    "verdict.differs": {"en": "Differs", "de": "Abweichung", "zh": "不一致"},
    # The error kinds' titles (errors.TITLES holds the English ones the API returns).
    "kind.syntax": {"en": "Syntax error", "de": "Syntaxfehler", "zh": "语法错误"},
    "kind.user_exception": {"en": "Your code raised an exception", "de": "Dein Code hat eine Ausnahme ausgelöst",
                            "zh": "你的代码抛出了异常"},
    "kind.timeout": {"en": "Too slow", "de": "Zu langsam", "zh": "太慢了"},
    "kind.memory": {"en": "Out of memory", "de": "Kein Speicher mehr", "zh": "内存不足"},
    "kind.disk": {"en": "Out of disk space", "de": "Kein Plattenplatz mehr", "zh": "磁盘空间不足"},
    "kind.tasks": {"en": "Too many threads", "de": "Zu viele Threads", "zh": "线程太多"},
    "kind.crashed": {"en": "The sandbox worker crashed", "de": "Der Sandbox-Worker ist abgestürzt",
                     "zh": "沙箱工作进程崩溃了"},
    "kind.forbidden": {"en": "Not allowed", "de": "Nicht erlaubt", "zh": "不允许"},
    "kind.invalid_input": {"en": "Invalid input", "de": "Ungültige Eingabe", "zh": "输入无效"},
    "kind.busy": {"en": "Busy, try again", "de": "Ausgelastet, versuch es noch einmal", "zh": "繁忙，请重试"},
    "kind.unavailable": {"en": "Not available here", "de": "Hier nicht verfügbar", "zh": "此处不可用"},
    "kind.internal": {"en": "A bug in the playground", "de": "Ein Fehler im Playground", "zh": "Playground 自身的缺陷"},
    "kind.unknown": {"en": "Error", "de": "Fehler", "zh": "错误"},
    "error.on_line": {"en": "{title} on line {line}", "de": "{title} in Zeile {line}", "zh": "{title}（第 {line} 行）"},
    "error.how_to_fix": {"en": "How to fix it:", "de": "So behebst du es:", "zh": "如何修复："},
    "error.read_more": {"en": "Read more in the JAX documentation", "de": "Mehr dazu in der JAX-Dokumentation",
                        "zh": "在 JAX 文档中阅读更多"},
    "error.jax_says": {"en": "", "de": "JAXs eigene Meldung (auf Englisch):", "zh": "JAX 的原始报错（英文）："},
    "error.details": {"en": "Details", "de": "Details", "zh": "详细信息"},
    # Which function ran, where it is not the one named f (server/ui/picked_function.py).
    "pick.made": {"en": "It ran {binding}: the last function your code makes with a JAX transformation.",
                  "de": "Ausgeführt wurde {binding}: die letzte Funktion, die dein Code mit einer JAX-Transformation "
                        "erzeugt.",
                  "zh": "运行的是 {binding}：你的代码用 JAX 变换得到的最后一个函数。"},
    "pick.last_def": {"en": "It ran {function}, the last function your code defines. To run another one, name it "
                            "`f`, or make it with a JAX transformation, for example `g = jax.grad(loss)`.",
                      "de": "Ausgeführt wurde {function}, die letzte Funktion, die dein Code definiert. Soll eine "
                            "andere laufen, nenne sie `f` oder erzeuge sie mit einer JAX-Transformation, zum Beispiel "
                            "`g = jax.grad(loss)`.",
                      "zh": "运行的是 {function}，即你的代码定义的最后一个函数。要运行另一个函数，请把它命名为 `f`，"
                            "或用 JAX 变换得到它，例如 `g = jax.grad(loss)`。"},
    "pick.last_def_not_rule": {
        "en": "It ran {function}, the last function your code defines that is not the rule of a custom derivative "
              "(JAX calls {rules} when it differentiates {function}). To run another one, name it `f`, or make it "
              "with a JAX transformation, for example `g = jax.grad(loss)`.",
        "de": "Ausgeführt wurde {function}, die letzte Funktion deines Codes, die keine Regel einer eigenen Ableitung "
              "ist (JAX ruft {rules} auf, wenn es {function} ableitet). Soll eine andere laufen, nenne sie `f` oder "
              "erzeuge sie mit einer JAX-Transformation, zum Beispiel `g = jax.grad(loss)`.",
        "zh": "运行的是 {function}，即你的代码定义的、不属于自定义导数规则的最后一个函数（JAX 对 {function} 求导时会"
              "调用 {rules}）。要运行另一个函数，请把它命名为 `f`，或用 JAX 变换得到它，例如 `g = jax.grad(loss)`。"},
    # The Inspect tab's status line.
    "inspect.open_in_derivatives": {"en": "Differentiate it point by point in the Derivatives tab (opens with "
                                          "this code)",
                                    "de": "Im Tab Ableitungen Punkt für Punkt ableiten (öffnet sich mit diesem Code)",
                                    "zh": "在“导数”标签页中逐点求导（用这段代码打开）"},
    "inspect.done": {"en": "Traced, lowered and compiled {function}{device}.",
                     "de": "Tracing, Übersetzung nach StableHLO und Kompilierung von {function}{device} abgeschlossen.",
                     "zh": "已追踪、降级并编译 {function}{device}。"},
    "inspect.for_device": {"en": " for {device}", "de": " für {device}", "zh": "（目标 {device}）"},
    "inspect.retraced": {"en": "Second call retraced.", "de": "Der zweite Aufruf hat ein neues Tracing ausgelöst.",
                         "zh": "第二次调用重新追踪了。"},
    "inspect.reused": {"en": "Second call reused the compiled program.",
                       "de": "Der zweite Aufruf hat das kompilierte Programm wiederverwendet.",
                       "zh": "第二次调用复用了已编译的程序。"},
    "inspect.second_failed": {"en": "Second call failed.", "de": "Der zweite Aufruf ist fehlgeschlagen.",
                              "zh": "第二次调用失败了。"},
    "inspect.purity": {"en": "Purity", "de": "Reinheit", "zh": "纯度"},
    # An early reply's checks that still run the function (inspect_views.status_markdown).
    "inspect.still_running": {"en": "Still running: {checks}. They follow here in a moment.",
                              "de": "Läuft noch: {checks}. Sie folgen hier gleich.",
                              "zh": "仍在运行：{checks}。结果稍后显示在这里。"},
    "inspect.pending.purity": {
        "en": "the behavioural purity checks (your function traced twice more and run eagerly, op by op)",
        "de": "die Reinheitsprüfungen am Verhalten (deine Funktion noch zweimal getract und eager, Op für Op, "
              "ausgeführt)",
        "zh": "行为纯度检查（你的函数再被追踪两次，并逐个操作地即时执行）"},
    "inspect.pending.retrace": {"en": "the second call (does jit retrace?)",
                                "de": "der zweite Aufruf (ein neues Tracing durch jit?)",
                                "zh": "第二次调用（jit 会重新追踪吗？）"},
    # The Train tab's status line and device banner.
    "train.downloading": {"en": "Downloading `{file}`: {done} of {total} MB",
                          "de": "Lade `{file}` herunter: {done} von {total} MB",
                          "zh": "正在下载 `{file}`：{done} / {total} MB"},
    "train.fetching": {"en": "Fetching the {dataset} files…", "de": "Hole die Dateien von {dataset}…",
                       "zh": "正在获取 {dataset} 的文件…"},
    "train.queued": {
        "en": "Waiting for the accelerator, which is training someone else's model: you are **#{place}** in line. "
              "Your run starts by itself; Stop leaves the line.",
        "de": "Warte auf den Beschleuniger, der gerade das Modell von jemand anderem trainiert: Du bist **#{place}** "
              "in der Schlange. Dein Lauf startet von selbst; Stop verlässt die Schlange.",
        "zh": "正在等待加速器，它正在训练别人的模型：你排在第 **#{place}** 位。轮到你时会自动开始；按 Stop "
              "可离开队列。",
    },
    "train.starting": {"en": "Starting the training run (the device's owner loads the data once)…",
                       "de": "Starte den Trainingslauf (der Besitzerprozess des Geräts lädt die Daten einmal)…",
                       "zh": "正在启动训练（设备的所有者进程只加载一次数据）…"},
    "train.compiling": {"en": "Compiling the training step…", "de": "Kompiliere den Trainingsschritt…",
                        "zh": "正在编译训练步骤…"},
    "train.compiling_first": {"en": "Compiling the training step (the first time for this shape)…",
                              "de": "Kompiliere den Trainingsschritt (zum ersten Mal für diese Form)…",
                              "zh": "正在编译训练步骤（此形状第一次编译）…"},
    "train.compiling_kept": {"en": "Loading the compiled training step…",
                             "de": "Lade den kompilierten Trainingsschritt…", "zh": "正在加载已编译的训练步骤…"},
    "train.training": {"en": "Training: {summary}", "de": "Training: {summary}", "zh": "训练中：{summary}"},
    "train.finishing": {"en": "Finishing: measuring the whole test set and saving the weights… {summary}",
                        "de": "Schließe ab: messe den ganzen Testsatz und speichere die Gewichte… {summary}",
                        "zh": "正在收尾：测量整个测试集并保存权重… {summary}"},
    "train.stopping": {"en": "Stopping: measuring the whole test set and saving the weights… {summary}",
                       "de": "Halte an: messe den ganzen Testsatz und speichere die Gewichte… {summary}",
                       "zh": "正在停止：测量整个测试集并保存权重… {summary}"},
    "train.finished": {"en": "Finished", "de": "Fertig", "zh": "已完成"},
    # The race of the host's CPU against the device (server/training/race_stream.py)
    "race.result": {
        "en": "{device} trained {times}× faster than this host's CPU: {device_rate} against {cpu_rate} samples/s. "
              "{target} % test accuracy: {device} {device_reached}, the CPU {cpu_reached}.",
        "de": "{device} trainierte {times}× schneller als die CPU dieses Rechners: {device_rate} gegen {cpu_rate} "
              "Beispiele/s. {target} % Testgenauigkeit: {device} {device_reached}, die CPU {cpu_reached}.",
        "zh": "{device} 的训练速度是本机 CPU 的 {times} 倍：每秒 {device_rate} 个样本，CPU 为 {cpu_rate} 个。"
              "达到 {target}% 测试准确率：{device} {device_reached}，CPU {cpu_reached}。"},
    "race.intro": {"en": "Train the settings above on this host's CPU ({cpu}) and on {device} at the same time: "
                         "both loss curves against one clock, and how much faster the accelerator trains.",
                   "de": "Trainiere die Einstellungen oben zugleich auf der CPU dieses Rechners ({cpu}) und auf "
                         "{device}: beide Loss-Kurven über derselben Uhr, und wie viel schneller der Beschleuniger "
                         "trainiert.",
                   "zh": "用上面的设置同时在本机 CPU（{cpu}）和 {device} 上训练：两条损失曲线共用一个时钟，"
                         "并看加速器训练快多少。"},
    "race.progress": {"en": "{name}: epoch {epoch} of {epochs}, {rate} samples/s",
                      "de": "{name}: Epoche {epoch} von {epochs}, {rate} Beispiele/s",
                      "zh": "{name}：第 {epoch} / {epochs} 个 epoch，每秒 {rate} 个样本"},
    "race.preparing": {"en": "{name}: compiling", "de": "{name}: kompiliert", "zh": "{name}：正在编译"},
    "race.done": {"en": "{name}: done", "de": "{name}: fertig", "zh": "{name}：已完成"},
    "race.result_slower": {
        "en": "{device} trained {times}× slower than this host's CPU: {device_rate} against {cpu_rate} samples/s. "
              "{target} % test accuracy: {device} {device_reached}, the CPU {cpu_reached}.",
        "de": "{device} trainierte {times}× langsamer als die CPU dieses Rechners: {device_rate} gegen {cpu_rate} "
              "Beispiele/s. {target} % Testgenauigkeit: {device} {device_reached}, die CPU {cpu_reached}.",
        "zh": "{device} 的训练速度只有本机 CPU 的 1/{times}：每秒 {device_rate} 个样本，CPU 为 {cpu_rate} 个。"
              "达到 {target}% 测试准确率：{device} {device_reached}，CPU {cpu_reached}。"},
    "race.reached": {"en": "after {seconds} s", "de": "nach {seconds} s", "zh": "用时 {seconds} 秒"},
    "race.not_reached": {"en": "not in this run", "de": "nicht in diesem Lauf", "zh": "本次运行中未达到"},
    "race.unmeasured": {"en": "One side trained too briefly to measure its speed: race more epochs.",
                        "de": "Eine Seite trainierte zu kurz, um ihre Geschwindigkeit zu messen: Lass mehr Epochen "
                              "laufen.",
                        "zh": "有一方训练时间太短，无法测量速度：请增加 epoch 数再比一次。"},
    "race.unavailable": {"en": "This host has no accelerator: a race would pit its CPU against itself.",
                         "de": "Dieser Rechner hat keinen Beschleuniger: Ein Wettrennen träte seine CPU gegen sich "
                               "selbst an.",
                         "zh": "本机没有加速器：比赛只会让 CPU 和自己比。"},
    # Why a run stopped: after the page's "Stopped" label (a plain stop says no more), and alone in the API.
    "train.stopped": {"en": "Stopped", "de": "Gestoppt", "zh": "已停止"},
    "train.stopped_before_start": {"en": "Stop came before the run started.",
                                   "de": "Der Stopp kam, bevor der Lauf begann.", "zh": "停止发生在运行开始之前。"},
    "train.stopped_fetching": {"en": "Stop came while fetching the data",
                               "de": "Der Stopp kam, während die Daten geladen wurden", "zh": "停止发生在获取数据期间"},
    "train.stopped_time_limit": {"en": "Ended at the time limit of {limit} s per run",
                                 "de": "Am Zeitlimit von {limit} s pro Lauf beendet",
                                 "zh": "到达每次运行 {limit} 秒的时间上限后结束"},
    "train.worker_restarted": {
        "en": "The run did not stop in time, so the device's owner process was restarted; the curves are kept, the "
              "parameters are lost",
        "de": "Der Lauf hat nicht rechtzeitig angehalten, darum wurde der Besitzerprozess des Geräts neu gestartet; "
              "die Kurven bleiben, die Parameter sind verloren",
        "zh": "这次运行没有及时停止，因此设备的所有者进程已被重启；曲线保留，参数丢失",
    },
    "train.epoch": {"en": "epoch {epoch} of {epochs}", "de": "Epoche {epoch} von {epochs}",
                    "zh": "第 {epoch} / {epochs} 轮"},
    "train.step": {"en": "step {step}", "de": "Schritt {step}", "zh": "第 {step} 步"},
    "train.loss": {"en": "loss {loss}", "de": "Loss {loss}", "zh": "loss {loss}"},
    "train.accuracy": {"en": "test accuracy **{accuracy} %**", "de": "Testgenauigkeit **{accuracy} %**",
                       "zh": "测试准确率 **{accuracy} %**"},
    "train.train_accuracy": {"en": "training {accuracy} %", "de": "Training {accuracy} %", "zh": "训练集 {accuracy} %"},
    "train.rate": {"en": "{rate} samples/s", "de": "{rate} Beispiele/s", "zh": "{rate} 样本/秒"},
    "train.elapsed": {"en": "{elapsed} s", "de": "{elapsed} s", "zh": "{elapsed} 秒"},
    "train.epoch_time": {"en": "{seconds} s/epoch", "de": "{seconds} s/Epoche", "zh": "每轮 {seconds} 秒"},
    "train.target_reached": {"en": "{target} % test accuracy after {seconds} s",
                             "de": "{target} % Testgenauigkeit nach {seconds} s",
                             "zh": "{seconds} 秒后测试准确率达到 {target} %"},
    "train.target_missed": {"en": "{target} % test accuracy not reached in this run",
                            "de": "{target} % Testgenauigkeit in diesem Lauf nicht erreicht",
                            "zh": "本次运行未达到 {target} % 测试准确率"},
    "train.target_test_set": {"en": " (the target where only the test set is here: 97 % needs the full training set, "
                                     "`make data` while online)",
                              "de": " (das Ziel, wo nur der Testdatensatz da ist: 97 % braucht den ganzen "
                                    "Trainingsdatensatz, `make data` mit Internet)",
                              "zh": "（只有测试集时的目标：97% 需要完整的训练集，请在联网时运行 `make data`）"},
    "train.estimate": {
        "en": "Expected: about {seconds} s of training for {epochs} epochs ({per_epoch} s an epoch at the "
              "{rate} samples/s this server measured last for this dataset, model and batch size on {device}); "
              "compiling and the test-set measurements come on top.",
        "de": "Erwartet: etwa {seconds} s Training für {epochs} Epochen ({per_epoch} s pro Epoche bei den "
              "{rate} Beispielen/s, die dieser Server zuletzt für diesen Datensatz, dieses Modell und diese "
              "Batch-Größe auf {device} gemessen hat); Kompilieren und die Messungen auf den Testdaten kommen hinzu.",
        "zh": "预计：{epochs} 轮约需训练 {seconds} 秒（按本服务器上次在 {device} 上为此数据集、模型和批大小测得的"
              "每秒 {rate} 个样本计算，每轮 {per_epoch} 秒）；编译和测试集测量的时间另计。"},
    "train.estimate_over_limit": {
        "en": "That is over this server's limit of {limit} s a run: the run would stop there.",
        "de": "Das ist mehr als die Grenze dieses Servers von {limit} s pro Lauf: Der Lauf würde dort enden.",
        "zh": "这超过了本服务器每次运行 {limit} 秒的上限：运行会在那时停止。"},
    "train.estimate_unknown": {
        "en": "Expected time: not known yet. This server has not measured a run of this dataset, model and "
              "batch size; after one, this line says how long a run takes.",
        "de": "Erwartete Zeit: noch unbekannt. Dieser Server hat noch keinen Lauf mit diesem Datensatz, diesem "
              "Modell und dieser Batch-Größe gemessen; danach steht hier, wie lange ein Lauf dauert.",
        "zh": "预计时间：尚不知道。本服务器还没有测量过此数据集、模型和批大小的运行；"
              "运行一次之后，这里会显示一次运行需要多久。"},
    "train.images": {"en": "{n_train} training / {n_test} test images",
                     "de": "{n_train} Trainings- / {n_test} Testbilder",
                     "zh": "{n_train} 张训练图像 / {n_test} 张测试图像"},
    "train.on_device": {"en": "Training on <b>{device}</b>", "de": "Training auf <b>{device}</b>",
                        "zh": "正在 <b>{device}</b> 上训练"},
    "data.offline": {"en": "{dataset} is not on this machine, and downloading it failed (offline?).",
                     "de": "{dataset} ist nicht auf diesem Rechner, und der Download ist fehlgeschlagen (offline?).",
                     "zh": "本机上没有 {dataset}，下载也失败了（是否离线？）。"},
    "data.offline_fix": {
        "en": "Pick “digits” as the dataset: it ships with the app and trains offline. Or run `make data` once while "
              "online, or set {folder} to a folder holding the four files.",
        "de": "Wähle den Datensatz „digits“: Er gehört zur App und trainiert offline. Oder führe einmal online "
              "`make data` aus, oder setze {folder} auf einen Ordner mit den vier Dateien.",
        "zh": "选择数据集 “digits”：它随应用提供，可以离线训练。或者在联网时运行一次 `make data`，或者把 {folder} "
              "设为包含这四个文件的文件夹。"},
    "data.test_split": {
        "en": "Only the test set of {dataset} is here: this run trains on {n_train} of its {total} images and tests "
              "on the other {n_test} (the same split every time).",
        "de": "Von {dataset} ist hier nur der Testdatensatz: Dieser Lauf trainiert mit {n_train} seiner {total} "
              "Bilder und testet mit den übrigen {n_test} (jedes Mal dieselbe Aufteilung).",
        "zh": "这里只有 {dataset} 的测试集：本次训练使用其 {total} 张图像中的 {n_train} 张，并用其余 {n_test} 张测试"
              "（每次划分相同）。"},
    "data.fell_back": {
        "en": "{dataset} is not on this machine and downloading it failed (offline?), so this run trains on the "
              "offline “digits” instead. For {dataset}, run `make data` once while online, or set {folder} to a "
              "folder holding its files (its test set alone will do).",
        "de": "{dataset} ist nicht auf diesem Rechner, und der Download ist fehlgeschlagen (offline?); dieser Lauf "
              "trainiert deshalb mit den Offline-„digits“. Für {dataset} führe einmal online `make data` aus, oder "
              "setze {folder} auf einen Ordner mit seinen Dateien (der Testdatensatz allein genügt).",
        "zh": "本机上没有 {dataset}，下载也失败了（是否离线？），因此本次改用离线的 “digits” 训练。要使用 {dataset}，"
              "请在联网时运行一次 `make data`，或者把 {folder} 设为包含其文件的文件夹（只有测试集也可以）。"},
    "train.no_device": {"en": "Device: not started yet", "de": "Gerät: noch nicht gestartet", "zh": "设备：尚未启动"},
    "train.device_unknown": {"en": "Device: known once training starts",
                             "de": "Gerät: bekannt, sobald das Training beginnt", "zh": "设备：开始训练后可知"},
    "train.will_train": {"en": "Will train on {device}", "de": "Trainiert auf {device}", "zh": "将在 {device} 上训练"},
    "train.will_train_many": {"en": "Will train on {device} ({count} devices)",
                              "de": "Trainiert auf {device} ({count} Geräte)",
                              "zh": "将在 {device} 上训练（{count} 个设备）"},
    # Where each dataset would come from, in the Train tab's dataset list (train_views.dataset_choices).
    "train.from_folder": {"en": "from {folder}", "de": "aus {folder}", "zh": "来自 {folder}"},
    "train.from_folder_test": {"en": "from {folder}: its test set only", "de": "aus {folder}: nur der Testdatensatz",
                               "zh": "来自 {folder}：只有测试集"},
    "train.cached": {"en": "cached", "de": "im Cache", "zh": "已缓存"},
    "train.cached_test": {"en": "test set cached, downloads the rest first",
                          "de": "Testdatensatz im Cache, lädt den Rest zuerst herunter",
                          "zh": "测试集已缓存，会先下载其余部分"},
    "train.ready": {"en": "ready", "de": "bereit", "zh": "可直接使用"},
    "train.downloads_first": {"en": "downloads first", "de": "wird zuerst heruntergeladen", "zh": "需先下载"},
}

# What the sandbox says before the exception's own text, by error kind (user_errors.error_result).
TEXTS.update({
    "prefix.forbidden_kept": {
        "en": "Blocked by the sandbox: on this server nothing in the job's scratch folder may be deleted or renamed "
              "until the job ends (there is no private disk space per job here; the server counts what the folder "
              "holds by walking it, and a deleted file that is still open would use disk that no walk sees). ",
        "de": "Von der Sandbox blockiert: Auf diesem Server darf im Arbeitsordner des Jobs bis zu seinem Ende nichts "
              "gelöscht oder umbenannt werden (hier hat kein Job eigenen Plattenplatz; der Server zählt den Inhalt "
              "des Ordners, indem er ihn durchläuft, und eine gelöschte, noch offene Datei belegte Platz, den dabei "
              "niemand sieht). ",
        "zh": "被沙箱阻止：在此服务器上，作业结束前不能删除或重命名作业临时文件夹中的任何内容（这里没有每个作业专用的"
              "磁盘空间；服务器通过遍历文件夹统计其用量，已删除但仍打开的文件会占用遍历看不到的磁盘空间）。"},
    "prefix.forbidden_no_writes": {
        "en": "Blocked by the sandbox: this server cannot keep a job's files inside its own scratch folder (its "
              "kernel has no Landlock, as under gVisor), so no job may write, make, delete or rename any file here. "
              "Reading files, computing and printing work as usual. ",
        "de": "Von der Sandbox blockiert: Dieser Server kann die Dateien eines Jobs nicht auf dessen eigenen "
              "Arbeitsordner beschränken (sein Kernel hat kein Landlock, wie unter gVisor), deshalb darf hier kein "
              "Job eine Datei schreiben, anlegen, löschen oder umbenennen. Dateien lesen, rechnen und ausgeben "
              "funktioniert wie gewohnt. ",
        "zh": "被沙箱阻止：此服务器无法把作业的文件限制在其自己的临时文件夹内（其内核没有 Landlock，例如在 gVisor "
              "下），因此这里任何作业都不能写入、创建、删除或重命名文件。读取文件、计算和打印照常可用。"},
    "prefix.forbidden": {
        "en": "Blocked by the sandbox (no processes, network, or files outside the job's scratch folder). ",
        "de": "Von der Sandbox blockiert (keine Prozesse, kein Netzwerk und keine Dateien außerhalb des "
              "Arbeitsordners des Jobs). ",
        "zh": "被沙箱阻止（不允许创建进程、访问网络，也不允许访问作业临时文件夹之外的文件）。"},
    "prefix.tasks": {"en": "Could not start another thread: the sandbox limits the threads of each job. ",
                     "de": "Konnte keinen weiteren Thread starten: Die Sandbox begrenzt die Threads jedes Jobs. ",
                     "zh": "无法再启动一个线程：沙箱限制了每个作业的线程数。"},
    "prefix.memory": {"en": "Out of memory: the sandbox gives each job a fixed amount of memory. ",
                      "de": "Kein Speicher mehr: Die Sandbox gibt jedem Job eine feste Menge Speicher. ",
                      "zh": "内存不足：沙箱给每个作业分配固定数量的内存。"},
    "prefix.file_too_large": {"en": "File too large: each file the job writes may hold at most {mb} MB. ",
                              "de": "Datei zu groß: Jede Datei, die der Job schreibt, darf höchstens {mb} MB "
                                    "enthalten. ",
                              "zh": "文件太大：作业写入的每个文件最多 {mb} MB。"},
    "prefix.disk": {"en": "Out of disk space. ", "de": "Kein Plattenplatz mehr. ", "zh": "磁盘空间不足。"},
    "prefix.disk_files": {
        "en": "Out of disk space: the job's scratch folder holds at most {files} files and folders, and all of them "
              "are in use. ",
        "de": "Kein Plattenplatz mehr: Der Arbeitsordner des Jobs fasst höchstens {files} Dateien und Ordner, und "
              "alle sind belegt. ",
        "zh": "磁盘空间不足：作业的临时文件夹最多容纳 {files} 个文件和文件夹，现在已全部用完。"},
    "prefix.disk_size": {"en": "Out of disk space: the job's scratch folder holds at most {mb} MB. ",
                         "de": "Kein Plattenplatz mehr: Der Arbeitsordner des Jobs fasst höchstens {mb} MB. ",
                         "zh": "磁盘空间不足：作业的临时文件夹最多容纳 {mb} MB。"},
})
