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
}
