"""assistant_mcp_server: an assistant's MCP servers (command or URL, secrets).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 14:00:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('assistant_mcp_server',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('assistant_id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=32), nullable=False),
    sa.Column('transport', sa.String(length=8), nullable=False),
    sa.Column('command', sa.Text(), nullable=False),
    sa.Column('args', sa.JSON(), nullable=False),
    sa.Column('url', sa.Text(), nullable=False),
    sa.Column('secrets', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['assistant_id'], ['assistant.id'], name=op.f('fk_assistant_mcp_server_assistant_id_assistant'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_assistant_mcp_server')),
    sa.UniqueConstraint('assistant_id', 'name', name='uq_assistant_mcp_server_assistant_name')
    )
    with op.batch_alter_table('assistant_mcp_server', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_assistant_mcp_server_assistant_id'), ['assistant_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('assistant_mcp_server', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_assistant_mcp_server_assistant_id'))
    op.drop_table('assistant_mcp_server')
