"""Every tab of a chat follows it on each way Baton is served (issue 35): SQLite with one
worker and its turn process (what ``make run`` serves), SQLite with the turns in the worker
(``BATON_TURN_PROCESS=off``), and PostgreSQL + Redis with several workers (skipped, saying
why, when either server is absent).

Two tabs of one browser (one owner) on one chat: a run started in one shows running, with
Stop, in the other; a rename reaches the other; the warn notice is the chat's, shown with
the meter's figure after the turn, after a reload and in both tabs, and "Not yet" stays
armed in both; a message sent during a handoff review waits, does not block Confirm, and is
answered once in both tabs, with no layout shift of the composer while it runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlmodel import Session

from chat_app.db import repo
from chat_app.db.engine import write_engine
from chat_app.root import root
from chat_app.services import admin as admin_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.browser.app_server import AppServer, running_app
from tests.browser.chat_page import (
    TURN_TIMEOUT_MS,
    send,
    submit,
    timeline,
    user_messages,
    wait_composer_here,
    wait_idle,
)
from tests.browser.conftest import SECRET_KEY, SIM_DELAY, SIM_WINDOW, answer_here, serving
from tests.browser.test_live_tabs import RECORD_RUNNING, _shown_while_running
from tests.browser.test_scale_out import _postgres_database, _redis
from tests.chat_app.identities import mint_token, owner_of

LONG_TASK = "Write a config parser with tests"
SETUPS = ["sqlite-turn-process", "sqlite-in-worker", "postgres-redis"]


@pytest.fixture(scope="module", params=SETUPS)
def served(request, chromium_path, tmp_path_factory) -> Iterator[AppServer]:
    """The app served one of the three ways, at the shared server's pace: the tabs record
    what they show while a turn runs (``RECORD_RUNNING``, ``RECORD_DOCK``), so a turn need
    only outlast the live relay to the other tab, not a look by the test; a slower pace
    only made each of these tests wait longer for its turns."""
    env = {
        "BATON_SIM_WINDOW": SIM_WINDOW,
        "BATON_SIM_DELAY": SIM_DELAY,
        "BATON_SECRET_KEY": SECRET_KEY,
    }
    workdir = tmp_path_factory.mktemp(f"baton-{request.param}")
    if request.param == "sqlite-in-worker":
        env["BATON_TURN_PROCESS"] = "off"
    if request.param != "postgres-redis":
        with running_app(workdir, env) as server:
            server.db_url = f"sqlite:///{server.db_path}"
            yield server
        return
    env["REFLEX_REDIS_URL"] = _redis()
    for database_url in _postgres_database():
        env["REFLEX_DB_URL"] = database_url
        with running_app(workdir, env) as server:
            server.db_url = database_url
            yield server


@pytest.fixture
def tabs(browser, served: AppServer) -> Iterator[tuple]:
    """Two tabs of one browser (one owner), and the served database in this process."""
    with serving(served.db_url, sim_window=int(SIM_WINDOW)):
        context = browser.new_context(base_url=served.url, viewport={"width": 1100, "height": 820})
        context.set_default_timeout(60_000)
        token = mint_token()
        context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": served.url}])
        yield context, owner_of(token)
        context.close()


def _assistant(**fields: str) -> str:
    form = admin_service.AssistantForm(name=f"Live {uuid.uuid4().hex[:6]}", **fields)
    data = admin_service.validate_form(form)
    with Session(write_engine(root().engine)) as db:
        return repo.create_assistant(session=db, data=data).id


def _two_tabs(
    app, context, owner: str, assistant_id: str | None = None, answered: str | None = None
) -> tuple:
    """Two tabs on a new chat of ``owner``; with ``answered``, a first message this process
    sent and answered (:func:`answer_here`) before they opened it."""
    thread = thread_service.create_thread(app, owner, "Live tabs", assistant_id=assistant_id)
    if answered is not None:
        answer_here(app, owner, thread.id, answered)
    pages = []
    for _ in range(2):
        tab = context.new_page()
        tab.goto(f"/t/{thread.id}")
        tab.locator("#composer-input").wait_for()
        if answered is not None:
            tab.locator("[data-role=assistant]").last.wait_for()
        pages.append(tab)
    return thread.id, pages[0], pages[1]


def _running(tab) -> None:
    tab.wait_for_function(
        "() => document.querySelector('.baton-composer')?.getAttribute('data-activity') !== 'idle'"
        " && document.getElementById('stop-button')",
        timeout=30_000,
    )


def test_a_run_and_a_rename_in_one_tab_reach_the_other(tabs, app) -> None:
    context, owner = tabs
    _, first, second = _two_tabs(app, context, owner)
    second.evaluate(RECORD_RUNNING)
    send(first, LONG_TASK)
    second.wait_for_function("() => window.__running.length > 0", timeout=30_000)
    wait_idle(first)
    wait_idle(second)
    shown = _shown_while_running(second)
    assert any(LONG_TASK in seen["users"] for seen in shown), shown[-3:]
    assert timeline(second) == timeline(first)

    for tab in (first, second):  # the chat list shows chats with a message: it has one now
        tab.reload()
        tab.locator("#sidebar .baton-thread-row[data-current=true]").wait_for()
    elsewhere = context.new_page()  # a third tab, on a new chat's page: the list only
    elsewhere.goto("/")
    elsewhere.locator("#sidebar .baton-thread-row", has_text="Live tabs").wait_for()
    row = first.locator("#sidebar .baton-thread-row[data-current=true]")
    row.get_by_role("button", name="Rename chat").click()
    row.get_by_label("New title").fill("Renamed in the first tab")
    row.get_by_role("button", name="Save").click()
    for tab in (first, second):
        tab.wait_for_function("() => document.title === 'Renamed in the first tab · Baton'")
        assert tab.locator("#thread-title").inner_text() == "Renamed in the first tab"
    second.locator(
        "#sidebar .baton-thread-row[data-current=true]", has_text="Renamed in the first tab"
    ).wait_for()
    # The tab on another page reads its chat list again when it comes back into view.
    elsewhere.wait_for_timeout(2_100)  # it reads the list at most every two seconds
    elsewhere.evaluate("() => window.dispatchEvent(new Event('focus'))")
    elsewhere.locator("#sidebar .baton-thread-row", has_text="Renamed in the first tab").wait_for(
        timeout=15_000
    )


def _notice(tab) -> tuple[int, str, str]:
    """(the notice's figure, the meter's label, the notice's text)."""
    notice = tab.locator("#reset-notice")
    notice.wait_for(timeout=TURN_TIMEOUT_MS)
    meter = tab.locator("#context-meter .baton-meter-label").inner_text().strip()
    return int(notice.get_attribute("data-percent") or 0), meter, notice.inner_text()


def test_the_warn_notice_is_the_chats_in_both_tabs_after_the_turn(tabs, app) -> None:
    context, owner = tabs
    # Past 5% after the first reply: the notice is due once the turn is over. A small recent
    # part, so that the first turn leaves something to compact ("Compact now" is offered).
    assistant = _assistant(context_strategy="reset", warn_threshold="5", keep_recent_tokens="200")
    _, first, second = _two_tabs(app, context, owner, assistant)
    send(first, "Write a tiny greeting module with a test")
    wait_idle(first)
    wait_idle(second)
    for tab in (first, second):
        percent, meter, text = _notice(tab)
        assert percent >= 5
        assert f"Context at {meter} — past the warn threshold (5%)" in text  # the meter's figure
    second.reload()
    second.locator("#composer-input").wait_for()
    percent, meter, _ = _notice(second)
    assert f"{percent}%" in meter

    # "Not yet" acts after the turn and shows armed in both tabs, also after a reload.
    first.locator("#notice-defer").click()
    for tab in (first, second):
        tab.locator("#notice-defer[data-armed=true]").wait_for()
    first.reload()
    first.locator("#notice-defer[data-armed=true]").wait_for()

    # "Compact now" acts after the turn too: its marker reaches both tabs.
    first.locator("#notice-compact").click()
    first.locator("[data-sonner-toast]").first.wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(first)


# Records, whenever the page changes or scrolls: the page's scroll position, how far the
# composer dock (and Stop in it) reaches below the window, and whether Stop shows. A review
# form left standing into the answer's turn went away mid-turn: the page slid back by its
# height (378 px at 1280 x 720) while the turn ran.
RECORD_DOCK = """
() => {
  window.__dock = [];
  const look = () => {
    const dock = document.querySelector('.baton-composer-dock');
    if (dock) window.__dock.push([Math.round(scrollY),
      Math.round(dock.getBoundingClientRect().bottom - window.innerHeight),
      !!document.getElementById('stop-button')]);
  };
  new MutationObserver(look).observe(document.body,
    {childList: true, subtree: true, attributes: true, characterData: true});
  addEventListener('scroll', look, true);
  look();
}
"""
SLIDE_PX = 40  # more than a line's reflow


def _slides_while_running(records: list) -> list:
    """Consecutive records, Stop shown in both, where the page scrolled back."""
    return [
        (before, after)
        for before, after in zip(records, records[1:], strict=False)
        if before[2] and after[2] and after[0] < before[0] - SLIDE_PX
    ]


def test_a_message_sent_during_a_review_waits_and_confirm_goes_through(tabs, app) -> None:
    context, owner = tabs
    assistant = _assistant(review_handoffs="on")
    # The turn before the handoff is run by this process, at once: the review is what the
    # test looks at.
    thread_id, first, second = _two_tabs(
        app, context, owner, assistant, answered="Write a tiny greeting module with a test"
    )
    wait_composer_here(first)
    submit(first, "/handoff")
    for tab in (first, second):
        tab.locator("#handoff-review").wait_for(timeout=TURN_TIMEOUT_MS)
    wait_idle(first)
    wait_idle(second)

    waiting = "Sent during the review: also greet in French"
    send(second, waiting)
    first.locator("[data-queued='true']", has_text=waiting).wait_for()
    for tab in (first, second):
        tab.evaluate(RECORD_DOCK)
    first.locator("#review-confirm").click()  # at once, while the send's run may be open
    for tab in (first, second):
        tab.locator("#handoff-review").wait_for(state="detached", timeout=TURN_TIMEOUT_MS)
        wait_idle(tab)
        tab.wait_for_function(
            "() => !document.querySelector('[data-queued=true]')", timeout=TURN_TIMEOUT_MS
        )
    assert first.locator("#review-error").count() == 0
    for tab in (first, second):
        assert user_messages(tab).count(waiting) == 1
        # The composer, with Stop, stayed in the window, and the page did not slide back,
        # while the answer ran.
        records = tab.evaluate("() => window.__dock")
        assert any(stop for _, _, stop in records), "the answer's turn was never shown"
        assert max(below for _, below, _ in records) <= 1, records
        assert not _slides_while_running(records), _slides_while_running(records)
    rows = [row for s in root().store.sessions(thread_id) for row in root().store.messages(s.id)]
    asked = [row for row in rows if row.role == "user" and row.content == waiting]
    assert len(asked) == 1
    assert [row.role for row in rows if row.seq > asked[0].seq][:1] == ["assistant"]
