"""assistant.sandbox_network: the assistant's sandboxed commands may reach the network.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 16:40:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('sandbox_network', sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table('assistant', schema=None) as batch_op:
        batch_op.drop_column('sandbox_network')
