"""The Train tab's views: the curves kept from a stream of updates, the status line, the device banner."""

from __future__ import annotations

import dataclasses

import pytest

from playground import messages
from playground.mnist.config import TrainConfig
from playground.server.ui.figures import training_plots
from playground.server.ui.markdown import verdict
from playground.server.ui.train_views import (
    Curves,
    dataset_choices,
    device_banner,
    expected_time,
    result_figures,
    status_markdown,
    train_config,
)

OK, STOPPED, BUSY = (verdict("ok"), verdict("stopped"), verdict("busy"))  # the labels that replaced emoji
BUSY_DE = verdict("busy", "de")

BASE = {"phase": "training", "epochs": 2, "n_train": 8000, "n_test": 2000, "done": False, "epoch_accuracy": None}


def update(step, loss, accuracy=None, epoch_accuracy=None, **more):
    """An update as the owner sends it; one with ``epoch_accuracy`` ended an epoch at its own step."""
    end = {"step": step, "epoch": step / 62, "elapsed_s": step / 10, "epoch_accuracy": epoch_accuracy,
           "epoch_train_accuracy": more.get("epoch_train_accuracy", epoch_accuracy)}
    ends = [] if epoch_accuracy is None else [end]
    return {**BASE, "step": step, "epoch": step / 62, "loss": loss, "test_accuracy": accuracy,
            "epoch_accuracy": epoch_accuracy, "epoch_ends": ends, "samples_per_s": 1000.0 * step,
            "elapsed_s": step / 10, **more}


def test_curves_keep_losses_epoch_points_estimates_and_throughput():
    curves = Curves()
    curves.add({**BASE, "phase": "compiling", "step": 0, "loss": None})  # nothing to draw yet
    curves.add(update(4, 2.0))
    curves.add(update(8, 1.5, accuracy=0.6))
    curves.add(update(12, 1.2, accuracy=0.6))  # the same estimate again is not a new point
    curves.add(update(62, 0.5, accuracy=0.9, epoch_accuracy=0.9))
    curves.add(update(124, 0.3, accuracy=0.95, epoch_accuracy=0.95, phase="finished", done=True))
    assert curves.steps == [4, 8, 12, 62, 124] and curves.losses == [2.0, 1.5, 1.2, 0.5, 0.3]
    assert curves.estimates == [(8 / 62, 0.6)]
    assert curves.epoch_points == [(1.0, 0.9), (2.0, 0.95)]
    assert curves.throughput[-1] == 124_000.0
    loss, accuracy, throughput = curves.figures()
    assert list(loss.data[0].y) == [2.0, 1.5, 1.2, 0.5, 0.3]
    assert list(accuracy.data[-1].y) == [90.0, 95.0]


def test_an_update_that_ended_many_epochs_draws_a_point_for_each():
    curves = Curves()
    many = update(186, 0.4, accuracy=0.93, epoch_accuracy=0.93, epoch_train_accuracy=0.95)
    many["epoch_ends"] = [{"step": 62 * e, "epoch": float(e), "elapsed_s": e / 10, "epoch_accuracy": (90 + e) / 100,
                           "epoch_train_accuracy": (92 + e) / 100} for e in (1, 2, 3)]
    curves.add(many)
    assert curves.epoch_points == [(1.0, 0.91), (2.0, 0.92), (3.0, 0.93)]
    assert curves.train_epoch_points == [(1.0, 0.93), (2.0, 0.94), (3.0, 0.95)] and curves.estimates == []


def test_training_accuracy_has_its_own_curve_beside_the_test_accuracy():
    curves = Curves()
    curves.add(update(8, 1.5, accuracy=0.6, train_accuracy=0.62))
    curves.add(update(12, 1.2, accuracy=0.6, train_accuracy=0.62))  # repeated until the next estimate
    curves.add(update(31, 0.9, accuracy=0.8, train_accuracy=0.85))
    curves.add(update(62, 0.5, accuracy=0.9, epoch_accuracy=0.9, train_accuracy=0.93, epoch_train_accuracy=0.93))
    assert curves.train_estimates == [(8 / 62, 0.62), (31 / 62, 0.85)]
    assert curves.train_epoch_points == [(1.0, 0.93)]
    accuracy = curves.figures()[1]
    by_name = {trace.name: list(trace.y) for trace in accuracy.data}
    assert by_name["training (epoch end)"] == [93.0] and by_name["test (epoch end)"] == [90.0]
    assert by_name["training, quick estimate"] == [62.0, 85.0] and by_name["test, quick estimate"] == [60.0, 80.0]
    assert "training 85.00 %" in status_markdown(update(31, 0.9, accuracy=0.8, train_accuracy=0.85))


