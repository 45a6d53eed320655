"""TrainConfig: defaults, JSON-style input, a clear ValueError naming the key for every bad value."""

from __future__ import annotations

import socket

import pytest

from playground.ipc import protocol
from playground.mnist.config import DATASET_NAMES, DEFAULT_LEARNING_RATES, OPTIMIZERS, TrainConfig, TrainOrder
from playground.validation import as_whole


def test_defaults():
    config = TrainConfig()
    assert config == TrainConfig.from_dict(None) == TrainConfig.from_dict({})
    assert config.dataset == "mnist" and config.layers == (784, 512, 256, 10)
    assert config.optimizer == "sgd" and config.learning_rate == DEFAULT_LEARNING_RATES["sgd"]
    assert (config.batch_size, config.epochs, config.seed) == (128, 5, 0)
    assert config.data_parallel is False
    assert set(DEFAULT_LEARNING_RATES) == set(OPTIMIZERS)
    assert "mnist" in DATASET_NAMES


def test_missing_keys_take_defaults():
    config = TrainConfig.from_dict({"epochs": 2, "seed": 7})
    assert (config.epochs, config.seed) == (2, 7)
    assert config.batch_size == 128 and config.layers == (784, 512, 256, 10)


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_learning_rate_default_follows_the_optimizer(optimizer):
    assert TrainConfig.from_dict({"optimizer": optimizer}).learning_rate == DEFAULT_LEARNING_RATES[optimizer]
    assert TrainConfig.from_dict({"optimizer": optimizer, "learning_rate": 0.5}).learning_rate == 0.5


def test_json_numbers_and_text_layers_are_accepted():
    config = TrainConfig.from_dict({"batch_size": 64.0, "epochs": 3.0, "layers": "784, 100,  50 ,10",
                                    "learning_rate": 1})
    assert config.batch_size == 64 and type(config.batch_size) is int
    assert config.epochs == 3 and config.layers == (784, 100, 50, 10)
    assert config.learning_rate == 1.0 and type(config.learning_rate) is float
    assert TrainConfig.from_dict({"layers": [784.0, 10]}).layers == (784, 10)
    assert TrainConfig.from_dict({"layers": "784 64 10"}).layers == (784, 64, 10)


@pytest.mark.parametrize("value", [3, 3.0, True, False, 3.5, "3", [3.0], None], ids=repr)
def test_whole_numbers_follow_the_apps_one_rule(value):
    """Every whole-number setting, and each layer size, answers as ``validation.as_whole`` does."""
    whole = as_whole(value)
    for values, read in (({"epochs": value}, lambda c: c.epochs),
                         ({"layers": [784, value, 10]}, lambda c: c.layers[1])):
        if whole is None:  # an empty field (None) is said to be empty
            with pytest.raises(ValueError, match="whole number" if value is not None else "whole number|empty"):
                TrainConfig.from_dict(values)
        else:
            assert read(TrainConfig.from_dict(values)) == whole


@pytest.mark.parametrize("data_parallel", [False, True])
def test_an_order_crosses_the_owners_protocol_as_itself(data_parallel):
    config = TrainConfig.from_dict({"optimizer": "adam", "layers": (784, 64, 10), "seed": 3,
                                    "data_parallel": data_parallel})
    order = TrainOrder(config, "/runs/run-1", slot=1, race="device")
    left, right = socket.socketpair()
    with left, right:
        protocol.send(left, {"train": order, "run": 7})
        message = protocol.rebuilt(protocol.receive(right, 1 << 20), TrainOrder, TrainConfig)
    assert message == {"train": order, "run": 7} and message["train"].config.layers == (784, 64, 10)
    assert isinstance(message["train"].config, TrainConfig)


@pytest.mark.parametrize(("values", "key", "hint"), [
    ({"batch_size": 0}, "batch_size", "from 1 to 4096, got 0"),
    ({"batch_size": 4097}, "batch_size", "4096"),
    ({"batch_size": True}, "batch_size", "True"),
    ({"batch_size": 12.5}, "batch_size", "whole number"),
    ({"batch_size": "128"}, "batch_size", "whole number"),
    ({"epochs": 0}, "epochs", "from 1 to 500"),
    ({"epochs": 501}, "epochs", "from 1 to 500"),
    ({"seed": -1}, "seed", "from 0 to 2147483647"),
    ({"seed": 2**31}, "seed", "2147483647"),
    ({"learning_rate": 0}, "learning_rate", "above 0"),
    ({"learning_rate": -0.1}, "learning_rate", "above 0"),
    ({"learning_rate": 11}, "learning_rate", "at most 10"),
    ({"learning_rate": float("nan")}, "learning_rate", "nan"),
    ({"learning_rate": float("inf")}, "learning_rate", "inf"),
    ({"learning_rate": False}, "learning_rate", "False"),
    ({"learning_rate": "0.1"}, "learning_rate", "number"),
    ({"learning_rate": 10**400}, "learning_rate", "at most 10"),
    ({"dataset": "cifar"}, "dataset", "mnist, fashion_mnist, digits"),
    ({"dataset": None}, "dataset", "mnist"),
    ({"optimizer": "rmsprop"}, "optimizer", "sgd, momentum, adam"),
    ({"optimizer": ["sgd"]}, "optimizer", "sgd"),
    ({"layers": [784]}, "layers", "2 to 8 sizes"),
    ({"layers": [784, *[16] * 7, 10]}, "layers", "2 to 8 sizes"),
    ({"layers": [700, 10]}, "layers", "28 × 28 pixels"),
    ({"layers": [784, 64, 9]}, "layers", "one output per class"),
    ({"layers": [784, 0, 10]}, "layers", "from 1 to 4096"),
    ({"layers": [784, 5000, 10]}, "layers", "from 1 to 4096"),
    ({"layers": [784, True, 10]}, "layers", "whole number"),
    ({"layers": "784, sixty, 10"}, "layers", "separated by commas"),
    ({"layers": "784, -5, 10"}, "layers", "separated by commas"),
    ({"layers": 784}, "layers", "2 to 8 sizes"),
    ({"layers": ""}, "layers", "2 to 8 sizes"),
    ({"momentum": 0.9}, "momentum", "the settings are dataset, layers"),
    ({"data_parallel": "yes"}, "data_parallel", "true or false, got 'yes'"),
    ({"data_parallel": "false"}, "data_parallel", "true or false"),
    ({"data_parallel": 1}, "data_parallel", "got 1"),
    ({"data_parallel": 0}, "data_parallel", "got 0"),
    ({"data_parallel": None}, "data_parallel", "got None"),
])
def test_bad_values_name_the_key(values, key, hint):
    with pytest.raises(ValueError, match=f"`{key}`") as caught:
        TrainConfig.from_dict(values)
    assert hint in str(caught.value)


def test_direct_construction_is_checked_too():
    with pytest.raises(ValueError, match="`batch_size` must be a whole number from 1 to 4096, got 0"):
        TrainConfig(batch_size=0)
    assert TrainConfig(layers=[784, 10]).layers == (784, 10)  # normalised to a tuple: hashable, comparable


def test_not_a_mapping():
    with pytest.raises(ValueError, match="mapping"):
        TrainConfig.from_dict([("epochs", 2)])


def test_direct_construction_takes_the_optimizers_learning_rate():
    assert TrainConfig(optimizer="adam").learning_rate == DEFAULT_LEARNING_RATES["adam"]
    assert TrainConfig(optimizer="adam") == TrainConfig.from_dict({"optimizer": "adam", "learning_rate": None})
    assert TrainConfig(optimizer="momentum", learning_rate=0.5).learning_rate == 0.5
