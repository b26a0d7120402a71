"""thread.forked_from_id / forked_from_seq: the chat a fork was made from, and where.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 16:30:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.add_column(sa.Column('forked_from_id', sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column('forked_from_seq', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('thread', schema=None) as batch_op:
        batch_op.drop_column('forked_from_seq')
        batch_op.drop_column('forked_from_id')
