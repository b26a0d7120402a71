"""Scale-out: the same app on PostgreSQL with Redis holding Reflex state and several backend
workers. Skips (saying why) when PostgreSQL or Redis is not running on this machine."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tests.browser.app_server import AppServer, running_app
from tests.browser.chat_page import send, start_chat, user_messages, wait_idle

PG_ADMIN_URL = os.environ.get("BATON_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("BATON_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")


def _postgres_database() -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg")
    name = f"baton_scale_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable at {PG_ADMIN_URL}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _redis() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: {exc}")
    return REDIS_URL


@pytest.fixture(scope="module")
def scaled_server(chromium_path, tmp_path_factory) -> Iterator[AppServer]:
    redis_url = _redis()
    for database_url in _postgres_database():
        env = {"REFLEX_DB_URL": database_url, "REFLEX_REDIS_URL": redis_url,
               "BATON_SIM_WINDOW": "6000", "BATON_SIM_DELAY": "0.01"}
        with running_app(tmp_path_factory.mktemp("baton-scaled"), env) as server:
            yield server


def _worker_count(server: AppServer) -> int:
    import subprocess

    out = subprocess.run(["pgrep", "-g", str(os.getpgid(server.process.pid)), "-f", "reflex|granian"],
                         capture_output=True, text=True).stdout.split()
    return len(out)


def test_several_workers_serve_one_thread_from_postgres(scaled_server, browser) -> None:
    workers = _worker_count(scaled_server)
    print(f"backend processes: {workers}")
    assert workers >= 3, "Redis should make Reflex start several workers"
    context = browser.new_context(base_url=scaled_server.url)
    page = context.new_page()
    path = start_chat(page)
    send(page, "Build a CSV parser for invoices")
    wait_idle(page)
    assert page.locator("[data-role=assistant]").count() > 0
    # Another tab has its own websocket (possibly another worker) and reads the same thread.
    other = context.new_page()
    other.goto(path)
    other.wait_for_selector("#timeline .baton-item")
    assert "Build a CSV parser for invoices" in user_messages(other)
    page.reload()
    page.wait_for_selector("#timeline .baton-item")
    assert user_messages(page) == ["Build a CSV parser for invoices"]
    context.close()
