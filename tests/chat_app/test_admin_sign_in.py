"""Admin sign-in under the throttle, through the service and a real database (SQLite and,
where a server answers, PostgreSQL). The clock is passed in; nothing sleeps."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete
from sqlmodel import select

from chat_app.db.engine import get_engine, read_session, write_session
from chat_app.db.models import SignInFailureCount
from chat_app.services import admin
from chat_app.services.security import admin_throttle as throttle
from chat_app.settings import Settings
from tests.chat_app.db.backends import pg_url, sqlite_url  # noqa: F401

PASSWORD = "correct horse battery staple"
CLIENT = "203.0.113.7"
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path)
    url = request.getfixturevalue("pg_url")
    # The PostgreSQL schema is shared by the session's tests, and so is the "everyone" count.
    with write_session(get_engine(url)) as session:
        session.exec(delete(SignInFailureCount))
    return url


@pytest.fixture
def settings(db_url: str) -> Settings:
    """Admin enabled: the app is started with a password."""
    return Settings(db_url=db_url, admin_password=PASSWORD)


def attempt(app, password: str, *, at: datetime, client: str = CLIENT) -> str:
    """What the page would show: "signed in", or the refusal's message."""
    try:
        admin.login(app, password, client=client, now=at)
    except admin.AdminRefused as refused:
        return str(refused)
    return "signed in"


@pytest.mark.usefixtures("db_url")
def test_fifty_wrong_passwords_lock_out_even_the_right_one_until_the_lockout_ends(app) -> None:
    # A patient guesser: one password every 10 s, so most guesses clear the delays.
    checked: list[datetime] = []
    for n in range(50):
        when = NOW + n * 10 * SECOND
        if attempt(app, f"guess-{n}", at=when) == "Wrong password.":
            checked.append(when)
    assert len(checked) == throttle.CLIENT_LOCKOUT_AFTER
    lockout_ends = checked[-1] + throttle.CLIENT_LOCKOUT

    with pytest.raises(
        admin.TooManyAttempts, match=r"^Too many attempts: try again in 9 min\.$"
    ) as refused:
        admin.login(app, PASSWORD, client=CLIENT, now=NOW + 500 * SECOND)
    assert refused.value.code == "too_many_attempts"
    assert (
        attempt(app, PASSWORD, at=lockout_ends - SECOND) == "Too many attempts: try again in 1 s."
    )

    grant = admin.login(app, PASSWORD, client=CLIENT, now=lockout_ends)
    assert admin.list_assistants(app, grant)  # the grant works


@pytest.mark.usefixtures("db_url")
def test_a_burst_of_guesses_gets_three_checked_and_the_rest_refused_unchecked(app) -> None:
    outcomes = [attempt(app, f"guess-{n}", at=NOW + n * SECOND / 50) for n in range(300)]

    # Three free, one after the 1 s delay, one after the 2 s delay; the 4 s one is not over.
    assert outcomes.count("Wrong password.") == 5
    assert attempt(app, PASSWORD, at=NOW + 6 * SECOND).startswith("Too many attempts: try again in")


@pytest.mark.usefixtures("db_url")
def test_each_attempt_after_the_free_ones_waits_twice_as_long_up_to_thirty_seconds(app) -> None:
    for _ in range(throttle.FREE_FAILURES):
        assert attempt(app, "wrong", at=NOW) == "Wrong password."
    when, waits = NOW, []
    for _ in range(throttle.CLIENT_LOCKOUT_AFTER - throttle.FREE_FAILURES):
        with pytest.raises(admin.TooManyAttempts) as refused:
            admin.login(app, PASSWORD, client=CLIENT, now=when)  # the right one, not even checked
        waits.append(refused.value.retry_after)
        when += refused.value.retry_after
        assert attempt(app, "wrong", at=when) == "Wrong password."

    assert [w.total_seconds() for w in waits] == [1, 2, 4, 8, 16, 30, 30]
    assert (
        attempt(app, PASSWORD, at=when + 30 * SECOND) == "Too many attempts: try again in 15 min."
    )


@pytest.mark.usefixtures("db_url")
def test_a_hundred_failures_from_many_addresses_stop_sign_in_for_everyone(app) -> None:
    for n in range(throttle.GLOBAL_LOCKOUT_AFTER):
        assert (
            attempt(app, "wrong", at=NOW, client=f"10.0.{n // 200}.{n % 200 + 1}")
            == "Wrong password."
        )

    fresh = "192.0.2.1"
    assert attempt(app, PASSWORD, at=NOW + SECOND, client=fresh) == (
        "Too many failed sign-ins on this server: try again in 5 min."
    )
    assert attempt(app, PASSWORD, at=NOW + throttle.GLOBAL_LOCKOUT, client=fresh) == "signed in"


