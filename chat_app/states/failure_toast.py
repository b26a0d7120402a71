"""Reflex's handler for an event that raised: a plain reason on the page, details in the log."""

import logging

import reflex as rx
from reflex.event import EventSpec

from chat_app.services.presentation.failures import describe_failure

__all__ = ["backend_exception_handler"]

_log = logging.getLogger(__name__)


# Reflex checks this signature (a parameter named ``exception``, an EventSpec back); the
# annotations stay real objects, not strings, for that check.
def backend_exception_handler(exception: Exception) -> EventSpec:
    """Log the traceback (statement parameters are hidden by the engines, secrets by the
    log redaction) and show the plain reason (Reflex's own handler shows the raw text in
    development and nothing useful in production)."""
    reason = describe_failure(exception)
    _log.error("an event failed: %s", reason, exc_info=exception)
    return rx.toast.error("Something went wrong", description=reason, id="backend_error")
