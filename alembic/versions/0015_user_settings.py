"""user_settings: a user's theme, Enter to send, default assistant and density.

Revision ID: 0015_settings
Revises: 0014_feedback
Create Date: 2026-12-06 11:10:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0015_settings'
down_revision: str | None = '0014_feedback'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('user_settings',
    sa.Column('owner', sa.String(length=200), nullable=False),
    sa.Column('theme', sa.String(length=8), nullable=False),
    sa.Column('enter_sends', sa.Boolean(), nullable=False),
    sa.Column('default_assistant_id', sa.String(length=32), nullable=True),
    sa.Column('density', sa.String(length=12), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('owner', name=op.f('pk_user_settings'))
    )


def downgrade() -> None:
    op.drop_table('user_settings')
