"""What the web layer lets in and what pages may do: origins, the page policy, state tokens.

Pure decisions, on the app's settings (``Settings.allowed_origins``,
``Settings.remote_images``), applied by the ASGI middlewares in :mod:`chat_app.asgi`:

- **Origins.** A browser sends ``Origin`` on every websocket handshake and every
  cross-origin request; the ``SameSite=Lax`` identity cookie still rides along from
  *same-site* pages (another port of the host, a sibling subdomain). So the socket and every
  state-changing route accept only the app's own origin: the ones listed in
  ``BATON_ALLOWED_ORIGINS``, or, when that is unset, the origin whose host and port are the
  request's own ``Host``.
- **Content-Security-Policy.** The page may run only its own scripts (the inline ones by
  hash), connect only to its own origin, load no frames, objects, outside images (unless
  ``BATON_REMOTE_IMAGES=on``) or ``<base>``, and submit forms only to itself.
- **State tokens.** Reflex keys a tab's UI state by a token the browser picks and sends in
  the websocket URL. The server keys state by an HMAC of (identity, token) instead, so a
  token copied from a log or another browser opens an empty state, never its owner's.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from collections.abc import Iterable
from urllib.parse import urlsplit

from chat_app.settings import Settings

__all__ = [
    "allowed_origins",
    "content_security_policy",
    "origin_allowed",
    "host_allowed",
    "remote_images_allowed",
    "state_token",
]

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _normalize(origin: str) -> str | None:
    """``scheme://host:port`` in lower case with the port spelled out; None if not an origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname or port is None:
        return None
    return f"{parts.scheme.lower()}://{parts.hostname.lower()}:{port}"


def allowed_origins(settings: Settings) -> list[str]:
    """The configured app origins (normalized); empty means "the request's own host"."""
    origins = [_normalize(item) for item in settings.allowed_origins.split(",") if item.strip()]
    return [origin for origin in origins if origin]


def _host_port(host_header: str, scheme: str) -> str | None:
    parts = _normalize(f"{scheme}://{host_header}")
    return parts.split("://", 1)[1] if parts else None


def origin_allowed(origin: str, *, host: str, scheme: str, allowed: Iterable[str] = ()) -> bool:
    """Whether a request carrying ``Origin: origin`` and ``Host: host`` comes from the app.

    With configured origins the match is exact. Without, the origin's host and port must be
    the request's own ``Host`` (the scheme is not compared, so a TLS-terminating proxy that
    forwards plain HTTP still matches; one host and port cannot serve two schemes).
    """
    normalized = _normalize(origin)
    if normalized is None:
        return False
    allowed = list(allowed)
    if allowed:
        return normalized in allowed
    origin_host = normalized.split("://", 1)[1]
    # The port of a bare Host header follows the origin's scheme (the browser's view).
    request_host = _host_port(host, normalized.split("://", 1)[0]) if host else None
    return request_host is not None and origin_host == request_host


def host_allowed(host: str, *, allowed: Iterable[str] = ()) -> bool:
    """Whether ``Host`` names the app: any host when no origin is configured (a laptop, a
    LAN address), else one of the configured origins' hosts (refuses DNS rebinding)."""
    allowed = list(allowed)
    if not allowed:
        return True
    for origin in allowed:
        scheme, host_port = origin.split("://", 1)
        if _host_port(host, scheme) == host_port:
            return True
    return False


def remote_images_allowed(settings: Settings) -> bool:
    """Whether chat Markdown may load images from other hosts (off: they become links)."""
    return settings.remote_images


def content_security_policy(script_hashes: Iterable[str], *, remote_images: bool) -> str:
    """The page's Content-Security-Policy.

    ``script_hashes`` are the base64 SHA-256 digests of the page's own inline scripts.
    ``'unsafe-eval'`` stays because Reflex runs ``rx.call_script`` code through ``eval``;
    an injected payload cannot reach ``eval`` without first running a script of its own.
    Styles stay inline-capable: the component library writes ``<style>`` elements at run time.
    """
    hashes = " ".join(f"'sha256-{digest}'" for digest in sorted(set(script_hashes)))
    images = "'self' data: blob:" + (" https:" if remote_images else "")
    directives = [
        "default-src 'self'",
        f"script-src 'self' 'unsafe-eval' {hashes}".rstrip(),
        "style-src 'self' 'unsafe-inline'",
        f"img-src {images}",
        "font-src 'self' data:",
        "connect-src 'self'",
        "media-src 'self'",
        "frame-src 'none'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


def state_token(owner: str, client_token: str, key: bytes) -> str:
    """The token Reflex keys this tab's state by: bound to the identity that presents it
    (signed with the identity cookies' ``key``)."""
    digest = hmac.new(
        key, f"state-token\0{owner}\0{client_token}".encode(), hashlib.sha256
    ).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))