@pytest.mark.usefixtures("db_url")
def test_failures_are_logged_with_address_and_count_but_never_the_guess(
    caplog: pytest.LogCaptureFixture,
    app,
) -> None:
    caplog.set_level(logging.DEBUG, logger=admin.__name__)
    guess = "hunter2-almost-the-password"
    for n in range(throttle.CLIENT_LOCKOUT_AFTER + 5):
        attempt(app, guess, at=NOW + n * 30 * SECOND)
    attempt(app, PASSWORD, at=NOW + 15 * 30 * SECOND)

    assert guess not in caplog.text and PASSWORD not in caplog.text
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    failed = [m for m in warnings if "sign-in failed" in m]
    assert len(failed) == throttle.CLIENT_LOCKOUT_AFTER
    assert f"ip:{CLIENT}" in failed[-1] and "failure 10 from it" in failed[-1]
    assert [m for m in warnings if "locked for" in m] == [
        f"Admin sign-in locked for ip:{CLIENT} until 2026-01-01T12:19:30+00:00 after 10 failures"
    ]


@pytest.mark.usefixtures("db_url")
def test_signing_in_forgets_the_clients_failures(app) -> None:
    for n in range(throttle.CLIENT_LOCKOUT_AFTER - 1):
        assert attempt(app, "wrong", at=NOW + n * 30 * SECOND) == "Wrong password."
    signed_in_at = NOW + 10 * 30 * SECOND
    assert attempt(app, PASSWORD, at=signed_in_at) == "signed in"

    after = [attempt(app, "wrong", at=signed_in_at) for _ in range(throttle.FREE_FAILURES + 1)]

    assert after == ["Wrong password."] * throttle.FREE_FAILURES + [
        "Too many attempts: try again in 1 s."
    ]


@pytest.mark.usefixtures("db_url")
def test_parallel_guesses_cannot_all_read_the_same_low_count(app) -> None:
    with ThreadPoolExecutor(max_workers=12) as pool:
        outcomes = list(pool.map(lambda n: attempt(app, f"guess-{n}", at=NOW), range(12)))

    assert outcomes.count("Wrong password.") == throttle.FREE_FAILURES


@pytest.mark.usefixtures("db_url")
def test_counts_whose_window_is_over_are_deleted_by_the_next_failure(app) -> None:
    for n in range(20):
        attempt(app, "wrong", at=NOW, client=f"198.51.100.{n + 1}")

    attempt(app, "wrong", at=NOW + throttle.WINDOW, client="192.0.2.1")

    with read_session(app.engine) as session:
        scopes = session.exec(select(SignInFailureCount.scope)).all()
    assert sorted(scopes) == ["everyone", "ip:192.0.2.1"]


LOCKED = NOW + throttle.GLOBAL_LOCKOUT_AFTER * 4 * SECOND


def _lock_everyone_out(app) -> None:
    """Twelve addresses guessing, each slowly enough to clear its delays, until sign-in
    stops for every address."""
    for n in range(throttle.GLOBAL_LOCKOUT_AFTER):
        attempt(app, "wrong", at=NOW + n * 4 * SECOND, client=f"198.51.100.{n % 12 + 1}")
    assert attempt(app, PASSWORD, at=LOCKED, client="192.0.2.9").startswith(
        "Too many failed sign-ins on this server"
    )


@pytest.mark.usefixtures("db_url")
def test_a_one_time_link_printed_on_the_server_signs_the_admin_in_through_a_lockout(
    app, capsys: pytest.CaptureFixture[str]
) -> None:
    from urllib.parse import parse_qs, urlsplit

    from chat_app import admin_link
    from chat_app.services.admin import sign_in_link

    _lock_everyone_out(app)
    assert admin_link.main(["--base-url", "https://baton.example/"]) == 0
    link = urlsplit(capsys.readouterr().out.strip())
    assert (link.scheme, link.netloc, link.path) == ("https", "baton.example", "/admin")
    token = parse_qs(link.query)[sign_in_link.LINK_PARAMETER][0]

    grant = sign_in_link.sign_in_with_link(app, token, now=LOCKED)
    assert admin.list_assistants(app, grant)
    with pytest.raises(admin.AdminRefused, match="already used, has expired or is wrong") as used:
        sign_in_link.sign_in_with_link(app, token, now=LOCKED)  # once only
    assert used.value.code == "link_unusable"
    # The attackers' addresses are still throttled.
    assert attempt(app, PASSWORD, at=LOCKED + SECOND, client="198.51.100.1").startswith("Too many")


@pytest.mark.usefixtures("db_url")
def test_a_sign_in_link_expires_and_is_stored_only_as_its_hash(app) -> None:
    from chat_app.db.models import AdminSignInLink
    from chat_app.services.admin import sign_in_link

    token = sign_in_link.issue_sign_in_link(app, now=NOW)
    with app.read() as db:
        stored = [row.model_dump() for row in db.exec(select(AdminSignInLink))]
    assert stored and not any(token in str(value) for row in stored for value in row.values())
    with pytest.raises(admin.AdminRefused):
        sign_in_link.sign_in_with_link(app, token, now=NOW + sign_in_link.LINK_LIFETIME + SECOND)
    with pytest.raises(admin.AdminRefused):
        sign_in_link.sign_in_with_link(app, "a-guessed-token")


def test_no_link_is_issued_while_admin_is_disabled(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from chat_app import admin_link

    # The command line reads its process's environment, as it is run on the server.
    monkeypatch.delenv(admin.PASSWORD_ENV, raising=False)
    assert admin_link.main([]) == 1
    assert "Admin is disabled" in capsys.readouterr().err
