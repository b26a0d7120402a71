"""Thread.stop_requests: Stop reaches a turn running in another worker process.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 04:50:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('stop_requests', sa.Integer(), nullable=False, server_default='0')
        )


def downgrade() -> None:
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.drop_column('stop_requests')
