"""ASGI middlewares around Reflex's backend: identity, origin checks, state tokens, headers.

``chat_app.chat_app`` stacks them (outermost first): :class:`OriginGuard` refuses other
origins, :class:`IdentityCookieMiddleware` gives every browser its signed identity,
:class:`StateTokenBinding` binds Reflex's client token to that identity and
:class:`SecurityHeaders` adds the Content-Security-Policy to every page and
:class:`ShareStatus` answers a dead share link with 404.
"""

from chat_app.asgi.identity_cookie import IdentityCookieMiddleware
from chat_app.asgi.origin_guard import OriginGuard
from chat_app.asgi.security_headers import SecurityHeaders
from chat_app.asgi.share_status import ShareStatus
from chat_app.asgi.state_token import StateTokenBinding

__all__ = [
    "IdentityCookieMiddleware",
    "OriginGuard",
    "SecurityHeaders",
    "ShareStatus",
    "StateTokenBinding",
]

# Innermost first, as Reflex applies a list of api_transformers.
MIDDLEWARE_STACK = [
    ShareStatus,
    SecurityHeaders,
    StateTokenBinding,
    IdentityCookieMiddleware,
    OriginGuard,
]
