"""pending_message.client_id: the browser's id for a message, so a re-send is stored once.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 12:00:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('pending_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('client_id', sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint(
            'uq_pending_message_thread_client_id', ['thread_id', 'client_id'])


def downgrade() -> None:
    with op.batch_alter_table('pending_message', schema=None) as batch_op:
        batch_op.drop_constraint('uq_pending_message_thread_client_id', type_='unique')
        batch_op.drop_column('client_id')
