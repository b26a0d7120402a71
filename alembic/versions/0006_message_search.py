"""Full-text search over stored messages, and the per-assistant history tools switch.

SQLite: an FTS5 table ``message_search`` (contentless: the text stays in ``message`` only)
keyed by the message's rowid and kept in step by triggers. PostgreSQL: a GIN index on the
``simple`` text-search vector of the same text. Both index content plus tool calls with
every character other than a letter or digit read as a space (``chat_app/db/search.py``).

A later migration that rebuilds ``message`` in SQLite batch mode drops these triggers and
renumbers rowids: it must recreate the triggers and rebuild the index (the statements below).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 14:00:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SEARCHED = "{row}.role NOT IN ('event', 'system')"
_BODY = "{row}.content || ' ' || coalesce({row}.tool_calls, '')"
# The expression of chat_app.db.search.PG_DOCUMENT: the planner uses the index only when a
# query repeats it exactly.
_PG_DOCUMENT = (
    "to_tsvector('simple'::regconfig, regexp_replace("
    "content || ' ' || tool_calls::text, '[^[:alnum:]]+', ' ', 'g'))"
)


def _sqlite_index(row: str) -> str:
    return (f"INSERT INTO message_search(rowid, body) SELECT {row}.rowid, "
            f"{_BODY.format(row=row)} WHERE {_SEARCHED.format(row=row)};")


def _sqlite_unindex(row: str) -> str:
    return (f"INSERT INTO message_search(message_search, rowid, body) SELECT 'delete', "
            f"{row}.rowid, {_BODY.format(row=row)} WHERE {_SEARCHED.format(row=row)};")


def upgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('history_tools', sa.Boolean(), nullable=False, server_default=sa.true())
        )
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        op.execute(
            "CREATE VIRTUAL TABLE message_search USING fts5("
            "body, content='', tokenize='unicode61 remove_diacritics 0')"
        )
        op.execute(
            "INSERT INTO message_search(rowid, body) SELECT rowid, "
            "content || ' ' || coalesce(tool_calls, '') FROM message "
            "WHERE role NOT IN ('event', 'system')"
        )
        op.execute("CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN "
                   f"{_sqlite_index('new')} END")
        op.execute("CREATE TRIGGER message_search_delete AFTER DELETE ON message BEGIN "
                   f"{_sqlite_unindex('old')} END")
        op.execute("CREATE TRIGGER message_search_update "
                   "AFTER UPDATE OF content, tool_calls, role ON message BEGIN "
                   f"{_sqlite_unindex('old')} {_sqlite_index('new')} END")
    elif dialect == 'postgresql':
        op.execute(
            f"CREATE INDEX ix_message_search ON message USING gin ({_PG_DOCUMENT}) "
            "WHERE role NOT IN ('event', 'system')"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for trigger in ('insert', 'delete', 'update'):
            op.execute(f"DROP TRIGGER IF EXISTS message_search_{trigger}")
        op.execute("DROP TABLE IF EXISTS message_search")
    elif dialect == 'postgresql':
        op.execute("DROP INDEX IF EXISTS ix_message_search")
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.drop_column('history_tools')
