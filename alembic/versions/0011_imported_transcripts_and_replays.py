"""imported_transcript, transcript_replay: imported agent sessions (read-only chats) and
the what-if replays run over them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 16:10:10.542112
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('imported_transcript',
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('format', sa.String(length=32), nullable=False),
    sa.Column('filename', sa.String(length=300), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('message_count', sa.Integer(), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=True),
    sa.Column('usage', sa.JSON(), nullable=False),
    sa.Column('compactions', sa.JSON(), nullable=False),
    sa.Column('imported_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_imported_transcript_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('thread_id', name=op.f('pk_imported_transcript'))
    )
    op.create_table('transcript_replay',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('assistant_name', sa.String(length=200), nullable=False),
    sa.Column('policy', sa.JSON(), nullable=False),
    sa.Column('series', sa.JSON(), nullable=False),
    sa.Column('events', sa.JSON(), nullable=False),
    sa.Column('summary', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_transcript_replay_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_transcript_replay'))
    )
    with op.batch_alter_table('transcript_replay', schema=None) as batch_op:
        batch_op.create_index('ix_transcript_replay_thread_created', ['thread_id', 'created_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('transcript_replay', schema=None) as batch_op:
        batch_op.drop_index('ix_transcript_replay_thread_created')

    op.drop_table('transcript_replay')
    op.drop_table('imported_transcript')
