"""assistant.mask_threshold: old tool outputs are masked above it (NULL: never).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 15:00:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('mask_threshold', sa.Float(), nullable=True, server_default='0.35')
        )


def downgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.drop_column('mask_threshold')
