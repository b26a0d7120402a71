"""thread.answering_seq: the first message a turn took and has not finished answering.

Set when a turn takes queued messages, cleared when it lets its thread go; a value left
after the process died marks a turn cut by the crash (answered once more at start-up).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05 10:00:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.add_column(sa.Column('answering_seq', sa.Integer(), nullable=True))
    # Start-up reads the few marked threads, never the whole table.
    op.create_index('ix_thread_answering', 'thread', ['answering_seq'],
                    postgresql_where=sa.text('answering_seq IS NOT NULL'),
                    sqlite_where=sa.text('answering_seq IS NOT NULL'))


def downgrade() -> None:
    op.drop_index('ix_thread_answering', table_name='thread')
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.drop_column('answering_seq')
