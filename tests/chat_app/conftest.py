"""Fixtures every chat_app test module may request by name."""

from tests.chat_app.db.backends import pg_url  # noqa: F401  (a schema of its own on PostgreSQL)