def test_long_runs_keep_a_bounded_history_with_both_ends():
    curves = Curves()
    for step in range(1, 3 * training_plots.MAX_POINTS):
        curves.add(update(step, 1.0 / step))
    assert len(curves.steps) <= training_plots.MAX_POINTS and curves.steps[0] == 1
    assert curves.steps == sorted(curves.steps) and len(curves.steps) == len(curves.losses)


def test_status_says_where_the_run_is():
    download = {"file": "train-images-idx3-ubyte.gz", "bytes": 2_000_000, "total": 9_912_422}
    assert "<progress value='2000000' max='9912422'>" in status_markdown(
        {"phase": "data", "dataset": "mnist", "download": download})
    assert "#2" in status_markdown({"phase": "queued", "queue_position": 2})
    assert "Compiling" in status_markdown({"phase": "compiling"})
    training = status_markdown(update(31, 0.8, accuracy=0.91))
    assert "epoch 0.50 of 2" in training and "91.00 %" in training and "<progress" in training
    # Between Stop (or the last step) and the final numbers, the line says what is still being done.
    stopping = status_markdown(update(124, 0.3, phase="finishing", stopped=True))
    assert stopping.startswith(f"{BUSY} Stopping: measuring the whole test set and saving the weights") and (
        "epoch 2.00 of 2" in stopping and "<progress" not in stopping)
    assert status_markdown(update(124, 0.3, phase="finishing", stopped=False)).startswith(f"{BUSY} Finishing:")
    assert status_markdown(update(124, 0.3, phase="finishing", stopped=True), "de").startswith(f"{BUSY_DE} Halte an:")
    # A plain stop: the label says "Stopped", and the line does not say it again.
    plain = update(124, 0.3, phase="stopped", done=True, stopped=True, message="Stopped")
    assert status_markdown(plain).startswith(f"{STOPPED} epoch 2.00 of 2 · step 124")
    assert status_markdown({**plain, "message_words": ["train.stopped", {}]}, "de").startswith(
        f"{verdict('stopped', 'de')} Epoche 2,00 von 2")
    assert status_markdown(update(124, 0.3, phase="finished", done=True, message="Finished")).startswith(f"{OK}")


@pytest.mark.parametrize("language, split, fallback", [
    ("en", "Only the test set of MNIST is here: this run trains on 8000 of its 10000 images and tests on the other "
           "2000", "Fashion-MNIST is not on this machine and downloading it failed (offline?), so this run trains on "
                   "the offline “digits” instead. For Fashion-MNIST, run `make data`"),
    ("de", "Von MNIST ist hier nur der Testdatensatz: Dieser Lauf trainiert mit 8000 seiner 10000 Bilder",
           "dieser Lauf trainiert deshalb mit den Offline-„digits“. Für Fashion-MNIST führe einmal online `make data`"),
    ("zh", "这里只有 MNIST 的测试集：本次训练使用其 10000 张图像中的 8000 张，并用其余 2000 张测试",
           "本机上没有 Fashion-MNIST，下载也失败了（是否离线？），因此本次改用离线的 “digits” 训练"),
])
def test_the_status_says_in_the_readers_language_what_the_run_trains_on_where_it_is_not_what_was_asked(
        language, split, fallback):
    """Under the status line, from the first update of a run on to its last: the split of a test set alone, and the
    stand-in for a dataset that could not be had."""
    note = messages.piece("data.test_split", dataset="MNIST", total=10000, n_train=8000, n_test=2000)
    fell_back = messages.piece("data.fell_back", dataset="Fashion-MNIST", folder="FASHION_MNIST_DIR")
    for phase in ({"phase": "queued", "queue_position": 1}, update(31, 0.8, accuracy=0.9),
                  update(124, 0.3, phase="finished", done=True, message="Finished")):
        line, below = status_markdown({**phase, "data_note": note}, language).split("\n\n")
        assert line == status_markdown(phase, language) and below.startswith(split)
        line, below = status_markdown({**phase, "data_fallback": fell_back}, language).split("\n\n")
        assert fallback in below
    assert "\n\n" not in status_markdown({**phase, "data_note": None, "data_fallback": None}, language)


