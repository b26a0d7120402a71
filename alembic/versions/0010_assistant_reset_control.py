"""assistant.warn_threshold and assistant.review_handoffs: the user's control over resets.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 16:30:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        # NULL: 10 points below the threshold that acts.
        batch_op.add_column(sa.Column('warn_threshold', sa.Float(), nullable=True))
        batch_op.add_column(
            sa.Column('review_handoffs', sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.drop_column('review_handoffs')
        batch_op.drop_column('warn_threshold')
