"""What chat_app.upstream's Redis shim reaches in Reflex is still there: an upgrade that
moves any of it fails here, by name, instead of leaving tabs deaf after a Redis outage."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect

import pytest
from reflex.istate.manager.redis import StateManagerRedis
from reflex.utils import tasks
from reflex.utils.token_manager import RedisTokenManager

from chat_app import upstream


def test_reflex_still_gives_up_its_redis_tasks_after_five_errors_in_a_minute() -> None:
    # If this changes, Reflex may re-arm the tasks itself and the shim may go.
    defaults = inspect.signature(tasks.ensure_task).parameters
    assert defaults["exception_limit"].default == 5
    assert defaults["exception_limit_window"].default == 60.0


@pytest.mark.parametrize(
    ("owner", "attribute"),
    [
        (RedisTokenManager, "ensure_lost_and_found_task"),
        (RedisTokenManager, "_ensure_socket_record_task"),
        (StateManagerRedis, "_ensure_lock_task"),
    ],
)
def test_the_redis_tasks_are_still_started_where_the_shim_starts_them(owner, attribute) -> None:
    assert callable(getattr(owner, attribute, None)), f"{owner.__name__}.{attribute} moved"


def test_the_shim_starts_again_only_the_tasks_that_ended(monkeypatch) -> None:
    """With the app's own objects as Reflex builds them, on a Redis client that is never
    asked anything (tasks are created, then cancelled at once)."""
    import redis.asyncio

    async def scenario() -> tuple[list[str], list[str], bool]:
        client = redis.asyncio.Redis(host="127.0.0.1", port=1)  # never reached
        manager = RedisTokenManager(client)
        assert hasattr(manager, "_socket_record_task") and hasattr(manager, "token_to_socket")
        assert hasattr(manager, "instance_id") and hasattr(manager, "_lost_and_found_task")

        class Namespace:
            _token_manager = manager

            async def emit_update(self, update, token) -> None:
                pass

        class App:
            event_namespace = Namespace()
            state_manager = None

        monkeypatch.setattr(upstream.reflex, "_reflex_app", lambda: App())
        assert upstream.tab_sockets() is manager
        first = upstream.rearm_redis_tasks()
        again = upstream.rearm_redis_tasks()  # all running: nothing to start
        running = not manager._lost_and_found_task.done()
        for task in (manager._lost_and_found_task, manager._socket_record_task):
            task.cancel()
        await asyncio.gather(
            manager._lost_and_found_task, manager._socket_record_task, return_exceptions=True
        )
        return first, again, running

    first, again, running = asyncio.run(scenario())
    assert first == ["_lost_and_found_task", "_socket_record_task"]
    assert again == [] and running


def test_state_manager_redis_keeps_its_lock_task_where_the_shim_reads_it() -> None:
    fields = {f.name for f in dataclasses.fields(StateManagerRedis)}
    assert "_lock_task" in fields