def test_device_banner_escapes_and_names_the_platform():
    gpu = device_banner("GPU · NVIDIA H200")
    assert "<span class='pg-verdict pg-platform-gpu'>GPU</span>" in gpu and "<b>GPU · NVIDIA H200</b>" in gpu
    assert "&lt;b&gt;" in device_banner(None, "<b>")
    assert ("<span class='pg-verdict pg-platform-cpu'>CPU</span> Training on <b>CPU · cpu × 8 (data-parallel)</b>"
            in device_banner("CPU · cpu × 8 (data-parallel)"))
    waiting = device_banner(None, status_markdown({"phase": "compiling"}))  # the status line, as plain text
    assert waiting == "<div class='train-device'>Working Compiling the training step…</div>"


def test_the_forms_values_become_the_trains_config():
    config = train_config("digits", "784, 64, 10", "adam", 0.002, 64.0, 3.0, 1.0, True)
    assert config == {"dataset": "digits", "layers": "784, 64, 10", "optimizer": "adam", "learning_rate": 0.002,
                      "batch_size": 64.0, "epochs": 3.0, "seed": 1.0, "data_parallel": True}
    # the form sets every setting, none left to a default
    assert set(config) == {setting.name for setting in dataclasses.fields(TrainConfig)}
    assert TrainConfig.from_dict(config) == TrainConfig(dataset="digits", layers=(784, 64, 10), optimizer="adam",
                                                        learning_rate=0.002, batch_size=64, epochs=3, seed=1,
                                                        data_parallel=True)


def test_results_need_a_finished_run():
    assert result_figures({"done": True}) == (None, None)
    samples = {"images": [[[0] * 28] * 28] * 2, "labels": [1, 2], "predictions": [1, 3]}
    grid, confusion = result_figures({"samples": samples, "confusion": [[1] * 10] * 10})
    assert grid is not None and confusion is not None
    assert grid.layout.title.text.startswith("Test digits, mistakes first<br><sup>1 of the 90 the model got wrong")


def test_dataset_choices_say_where_each_would_come_from():
    choices = dataset_choices([{"name": "mnist", "title": "MNIST", "available": "MNIST_DIR"},
                               {"name": "fashion_mnist", "title": "Fashion-MNIST", "available": None},
                               {"name": "digits", "title": "scikit-learn digits (8×8, offline)",
                                "available": "offline (scikit-learn)"}])
    assert choices == [("MNIST (from MNIST_DIR)", "mnist"), ("Fashion-MNIST (downloads first)", "fashion_mnist"),
                       ("scikit-learn digits (8×8, offline) (ready)", "digits")]
    test_sets = dataset_choices([{"name": "mnist", "title": "MNIST", "available": "MNIST_DIR, test set only"},
                                 {"name": "fashion_mnist", "title": "Fashion-MNIST",
                                  "available": "cache, test set only"}])
    assert test_sets == [("MNIST (from MNIST_DIR: its test set only)", "mnist"),
                         ("Fashion-MNIST (test set cached, downloads the rest first)", "fashion_mnist")]


def test_the_status_writes_numbers_as_the_readers_language_does():
    running = {**update(12_345, 0.3456, phase="training"), "samples_per_s": 51_426.4, "elapsed_s": 1234.56,
               "n_train": 60_000, "n_test": 10_000}
    german = status_markdown(running, "de")
    for said in ("Schritt 12.345", "Loss 0,3456", "51.426 Beispiele/s", "60.000 Trainings- / 10.000 Testbilder"):
        assert said in german, german
    assert "step 12,345" in status_markdown(running) and "51,426 samples/s" in status_markdown(running)


@pytest.mark.parametrize("language", ["en", "de", "zh"])
def test_compiling_says_whether_it_is_the_first_time_or_a_load_of_what_was_kept(language):
    first, kept, no_cache = (status_markdown({"phase": "compiling", "compile_cache": said}, language)
                             for said in ("new", "kept", None))
    assert len({first, kept, no_cache}) == 3
    assert messages.say("train.compiling_first", language) in first
    assert messages.say("train.compiling_kept", language) in kept
    assert messages.say("train.compiling", language) in no_cache


