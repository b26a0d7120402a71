"""The admin sign-in throttle's policy: pure decisions over failure counts and a clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chat_app.services.security import admin_throttle as throttle
from chat_app.services.security.admin_throttle import FailureCount, decide

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
NONE = FailureCount()
SECOND = timedelta(seconds=1)


def failures(count: int, *, at: datetime = NOW, every: timedelta = timedelta(0)) -> FailureCount:
    """A client's count after ``count`` failures, the first at ``at``, then every ``every``."""
    result = NONE
    for n in range(count):
        result = throttle.after_client_failure(result, at + n * every)
    return result


def test_delay_doubles_after_the_free_failures_up_to_the_cap() -> None:
    assert [throttle.delay_after(n).total_seconds() for n in range(11)] == [
        0,
        0,
        0,
        1,
        2,
        4,
        8,
        16,
        30,
        30,
        30,
    ]


def test_the_free_failures_cost_nothing_and_the_next_attempt_waits() -> None:
    assert all(decide(failures(n), NONE, NOW).allowed for n in range(throttle.FREE_FAILURES))
    assert decide(failures(throttle.FREE_FAILURES), NONE, NOW).retry_after == SECOND


def test_an_attempt_before_the_delay_is_over_is_refused_for_the_rest_of_it() -> None:
    count = failures(throttle.FREE_FAILURES + 2)  # a 4 s delay from NOW

    early = decide(count, NONE, NOW + SECOND)

    assert (early.reason, early.retry_after) == ("slow_down", 3 * SECOND)
    assert decide(count, NONE, NOW + 4 * SECOND).allowed


def test_the_tenth_failure_locks_the_client_out_for_fifteen_minutes() -> None:
    nine = failures(throttle.CLIENT_LOCKOUT_AFTER - 1, every=timedelta(seconds=30))
    tenth_at = NOW + timedelta(minutes=5)
    locked = throttle.after_client_failure(nine, tenth_at)

    assert (
        locked.locked_until
        == tenth_at + throttle.CLIENT_LOCKOUT
        == tenth_at + timedelta(minutes=15)
    )
    refused = decide(locked, NONE, locked.locked_until - SECOND)
    assert (refused.reason, refused.retry_after) == ("locked_out", SECOND)


def test_a_lockout_that_ended_forgets_the_failures() -> None:
    locked = failures(throttle.CLIENT_LOCKOUT_AFTER, every=timedelta(seconds=30))
    assert locked.locked_until is not None

    assert decide(locked, NONE, locked.locked_until).allowed
    assert throttle.after_client_failure(locked, locked.locked_until).failures == 1


def test_failures_of_an_expired_window_no_longer_count() -> None:
    count = failures(throttle.FREE_FAILURES + 3)
    later = NOW + throttle.WINDOW

    assert decide(count, NONE, later).allowed
    assert throttle.after_client_failure(count, later).failures == 1


def test_the_window_opens_at_the_first_failure_and_does_not_slide() -> None:
    count = failures(2, every=timedelta(minutes=10))
    assert count.expires_at == NOW + throttle.WINDOW


def test_a_hundred_failures_from_anyone_lock_everyone_out_for_five_minutes() -> None:
    everyone = NONE
    for n in range(throttle.GLOBAL_LOCKOUT_AFTER - 1):
        everyone = throttle.after_everyone_failure(everyone, NOW + n * SECOND)
    assert everyone.locked_until is None and decide(NONE, everyone, NOW + 99 * SECOND).allowed

    hundredth_at = NOW + 99 * SECOND
    everyone = throttle.after_everyone_failure(everyone, hundredth_at)

    refused = decide(NONE, everyone, hundredth_at)
    assert (refused.reason, refused.retry_after) == ("everyone_locked_out", timedelta(minutes=5))
    assert decide(NONE, everyone, hundredth_at + throttle.GLOBAL_LOCKOUT).allowed


def test_everyone_locked_out_outranks_a_client_delay() -> None:
    everyone = FailureCount(
        failures=100,
        last_failure_at=NOW,
        locked_until=NOW + 60 * SECOND,
        expires_at=NOW + 60 * SECOND,
    )
    assert decide(failures(5), everyone, NOW).reason == "everyone_locked_out"


@pytest.mark.parametrize(
    ("client_ip", "scope"),
    [
        ("203.0.113.7", "ip:203.0.113.7"),
        (" 203.0.113.7 ", "ip:203.0.113.7"),
        ("::ffff:203.0.113.7", "ip:203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "ip:2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "ip:2001:db8:1:2::/64"),
        ("", "ip:unknown"),
        ("not an address\nforged log line", "ip:unknown"),
    ],
)
def test_clients_are_counted_by_address_and_ipv6_by_its_64(client_ip: str, scope: str) -> None:
    assert throttle.client_scope(client_ip) == scope


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.2, "1 s"), (1, "1 s"), (30, "30 s"), (59.5, "1 min"), (540, "9 min"), (899, "15 min")],
)
def test_waits_read_in_whole_seconds_then_whole_minutes_rounded_up(
    seconds: float, text: str
) -> None:
    assert throttle.wait_text(timedelta(seconds=seconds)) == text
