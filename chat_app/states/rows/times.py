"""Times as the page shows them: "3 min ago", an exact tooltip, an ISO time for the browser
to keep a label fresh from."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["When", "relative_time", "exact_time", "iso_time"]

#: A time as views and stored handoffs hold it: a datetime, an ISO string, or unknown.
When = datetime | str | None


def _as_datetime(value: When) -> datetime | None:
    if isinstance(value, datetime):
        when = value
    elif value:
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def relative_time(value: When, now: datetime | None = None) -> str:
    """'just now', '3 min ago', '2 h ago', '4 days ago' (or '' when unknown)."""
    when = _as_datetime(value)
    if when is None:
        return ""
    seconds = ((now or datetime.now(UTC)) - when).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


def exact_time(value: When) -> str:
    """'Tue 1 Dec 2026, 16:09:07 UTC' (or '' when unknown)."""
    when = _as_datetime(value)
    if when is None:
        return ""
    when = when.astimezone(UTC)
    return f"{when:%a} {when.day} {when:%b %Y, %H:%M:%S} UTC"


def iso_time(value: When) -> str:
    """An aware ISO 8601 time for the browser ("" when unknown)."""
    when = _as_datetime(value)
    return "" if when is None else when.isoformat()
