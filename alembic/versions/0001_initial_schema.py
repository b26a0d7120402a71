"""Initial schema: assistants, threads, sessions, messages, files, pending messages, share links.

Revision ID: 0001
Revises: 
Create Date: 2026-11-30 02:39:48.055947
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('assistant',
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('model', sa.String(length=200), nullable=False),
    sa.Column('system_prompt', sa.Text(), nullable=False),
    sa.Column('context_strategy', sa.String(length=16), nullable=False),
    sa.Column('reset_threshold', sa.Float(), nullable=False),
    sa.Column('compact_threshold', sa.Float(), nullable=False),
    sa.Column('keep_recent_tokens', sa.Integer(), nullable=False),
    sa.Column('window_override', sa.Integer(), nullable=True),
    sa.Column('pinned_paths', sa.JSON(), nullable=False),
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_assistant'))
    )
    op.create_table('assistant_change',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('assistant_id', sa.String(length=32), nullable=False),
    sa.Column('field', sa.String(length=64), nullable=False),
    sa.Column('previous', sa.JSON(), nullable=True),
    sa.Column('new', sa.JSON(), nullable=True),
    sa.Column('changed_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assistant_id'], ['assistant.id'], name=op.f('fk_assistant_change_assistant_id_assistant'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_assistant_change'))
    )
    with op.batch_alter_table('assistant_change', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_assistant_change_assistant_id'), ['assistant_id'], unique=False)

    op.create_table('thread',
    sa.Column('title', sa.String(length=300), nullable=False),
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('owner', sa.String(length=200), nullable=False),
    sa.Column('assistant_id', sa.String(length=32), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('next_seq', sa.Integer(), nullable=False),
    sa.Column('next_pending_seq', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['assistant_id'], ['assistant.id'], name=op.f('fk_thread_assistant_id_assistant')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_thread'))
    )
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_thread_assistant_id'), ['assistant_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_thread_owner'), ['owner'], unique=False)
        batch_op.create_index('ix_thread_owner_updated_at', ['owner', 'updated_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_thread_updated_at'), ['updated_at'], unique=False)

    op.create_table('chat_session',
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('trigger', sa.String(length=32), nullable=False),
    sa.Column('utilization', sa.Float(), nullable=True),
    sa.Column('model', sa.String(length=200), nullable=True),
    sa.Column('handoff', sa.JSON(), nullable=True),
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('parent_id', sa.String(length=32), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['parent_id'], ['chat_session.id'], name=op.f('fk_chat_session_parent_id_chat_session'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_chat_session_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chat_session')),
    sa.UniqueConstraint('thread_id', 'number', name='uq_chat_session_thread_number')
    )
    op.create_table('share_link',
    sa.Column('snapshot_seq', sa.Integer(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_share_link_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_share_link')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_share_link_token_hash'))
    )
    with op.batch_alter_table('share_link', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_share_link_thread_id'), ['thread_id'], unique=False)

    op.create_table('thread_file',
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('path', sa.String(length=500), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_thread_file_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('thread_id', 'path', name=op.f('pk_thread_file'))
    )
    op.create_table('context_edit',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('session_id', sa.String(length=32), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['chat_session.id'], name=op.f('fk_context_edit_session_id_chat_session'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_context_edit'))
    )
    with op.batch_alter_table('context_edit', schema=None) as batch_op:
        batch_op.create_index('ux_context_edit_session_position', ['session_id', 'position'], unique=True)

    op.create_table('message',
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('tool_calls', sa.JSON(), nullable=False),
    sa.Column('tool_call_id', sa.String(length=200), nullable=True),
    sa.Column('name', sa.String(length=200), nullable=True),
    sa.Column('todo_id', sa.String(length=200), nullable=True),
    sa.Column('token_count', sa.Integer(), nullable=True),
    sa.Column('model', sa.String(length=200), nullable=True),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('session_id', sa.String(length=32), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['chat_session.id'], name=op.f('fk_message_session_id_chat_session'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_message_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_message'))
    )
    with op.batch_alter_table('message', schema=None) as batch_op:
        batch_op.create_index('ix_message_session_seq', ['session_id', 'seq'], unique=False)
        batch_op.create_index('ux_message_thread_seq', ['thread_id', 'seq'], unique=True)

    op.create_table('pending_message',
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('delivered_session_id', sa.String(length=32), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['delivered_session_id'], ['chat_session.id'], name=op.f('fk_pending_message_delivered_session_id_chat_session'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_pending_message_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pending_message')),
    sa.UniqueConstraint('thread_id', 'seq', name='uq_pending_message_thread_seq')
    )


def downgrade() -> None:
    op.drop_table('pending_message')
    with op.batch_alter_table('message', schema=None) as batch_op:
        batch_op.drop_index('ux_message_thread_seq')
        batch_op.drop_index('ix_message_session_seq')

    op.drop_table('message')
    with op.batch_alter_table('context_edit', schema=None) as batch_op:
        batch_op.drop_index('ux_context_edit_session_position')

    op.drop_table('context_edit')
    op.drop_table('thread_file')
    with op.batch_alter_table('share_link', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_share_link_thread_id'))

    op.drop_table('share_link')
    op.drop_table('chat_session')
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_thread_updated_at'))
        batch_op.drop_index('ix_thread_owner_updated_at')
        batch_op.drop_index(batch_op.f('ix_thread_owner'))
        batch_op.drop_index(batch_op.f('ix_thread_assistant_id'))

    op.drop_table('thread')
    with op.batch_alter_table('assistant_change', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_assistant_change_assistant_id'))

    op.drop_table('assistant_change')
    op.drop_table('assistant')