def test_the_loss_curve_has_every_steps_loss_and_stays_bounded_in_a_long_run():
    curves = Curves()
    curves.add({**BASE, "phase": "compiling", "step": 0, "loss": None, "losses": [], "first_loss_step": None})
    curves.add(update(3, 2.0, losses=[2.3, 2.1, 1.9], first_loss_step=1))
    curves.add(update(3, 2.0, phase="finishing", losses=[], first_loss_step=None))
    per_step = curves.figures()[0].data[0]
    assert per_step.name == "each step" and list(per_step.y) == [2.3, 2.1, 1.9] and list(per_step.x) == [1, 2, 3]
    steps = 100_000  # hundreds of epochs on an accelerator
    for first in range(4, steps, 500):
        curves.add(update(first + 499, 1.0, losses=[1.0] * 500, first_loss_step=first))
    figure = curves.figures()[0]
    band_low, band_high, mean, smoothed = figure.data
    assert len(mean.x) <= training_plots.MAX_POINTS and mean.name.startswith("mean of ")
    assert band_high.fill == "tonexty" and len(band_low.x) == len(mean.x)
    assert len(curves.per_step) == curves.steps[-1] > steps and smoothed.name.startswith("smoothed")


def test_the_status_says_seconds_per_epoch_and_the_time_to_97_percent_in_the_readers_language():
    training = update(100, 0.5, samples_per_s=25_600.0, seconds_per_epoch=0.3125)
    assert "25,600 samples/s · 0.312 s/epoch" in status_markdown(training)
    assert "25.600 Beispiele/s · 0,312 s/Epoche" in status_markdown(training, "de")
    assert "每轮 0.312 秒" in status_markdown(training, "zh")
    done = update(124, 0.3, phase="finished", done=True, message="Finished", target_accuracy=0.97,
                  time_to_target_s=1234.56)
    assert "97 % test accuracy after 1,234.6 s" in status_markdown(done)
    assert "97 % Testgenauigkeit nach 1.234,6 s" in status_markdown(done, "de")
    missed = {**done, "time_to_target_s": None}
    assert "97 % test accuracy not reached in this run" in status_markdown(missed)
    assert "本次运行未达到 97 % 测试准确率" in status_markdown(missed, "zh")


MEASURED = [{"dataset": "mnist", "layers": [784, 512, 256, 10], "batch_size": 128, "data_parallel": False,
             "samples_per_s": 25_600.0, "n_train": 60_000, "device": "TPU · TPU v5 lite"}]


def test_the_expected_time_comes_from_a_measured_rate_or_says_there_is_none():
    form = train_config("mnist", "784, 512, 256, 10", "sgd", 0.3, 128, 300, 0, False)
    words = expected_time(form, MEASURED, 900.0)
    assert words.startswith("Expected: about 702 s of training for 300 epochs (2.34 s an epoch at the 25,600 "
                            "samples/s") and "TPU · TPU v5 lite" in words and "limit" not in words
    assert "Erwartet: etwa 702 s Training für 300 Epochen (2,34 s pro Epoche bei den 25.600" in expected_time(
        form, MEASURED, 900.0, "de")
    assert "over this server's limit of 600 s" in expected_time(form, MEASURED, 600.0)
    assert expected_time({**form, "batch_size": 64}, MEASURED, 900.0).startswith("Expected time: not known yet")
    assert expected_time({**form, "batch_size": 64}, MEASURED, 900.0, "zh").startswith("预计时间：尚不知道")
    # A setting that cannot be: the line says what is wrong with which field, as the form names it, in its language
    assert expected_time({**form, "layers": "784, 10, 3"}, MEASURED, 900.0).endswith(
        "“Layer sizes (784 in, 10 out)” must end with 10 (one output per class), got 3.")
    assert expected_time({**form, "epochs": 600}, MEASURED, 900.0, "de").endswith(
        "„Epochen“ muss eine ganze Zahl von 1 bis 500 sein, nicht 600.")
    assert "“训练轮数（epoch）” 是空的" in expected_time({**form, "epochs": None}, MEASURED, 900.0, "zh")


def test_the_status_says_why_a_classrooms_target_is_not_97_percent():
    done = {**update(124, 0.3, accuracy=0.955, phase="finished", done=True), "target_accuracy": 0.95,
            "time_to_target_s": 4.2}
    said = status_markdown(done)
    assert "95 % test accuracy after 4.2 s (the target where only the test set is here: 97 % needs" in said
    assert "(the target" not in status_markdown({**done, "target_accuracy": 0.97})
