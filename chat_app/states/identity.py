"""Who is using this browser: the owner id from the signed, http-only ``baton_id`` cookie.

The cookie is minted by :mod:`chat_app.asgi.identity_cookie` and verified here on every call, so
a browser cannot choose an owner id and page scripts never see it. Every state that touches
threads derives from ``IdentityState`` and asks ``self._owner()``.
"""

from __future__ import annotations

import secrets

import reflex as rx

from chat_app.root import root
from chat_app.services.security.identity import owner_from_cookie_header

__all__ = ["IdentityState"]


class IdentityState(rx.State):
    # Without a valid cookie (a dev server whose pages bypass the backend) the tab gets an
    # id of its own that lives as long as its state.
    _fallback_owner: str = ""

    def _owner(self) -> str:
        """This browser's owner id (verified server-side on every call)."""
        owner = owner_from_cookie_header(self.router.headers.cookie, root().identity_key)
        if owner:
            return owner
        if not self._fallback_owner:
            self._fallback_owner = secrets.token_hex(16)
        return self._fallback_owner
