from agent_core.storage._client_order import client_order, queue_slots


def test_only_ids_made_by_the_outbox_carry_an_order() -> None:
    assert client_order("k3f9a2b1.12.0b5c-uuid") == ("k3f9a2b1", 12)
    assert client_order("0b5c4f6e-uuid-only") is None
    assert client_order(None) is None
    assert client_order("ab.1.x") is None  # a tab id is at least 4 characters


def test_a_late_message_takes_the_slot_of_its_tabs_first_later_message() -> None:
    waiting = [(4, "tabA.5.x"), (5, "tabB.1.x"), (6, "tabA.7.x"), (7, None)]
    assert queue_slots(("tabA", 6), waiting, 8) == (6, {6: 8})
    assert queue_slots(("tabA", 2), waiting, 8) == (4, {4: 6, 6: 8})
    assert queue_slots(("tabA", 9), waiting, 8) == (8, {})
    assert queue_slots(("tabC", 1), waiting, 8) == (8, {})
    assert queue_slots(None, waiting, 8) == (8, {})
