"""reply_feedback: thumbs up or down on a reply, with an optional note.

Revision ID: 0014_feedback
Revises: 0013
Create Date: 2026-12-06 11:00:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0014_feedback'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('reply_feedback',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('assistant_id', sa.String(length=32), nullable=False),
    sa.Column('rating', sa.String(length=4), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_reply_feedback_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reply_feedback')),
    sa.UniqueConstraint('thread_id', 'seq', name='ux_reply_feedback_reply')
    )
    with op.batch_alter_table('reply_feedback', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_reply_feedback_thread_id'), ['thread_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_reply_feedback_assistant_id'), ['assistant_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('reply_feedback', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_reply_feedback_assistant_id'))
        batch_op.drop_index(batch_op.f('ix_reply_feedback_thread_id'))
    op.drop_table('reply_feedback')
