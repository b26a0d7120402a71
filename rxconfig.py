"""Reflex configuration for Baton.

Every setting that differs between a laptop and a scaled deployment comes from the
environment, so the same code runs on SQLite + in-process state or PostgreSQL + Redis:

- ``REFLEX_DB_URL``: the database (default: an SQLite file ``baton.db`` in the working dir).
- ``REFLEX_REDIS_URL``: when set, Reflex keeps UI state in Redis so several backend
  workers can serve one browser session (with one worker it stays in the worker), and the
  live channel between tabs goes through it.
"""

import reflex as rx

from chat_app.db.settings import database_url, state_in_worker
from chat_app.services.security.web_security import allowed_origins
from chat_app.serving import refuse_opportunistic_locks
from chat_app.settings import read_settings
from chat_app.supervision import settle_worker_count
from chat_app.upstream import supervise_workers

# Reflex's configuration is read before any App exists: the settings, once, for it too.
_settings = read_settings()

# A worker that dies is replaced (a crash loop backs off) instead of taking the server down.
supervise_workers()
# One backend worker per two cores with Redis, one without (chat_app/supervision.py).
settle_worker_count()
# Reflex's opportunistic Redis locks lose messages across workers (chat_app/serving.py).
refuse_opportunistic_locks()

# With BATON_ALLOWED_ORIGINS set, Reflex's CORS and Socket.IO checks allow only those origins
# too; chat_app.asgi.OriginGuard checks Origin and Host on every connection either way.
_origins = {"cors_allowed_origins": origins} if (origins := allowed_origins(_settings)) else {}

# One worker: the tabs' state stays in its memory even with Redis (chat_app/db/settings.py).
_state = {"state_manager_mode": rx.constants.StateManagerMode.MEMORY} if state_in_worker() else {}

config = rx.Config(
    app_name="chat_app",
    # The same URL the app's own engine uses (psycopg 3 for PostgreSQL URLs).
    db_url=database_url(),
    redis_url=_settings.redis_url or None,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    # Baton publishes no sitemap; the plugin would only want a public deploy URL.
    disable_plugins=[rx.plugins.SitemapPlugin],
    **_origins,
    **_state,
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(accent_color="indigo", gray_color="slate", radius="medium")
        )
    ],
)
