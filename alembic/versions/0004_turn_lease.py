"""turn_lease: a renewed, fenced lease on a thread's turn (PostgreSQL), instead of an
advisory lock that a dropped connection released silently.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 11:40:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('turn_lease',
    sa.Column('thread_id', sa.String(length=32), nullable=False),
    sa.Column('holder', sa.String(length=64), nullable=False),
    sa.Column('fence', sa.Integer(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['thread_id'], ['thread.id'], name=op.f('fk_turn_lease_thread_id_thread'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('thread_id', name=op.f('pk_turn_lease'))
    )


def downgrade() -> None:
    op.drop_table('turn_lease')
