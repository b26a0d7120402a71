"""Who is using this browser: one owner id per browser, kept in a cookie.

Every state that touches threads derives from ``IdentityState`` and asks ``self._owner()``;
hardening identity (a signed http-only cookie) only changes this module.
"""

from __future__ import annotations

import uuid

import reflex as rx

__all__ = ["IdentityState"]

_ONE_YEAR = 365 * 24 * 3600


class IdentityState(rx.State):
    owner_token: str = rx.Cookie("", name="baton_owner", max_age=_ONE_YEAR, same_site="lax")

    def _owner(self) -> str:
        """This browser's owner id, created on first use."""
        if not self.owner_token:
            self.owner_token = uuid.uuid4().hex
        return self.owner_token
