"""Share links through the service the Share panel and the `/share/<token>` page use."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from chat_app.db.models import ShareLink, utcnow
from chat_app.root import root
from chat_app.services.conversation.runs import chat as chat_service
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.conversation.threads import sharing
from tests.chat_app.apps import started_with

OWNER, STRANGER = "owner-1", "stranger-2"


@pytest.fixture(autouse=True)
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BATON_SHARING", raising=False)  # the settings' default: on
    monkeypatch.setenv("BATON_SIM_DELAY", "0")


def say(app, thread_id: str, text: str, owner: str = OWNER) -> None:
    async def drain() -> None:
        async for _ in chat_service.send_message(app, owner, thread_id, text):
            pass

    asyncio.run(drain())


def thread_with(app, *texts: str) -> str:
    thread_id = thread_service.create_thread(app, OWNER, "Shared plan").id
    for text in texts:
        say(app, thread_id, text)
    return thread_id


def contents(view) -> list[str]:
    return [item.content for item in view.items if item.kind == "message"]


def test_link_opens_the_thread_read_only_without_the_meter(app) -> None:
    thread_id = thread_with(app, "first question")
    path, link = sharing.create_link(app, OWNER, thread_id, None)
    token = path.removeprefix("/share/")

    view = sharing.open_shared(app, token)

    assert path.startswith("/share/") and len(token) >= 22  # >= 128 bits, urlsafe base64
    assert link.status == "active"
    assert "first question" in contents(view)
    assert view.meter.tokens == 0 and view.model_label == ""


def test_token_is_stored_only_as_a_hash(app) -> None:
    thread_id = thread_with(app, "hello")
    path, link = sharing.create_link(app, OWNER, thread_id, None)
    with Session(root().engine) as db:
        stored = db.get(ShareLink, link.id)
    assert path.removeprefix("/share/") not in stored.token_hash


def test_snapshot_hides_later_messages_until_updated(app) -> None:
    thread_id = thread_with(app, "before the link")
    path, link = sharing.create_link(app, OWNER, thread_id, None)
    token = path.removeprefix("/share/")
    say(app, thread_id, "after the link")

    assert "after the link" not in contents(sharing.open_shared(app, token))

    sharing.update_snapshot(app, OWNER, link.id)
    assert "after the link" in contents(sharing.open_shared(app, token))


def test_missing_revoked_and_expired_links_look_the_same(app) -> None:
    thread_id = thread_with(app, "secret plan")
    revoked_path, revoked = sharing.create_link(app, OWNER, thread_id, None)
    expired_path, expired = sharing.create_link(app, OWNER, thread_id, 1)
    sharing.revoke_link(app, OWNER, revoked.id)
    with Session(root().engine) as db:
        row = db.get(ShareLink, expired.id)
        row.expires_at = utcnow() - timedelta(seconds=1)
        db.add(row)
        db.commit()

    results = [
        sharing.open_shared(app, p.removeprefix("/share/"))
        for p in (revoked_path, expired_path, "/share/no-such-token", "/share/")
    ]

    assert results == [None, None, None, None]
    statuses = {v.id: v.status for v in sharing.list_links(app, OWNER, thread_id)}
    assert statuses == {revoked.id: "revoked", expired.id: "expired"}


def test_only_the_owner_manages_links(app) -> None:
    thread_id = thread_with(app, "mine")
    _, link = sharing.create_link(app, OWNER, thread_id, None)

    assert sharing.create_link(app, STRANGER, thread_id, None) is None
    assert sharing.list_links(app, STRANGER, thread_id) == []
    assert sharing.revoke_link(app, STRANGER, link.id) is None
    assert sharing.update_snapshot(app, STRANGER, link.id) is None
    assert sharing.list_links(app, OWNER, thread_id)[0].status == "active"


def test_expiry_must_be_sensible(app) -> None:
    thread_id = thread_with(app, "x")
    with pytest.raises(sharing.SharingRefused, match="1 to 365 days") as refused:
        sharing.create_link(app, OWNER, thread_id, 0)
    assert (refused.value.field, refused.value.code) == ("expiry_days", "bad_expiry")


def test_sharing_switch_blocks_creating_and_opening(app) -> None:
    thread_id = thread_with(app, "hello")
    path, _ = sharing.create_link(app, OWNER, thread_id, None)
    app = started_with(app, sharing_enabled=False)  # restarted with BATON_SHARING=off

    assert sharing.open_shared(app, path.removeprefix("/share/")) is None
    with pytest.raises(sharing.SharingDisabled) as refused:
        sharing.create_link(app, OWNER, thread_id, None)
    assert refused.value.code == "sharing_disabled"


def test_shared_multi_session_thread_keeps_dividers_and_handoffs(
    app,
) -> None:
    app = started_with(app, sim_window=3000)
    thread_id = thread_with(app, *[f"step {n}: " + "details " * 40 for n in range(3)])
    path, _ = sharing.create_link(app, OWNER, thread_id, None)
    token = path.removeprefix("/share/")

    view = sharing.open_shared(app, token)
    dividers = [item for item in view.items if item.kind == "divider" and item.handoff]

    assert len(view.sessions) >= 2 and dividers
    assert sharing.shared_handoff_markdown(app, token, dividers[0].session_number) is not None
