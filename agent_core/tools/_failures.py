"""How a failed tool call reads to the model: an error result it can act on, stored like any
other tool result, never an exception that ends the turn.

Each kind of failure is handled where langchain and langgraph provide for it:

- arguments that do not match the tool's schema: the tool's own ``handle_validation_error``
  (:func:`invalid_arguments`), so the message is short and names the expected arguments
  (langgraph's default would quote every argument back, a whole file's content included);
- a tool name the model made up: langgraph's ``ToolNode`` answers with the list of tools;
- anything a tool raises while it runs (a :class:`~agent_core.errors.ToolInputError`, a store
  that refuses a write, a bug): :func:`tool_failure`, the handler of langchain's
  ``ToolErrorMiddleware`` in :func:`agent_core.runtime._middleware.build_middleware`.

Every message starts with ``error:`` (the convention of Baton's tool results, which the
timeline and the handoff's fact extraction read as a failed call) and the tool's name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from langchain.agents.middleware import ToolCallRequest
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ValidationError
from pydantic.v1 import ValidationError as ValidationErrorV1

from agent_core.errors import StoreError, ToolInputError
from agent_core.redaction import known_secrets, redact_text

__all__ = ["tool_failure", "invalid_arguments", "checked_tool"]

log = logging.getLogger(__name__)
_MAX_PROBLEMS = 5
_MAX_DETAIL_CHARS = 300


def tool_failure(exc: Exception, request: ToolCallRequest) -> str:
    """The error result for ``exc``, raised by the tool of ``request`` while it ran."""
    name = request.tool_call["name"]
    if isinstance(exc, ToolInputError):
        return f"error: {name}: {exc}"
    detail = _first_line(exc)
    if isinstance(exc, StoreError):
        log.warning("tool %s: the store refused the call: %s", name, detail)
        return f"error: {name}: the workspace could not store this: {detail}"
    log.warning("tool %s failed", name, exc_info=exc)
    return f"error: {name} failed: {detail}. Check the arguments and try again, or take another way"


#: Argument schemas by (module, function, tool name): tools are bound to a thread at every
#: turn, and inferring a schema (a pydantic model per function) cost more than the rest.
_SCHEMAS: dict[tuple[str, str, str], type[BaseModel]] = {}


def checked_tool(function: Callable[..., Any], *, name: str, **kwargs: Any) -> StructuredTool:
    """``StructuredTool.from_function`` whose argument errors return to the model
    (:func:`invalid_arguments`), with the schema inferred once per function and name."""
    key = (function.__module__, function.__qualname__, name)
    schema = _SCHEMAS.get(key)
    tool = StructuredTool.from_function(function, name=name, args_schema=schema, **kwargs)
    inferred = tool.args_schema
    if schema is None and isinstance(inferred, type) and issubclass(inferred, BaseModel):
        _SCHEMAS[key] = inferred
    tool.handle_validation_error = invalid_arguments(tool)
    return tool


def invalid_arguments(tool: BaseTool) -> Callable[[ValidationError | ValidationErrorV1], str]:
    """A ``handle_validation_error`` for ``tool``: what was wrong and what it expects."""

    def describe(exc: ValidationError | ValidationErrorV1) -> str:
        # Built when a call goes wrong, not with the tool: reading tool.args builds a schema.
        expected = ", ".join(f"{arg} ({_type_of(spec)})" for arg, spec in tool.args.items())
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'arguments'}: {error['msg']}"
            for error in exc.errors()[:_MAX_PROBLEMS]
        ]
        return (
            f"error: {tool.name}: invalid arguments ({'; '.join(problems)}). Expected: {expected}"
        )

    return describe


def _type_of(spec: dict[str, Any]) -> str:
    if "type" in spec:
        return str(spec["type"])
    options = [str(option.get("type")) for option in spec.get("anyOf", []) if option.get("type")]
    return " or ".join(options) or "object"


def _first_line(exc: BaseException) -> str:
    # A store or library error may quote a connection URL or a key.
    text = redact_text(str(exc), known_secrets()).strip()
    return text.splitlines()[0][:_MAX_DETAIL_CHARS] if text else type(exc).__name__
