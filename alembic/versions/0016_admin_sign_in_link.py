"""admin_sign_in_link: one-time admin sign-in links printed on the server, kept hashed.

Revision ID: 0016_sign_in_link
Revises: 0015_settings
Create Date: 2026-12-06 10:30:00.000000
"""

from __future__ import annotations

from typing import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0016_sign_in_link"
down_revision: str | None = "0015_settings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "admin_sign_in_link",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_admin_sign_in_link")),
    )
    with op.batch_alter_table("admin_sign_in_link", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_admin_sign_in_link_expires_at"), ["expires_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("admin_sign_in_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_admin_sign_in_link_expires_at"))

    op.drop_table("admin_sign_in_link")
