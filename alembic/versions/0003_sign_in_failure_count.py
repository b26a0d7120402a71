"""sign_in_failure_count: failed admin sign-ins per client and overall, for throttling.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 10:50:35.826439
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('sign_in_failure_count',
    sa.Column('scope', sa.String(length=64), nullable=False),
    sa.Column('failures', sa.Integer(), nullable=False),
    sa.Column('last_failure_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('locked_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('scope', name=op.f('pk_sign_in_failure_count'))
    )
    with op.batch_alter_table('sign_in_failure_count', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sign_in_failure_count_expires_at'), ['expires_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('sign_in_failure_count', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sign_in_failure_count_expires_at'))

    op.drop_table('sign_in_failure_count')
