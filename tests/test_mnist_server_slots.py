"""SlotQueue: first come, first served, with each waiter's place in line."""

import threading

import pytest

from playground.server.training.slots import SlotQueue


def test_one_slot_serves_in_arrival_order_and_reports_places():
    slots = SlotQueue(1)
    first, second, third = slots.join(), slots.join(), slots.join()
    assert first.slot == 0 and slots.position(first) == 0
    assert (slots.position(second), slots.position(third)) == (1, 2)
    assert slots.counts() == {"slots": 1, "running": 1, "waiting": 2}
    assert not slots.wait(second, 0.01)
    slots.leave(first)
    assert slots.wait(second, 0.01) and second.slot == 0
    assert slots.position(third) == 1 and third.slot is None


def test_leaving_the_line_moves_the_others_up():
    slots = SlotQueue(1)
    running, quitter, patient = slots.join(), slots.join(), slots.join()
    slots.leave(quitter)
    assert slots.position(patient) == 1
    slots.leave(running)
    assert patient.slot == 0
    assert slots.counts() == {"slots": 1, "running": 1, "waiting": 0}


def test_two_slots_run_two_at_once_and_a_waiter_wakes_when_one_frees():
    slots = SlotQueue(2)
    a, b, c = slots.join(), slots.join(), slots.join()
    assert {a.slot, b.slot} == {0, 1} and c.slot is None
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(slots.wait(c, 5.0)))
    waiter.start()
    freed = b.slot
    slots.leave(b)
    waiter.join(5.0)
    assert woke == [True] and c.slot == freed


def test_needs_a_slot():
    with pytest.raises(ValueError, match="at least one"):
        SlotQueue(0)


def test_an_all_slots_run_waits_for_every_slot_and_nobody_overtakes_it():
    slots = SlotQueue(3)
    running = slots.join()
    parallel, small = slots.join(all_slots=True), slots.join()
    assert parallel.slot is None and slots.position(parallel) == 1
    assert small.slot is None and slots.position(small) == 2  # two slots stand free, but it is not its turn
    assert slots.counts() == {"slots": 3, "running": 1, "waiting": 2}
    slots.leave(running)
    assert parallel.slot == 0 and parallel.held == (0, 1, 2) and slots.position(parallel) == 0
    assert small.slot is None and slots.position(small) == 1
    assert slots.counts() == {"slots": 3, "running": 1, "waiting": 1}  # one run on every slot
    slots.leave(parallel)
    assert parallel.held == () and small.slot is not None
    assert slots.counts() == {"slots": 3, "running": 1, "waiting": 0}
    slots.leave(small)
    assert slots.counts() == {"slots": 3, "running": 0, "waiting": 0}
    assert slots.join(all_slots=True).held == (0, 1, 2)  # every slot came back


def test_an_all_slots_waiter_wakes_only_when_the_last_slot_frees():
    slots = SlotQueue(2)
    a, b = slots.join(), slots.join()
    parallel = slots.join(all_slots=True)
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(slots.wait(parallel, 5.0)))
    waiter.start()
    slots.leave(a)
    assert not slots.wait(parallel, 0.05) and parallel.slot is None
    slots.leave(b)
    waiter.join(5.0)
    assert woke == [True] and parallel.slot == 0 and parallel.held == (0, 1)


def test_an_all_slots_waiter_that_leaves_the_line_lets_the_next_one_in():
    slots = SlotQueue(2)
    running = slots.join()
    parallel, small = slots.join(all_slots=True), slots.join()
    slots.leave(parallel)
    assert small.slot is not None and small.slot != running.slot
    assert slots.counts() == {"slots": 2, "running": 2, "waiting": 0}
