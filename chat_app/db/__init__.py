"""Baton's persistence: SQLModel tables, migrations, the SQL session store, repositories.

Never imports reflex; the UI reaches the database through chat_app.services.
"""

from chat_app.db.engine import (
    dispose_engine,
    get_engine,
    read_session,
    write_engine,
    write_session,
)
from chat_app.db.migrate import migrate
from chat_app.db.settings import database_url
from chat_app.db.store import SqlStore

__all__ = [
    "SqlStore",
    "database_url",
    "dispose_engine",
    "get_engine",
    "migrate",
    "read_session",
    "write_engine",
    "write_session",
]
