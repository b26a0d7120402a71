"""Print a one-time admin sign-in link: ``python -m chat_app.admin_link [--base-url URL]``.

For the admin whom attackers' failed guesses have locked out of ``/admin`` (or who has the
password but not the patience): run it on the server, with the app's environment
(``REFLEX_DB_URL``, ``BATON_ADMIN_PASSWORD``), and open the link within ten minutes. It signs
in once; see :mod:`chat_app.services.admin.sign_in_link`.
"""

from __future__ import annotations

import argparse
import os
import sys
from urllib.parse import urlencode

from chat_app.db.migrate import migrate
from chat_app.root import root
from chat_app.services.admin import AdminRefused
from chat_app.services.admin.sign_in_link import (
    LINK_LIFETIME,
    LINK_PARAMETER,
    issue_sign_in_link,
)

__all__ = ["main"]

BASE_URL_ENV = "BATON_PUBLIC_URL"
DEFAULT_BASE_URL = "http://localhost:3000"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chat_app.admin_link",
        description="Print a link that signs in to /admin once, within "
        f"{int(LINK_LIFETIME.total_seconds() // 60)} minutes, whatever the sign-in throttle says.",
    )
    parser.add_argument(
        "--base-url",
        default=os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL,
        help=f"where browsers reach the app (default: ${BASE_URL_ENV}, else {DEFAULT_BASE_URL})",
    )
    args = parser.parse_args(argv)
    migrate()
    try:
        token = issue_sign_in_link(root())
    except AdminRefused as refused:
        print(refused, file=sys.stderr)
        return 1
    print(f"{args.base_url.rstrip('/')}/admin?{urlencode({LINK_PARAMETER: token})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
