"""What the server says when it stopped a job or could not take it (server/pools/verdicts.py, the busy answers, our own
bugs), in en/de/zh. Every text names the limit that was hit, with its value."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "stopped.at_line": {"en": " It was at line {line} of your code.", "de": " Er war in Zeile {line} deines Codes.",
                        "zh": "当时运行到你代码的第 {line} 行。"},
    "stopped.replaced": {"en": " It was replaced by a fresh worker.",
                         "de": " Er wurde durch einen frischen Worker ersetzt.", "zh": "已换上一个新的工作进程。"},
    "stopped.timeout": {
        "en": "Time limit: your code ran longer than {seconds} s and was stopped.{at} Look for a loop that never ends "
              "(a jitted lax.while_loop cannot be interrupted, only killed).",
        "de": "Zeitlimit: Dein Code lief länger als {seconds} s und wurde gestoppt.{at} Such nach einer Schleife, die "
              "nie endet (eine gejittete lax.while_loop lässt sich nicht unterbrechen, nur beenden).",
        "zh": "时间限制：你的代码运行超过了 {seconds} 秒，已被停止。{at}请检查是否有永不结束的循环（经过 jit 的 "
              "lax.while_loop 无法被中断，只能被终止）。"},
    "stopped.memory": {
        "en": "Out of memory: the job held {held} MB of resident memory, more than its limit of {limit} MB, and was "
              "stopped.{at}",
        "de": "Kein Speicher mehr: Der Job belegte {held} MB Arbeitsspeicher, mehr als sein Limit von {limit} MB, und "
              "wurde gestoppt.{at}",
        "zh": "内存不足：该作业占用了 {held} MB 常驻内存，超过了 {limit} MB 的限制，已被停止。{at}"},
    "stopped.tasks": {
        "en": "Too many threads: the job ran {threads} threads, more than its limit of {limit}, and was stopped.{at}",
        "de": "Zu viele Threads: Der Job lief mit {threads} Threads, mehr als sein Limit von {limit}, und wurde "
              "gestoppt.{at}",
        "zh": "线程太多：该作业运行了 {threads} 个线程，超过了 {limit} 个的限制，已被停止。{at}"},
    "stopped.disk": {
        "en": "Scratch folder full: the job's folder held {what}, and the job was stopped.{at}",
        "de": "Arbeitsordner voll: Der Ordner des Jobs enthielt {what}, und der Job wurde gestoppt.{at}",
        "zh": "临时文件夹已满：作业的文件夹中有{what}，作业已被停止。{at}"},
    "stopped.disk.depth": {"en": "folders nested more than {depth} deep",
                           "de": "Ordner, die mehr als {depth} Ebenen tief verschachtelt sind",
                           "zh": "嵌套超过 {depth} 层的文件夹"},
    "stopped.disk.hidden": {"en": "a folder whose permissions keep the server from counting what is in it",
                            "de": "einen Ordner, dessen Rechte den Server daran hindern, seinen Inhalt zu zählen",
                            "zh": "一个权限设置使服务器无法统计其内容的文件夹"},
    "stopped.disk.files": {"en": "more than its limit of {files} files and folders",
                           "de": "mehr als sein Limit von {files} Dateien und Ordnern",
                           "zh": "超过 {files} 个文件和文件夹的限制"},
    "stopped.disk.size": {"en": "{used} MB, more than its limit of {limit} MB",
                          "de": "{used} MB, mehr als sein Limit von {limit} MB",
                          "zh": " {used} MB 数据，超过了 {limit} MB 的限制"},
    "stopped.refused": {
        "en": "The worker's reply was refused: {reason}. Code that writes to the worker's connection to the server "
              "cannot forge a result.",
        "de": "Die Antwort des Workers wurde abgelehnt: {reason}. Code, der in die Verbindung des Workers zum Server "
              "schreibt, kann kein Ergebnis fälschen.",
        "zh": "工作进程的回复被拒绝：{reason}。向工作进程与服务器之间的连接写入内容的代码无法伪造结果。"},
    "stopped.after_task_limit": {
        "en": "Too many threads: the job reached its limit of {limit} threads (the kernel refused {refused} more), "
              "and then failed: {message}",
        "de": "Zu viele Threads: Der Job erreichte sein Limit von {limit} Threads (der Kernel verweigerte {refused} "
              "weitere) und schlug dann fehl: {message}",
        "zh": "线程太多：该作业达到了 {limit} 个线程的限制（内核又拒绝了 {refused} 个），随后失败：{message}"},
    "stopped.hung_up": {
        "en": "The job closed the worker's connection to the server without replying, and was stopped.{at}{replaced}",
        "de": "Der Job hat die Verbindung des Workers zum Server ohne Antwort geschlossen und wurde gestoppt."
              "{at}{replaced}",
        "zh": "该作业未作回复就关闭了工作进程与服务器的连接，已被停止。{at}{replaced}"},
    "stopped.oom_cgroup": {
        "en": "Out of memory: the kernel stopped the job at its memory limit of {limit} MB (all it held: memory, "
              "scratch files, shared memory).{replaced}",
        "de": "Kein Speicher mehr: Der Kernel hat den Job an seinem Speicherlimit von {limit} MB gestoppt (alles, "
              "was er belegte: Arbeitsspeicher, Dateien im Arbeitsordner, Shared Memory).{replaced}",
        "zh": "内存不足：内核在作业达到 {limit} MB 内存限制时停止了它（计入它占用的全部：内存、临时文件、"
              "共享内存）。{replaced}"},
    "stopped.unknown_end": {
        "en": "The worker running your code ended without a result; how it ended is not known.{replaced}",
        "de": "Der Worker, der deinen Code ausführte, endete ohne Ergebnis; wie, ist nicht bekannt.{replaced}",
        "zh": "运行你代码的工作进程没有给出结果就结束了，结束的原因未知。{replaced}"},
    "stopped.exited": {
        "en": "The worker running your code exited with status {status} before it replied.{replaced}",
        "de": "Der Worker, der deinen Code ausführte, hat sich mit Status {status} beendet, bevor er "
              "antwortete.{replaced}",
        "zh": "运行你代码的工作进程在回复之前以状态 {status} 退出了。{replaced}"},
    "stopped.killed_at_task_limit": {
        "en": "The worker running your code was killed by {signal} after the job reached its limit of {limit} "
              "threads.{replaced}",
        "de": "Der Worker, der deinen Code ausführte, wurde durch {signal} beendet, nachdem der Job sein Limit von "
              "{limit} Threads erreicht hatte.{replaced}",
        "zh": "作业达到 {limit} 个线程的限制后，运行你代码的工作进程被 {signal} 终止。{replaced}"},
    "stopped.address_space": {
        "en": "Out of memory: the worker was killed by {signal} with its address space at {used} MB of its {limit} "
              "MB limit.{replaced}",
        "de": "Kein Speicher mehr: Der Worker wurde durch {signal} beendet, als sein Adressraum bei {used} MB von "
              "{limit} MB Limit lag.{replaced}",
        "zh": "内存不足：工作进程被 {signal} 终止，此时其地址空间为 {used} MB，限制为 {limit} MB。{replaced}"},
    "stopped.host_oom": {
        "en": "The worker running your code was killed by {signal}, and not by the playground: the kernel does that "
              "when the host runs out of memory.{replaced}",
        "de": "Der Worker, der deinen Code ausführte, wurde durch {signal} beendet, und nicht vom Playground: Das tut "
              "der Kernel, wenn dem Rechner der Speicher ausgeht.{replaced}",
        "zh": "运行你代码的工作进程被 {signal} 终止，这不是 Playground 所为：当主机内存耗尽时，内核会这样做。"
              "{replaced}"},
    "stopped.signal": {
        "en": "The worker running your code crashed: it was killed by {signal}.{replaced}",
        "de": "Der Worker, der deinen Code ausführte, ist abgestürzt: Er wurde durch {signal} beendet.{replaced}",
        "zh": "运行你代码的工作进程崩溃了：它被 {signal} 终止。{replaced}"},
    "busy.workers": {"en": "All sandbox workers are busy. Please try again in a moment.",
                     "de": "Alle Sandbox-Worker sind beschäftigt. Versuch es gleich noch einmal.",
                     "zh": "所有沙箱工作进程都在忙。请稍后再试。"},
    "busy.line_full": {
        "en": "The server is busy: {waiting} jobs are waiting for {workers} workers, about {retry} s of work. Please "
              "try again in {retry} s.",
        "de": "Der Server ist ausgelastet: {waiting} Jobs warten auf {workers} Worker, etwa {retry} s Arbeit. Versuch "
              "es in {retry} s noch einmal.",
        "zh": "服务器繁忙：有 {waiting} 个作业在等待 {workers} 个工作进程，约 {retry} 秒的工作量。请在 {retry} "
              "秒后重试。"},
    "busy.line_full.one": {
        "en": "The server is busy: {waiting} jobs are waiting for 1 worker, about {retry} s of work. Please try again "
              "in {retry} s.",
        "de": "Der Server ist ausgelastet: {waiting} Jobs warten auf 1 Worker, etwa {retry} s Arbeit. Versuch es in "
              "{retry} s noch einmal.",
        "zh": "服务器繁忙：有 {waiting} 个作业在等待 1 个工作进程，约 {retry} 秒的工作量。请在 {retry} 秒后重试。"},
    "device.timeout": {
        "en": "Time limit on the device: your program was still running when the job's {seconds} s were up, and was "
              "stopped. A device cannot be interrupted, so its owner process was restarted (other jobs go on after "
              "it). Look for a loop that never ends, such as a lax.while_loop whose condition stays true.",
        "de": "Zeitlimit auf dem Gerät: Dein Programm lief noch, als die {seconds} s des Jobs um waren, und wurde "
              "gestoppt. Ein Gerät lässt sich nicht unterbrechen, darum wurde sein Besitzerprozess neu gestartet "
              "(die anderen Jobs laufen danach weiter). Such nach einer Schleife, die nie endet, etwa einer "
              "lax.while_loop, deren Bedingung wahr bleibt.",
        "zh": "设备上的时间限制：作业的 {seconds} 秒用完时你的程序仍在运行，已被停止。设备无法被中断，因此其所有者进程"
              "已重启（其他作业会在其后继续）。请检查是否有永不结束的循环，例如条件始终为真的 lax.while_loop。"},
    "device.memory": {
        "en": "Out of memory on the device's host: the device's owner process held {held} MB of memory (its own, "
              "the device's mappings left out), more than its limit of {limit} MB, and was restarted.",
        "de": "Kein Speicher mehr auf dem Host des Geräts: Der Besitzerprozess des Geräts hielt {held} MB Speicher "
              "(seinen eigenen, ohne die Abbildungen des Geräts), mehr als sein Limit von {limit} MB, und wurde neu "
              "gestartet.",
        "zh": "设备主机内存不足：设备的所有者进程占用了 {held} MB 内存（其自身的内存，不计设备的映射），超过了 "
              "{limit} MB 的限制，已被重启。"},
    "device.crashed": {
        "en": "The device's owner process ended during this job ({why}) and was restarted; your program was the "
              "one running on the device.",
        "de": "Der Besitzerprozess des Geräts endete während dieses Jobs ({why}) und wurde neu gestartet; auf dem "
              "Gerät lief gerade dein Programm.",
        "zh": "设备的所有者进程在此作业期间结束（{why}），已被重启；当时在设备上运行的正是你的程序。"},
    "device.run_lost": {
        "en": "The device's owner process ended during this run ({why}) and was restarted; the run ended with it. "
              "Please start it again.",
        "de": "Der Besitzerprozess des Geräts endete während dieses Laufs ({why}) und wurde neu gestartet; der Lauf "
              "endete mit ihm. Bitte starte ihn noch einmal.",
        "zh": "设备的所有者进程在此次运行期间结束（{why}），已被重启；这次运行随之结束。请重新开始运行。"},
    "device.training_hung": {
        "en": "A training run did not stop when asked, so the device's owner process was restarted.",
        "de": "Ein Trainingslauf hielt nicht an, als er sollte, darum wurde der Besitzerprozess des Geräts neu "
              "gestartet.",
        "zh": "一个训练任务在被要求停止时没有停止，因此设备的所有者进程已被重启。"},
    "device.turn_hung": {
        "en": "The device's owner process did not take up this job within {seconds} s (its own work held the "
              "device), so it was restarted; your program did not run on the device. Please run it again.",
        "de": "Der Besitzerprozess des Geräts hat diesen Job nicht innerhalb von {seconds} s übernommen (seine eigene "
              "Arbeit hielt das Gerät), darum wurde er neu gestartet; dein Programm lief nicht auf dem Gerät. Bitte "
              "führ es noch einmal aus.",
        "zh": "设备的所有者进程未在 {seconds} 秒内接手此作业（它自己的工作占用着设备），因此已被重启；"
              "你的程序没有在设备上运行。请再运行一次。"},
    "device.restarting": {
        "en": "The device's owner process is starting again after the last job ended it; please run this again in "
              "a few seconds.",
        "de": "Der Besitzerprozess des Geräts startet neu, nachdem der letzte Job ihn beendet hat; bitte führ das "
              "in ein paar Sekunden noch einmal aus.",
        "zh": "设备的所有者进程在上一个作业使其结束后正在重新启动；请在几秒后再运行一次。"},
    "internal.bug": {
        "en": "This is a bug in the playground, not in your code. Its id is {incident}: the server's log has the "
              "details under that id. Please report it, with the code you ran.",
        "de": "Das ist ein Fehler im Playground, nicht in deinem Code. Seine Kennung ist {incident}: Das Log des "
              "Servers hat die Details unter dieser Kennung. Bitte melde ihn, zusammen mit dem Code, den du "
              "ausgeführt hast.",
        "zh": "这是 Playground 自身的缺陷，不是你代码的问题。它的编号是 {incident}：服务器日志中以此编号记录了"
              "详细信息。请连同你运行的代码一起报告它。"},
}
