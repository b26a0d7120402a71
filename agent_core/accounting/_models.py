"""Model registry: context window, family, default strategy and tokenizer for a model name.

Figures come from ``data/models.json`` (derived from litellm's table by
``scripts/build_model_table.py``); family, strategy and encoding are rules here, because they
are Baton's decisions, not facts about the provider. Lookup is a longest-prefix match on the
name with and without its provider prefix, so a new dated version (``claude-sonnet-4-5-2026…``)
inherits the figures of the model it extends.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from agent_core.errors import ConfigurationError

__all__ = [
    "Family",
    "Strategy",
    "ModelInfo",
    "model_info",
    "SIMULATOR_NAMES",
    "UNKNOWN_CONTEXT_WINDOW",
]

Family = Literal[
    "opus",
    "sonnet",
    "haiku",
    "claude",
    "gpt",
    "o-series",
    "gemini",
    "llama",
    "mistral",
    "qwen",
    "deepseek",
    "simulator",
    "unknown",
]
Strategy = Literal["compact", "reset"]
Encoding = Literal["o200k_base", "cl100k_base"]

_DATA_FILE = Path(__file__).parent.parent / "data" / "models.json"
_log = logging.getLogger(__name__)

SIMULATOR_NAMES = frozenset({"simulator", "baton:simulator"})
SIMULATOR_CONTEXT_WINDOW = 32768
UNKNOWN_CONTEXT_WINDOW = 128000
# A local model Baton does not know (``ollama:…``): the window is also the num_ctx Ollama is
# asked for, and a large one costs memory on the user's machine.
UNKNOWN_LOCAL_CONTEXT_WINDOW = 8192
UNKNOWN_MAX_OUTPUT = 4096

# Characters that may end a matched prefix: "claude-sonnet-4-5" matches
# "claude-sonnet-4-5-20250929" but "gpt-4" must not swallow "gpt-4o".
_BOUNDARIES = frozenset("-.:@/_ ")

# (pattern, family), first hit wins: Claude tiers before the generic "claude".
_FAMILY_PATTERNS: tuple[tuple[str, Family], ...] = (
    (r"opus", "opus"),
    (r"sonnet", "sonnet"),
    (r"haiku", "haiku"),
    (r"claude", "claude"),
    (r"(^|[/.:])o\d", "o-series"),
    (r"gpt|chatgpt", "gpt"),
    (r"gemini|gemma|learnlm", "gemini"),
    (r"llama", "llama"),
    (r"mistral|mixtral|codestral|magistral|ministral|devstral|pixtral", "mistral"),
    (r"qwen|qwq", "qwen"),
    (r"deepseek", "deepseek"),
)
_FAMILY_RULES: tuple[tuple[re.Pattern[str], Family], ...] = tuple(
    (re.compile(pattern), family) for pattern, family in _FAMILY_PATTERNS
)

# OpenAI models from gpt-4o on use o200k_base; older OpenAI models use cl100k_base. Other
# vendors' tokenizers are not public BPE files; cl100k is the neutral stand-in we calibrate.
_O200K = re.compile(r"(^|[/.:])(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d)")


class ModelInfo(BaseModel):
    """What Baton knows about a model: window, output cap, family and default strategy."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    matched_key: str | None
    provider: str | None
    context_window: int
    max_output_tokens: int
    family: Family
    default_strategy: Strategy
    known: bool
    encoding: Encoding


def model_info(name: str, *, window_override: int | None = None) -> ModelInfo:
    """Look up ``name`` (``provider:model``, ``provider/model`` or bare) in the registry.

    Models missing from the table get a safe default (128k window, 8k for a local
    ``ollama:`` model; strategy by the family the name reveals, ``compact`` when it reveals
    none) and one logged warning per name. ``window_override`` (e.g. an assistant's setting) replaces the window.
    """
    if not isinstance(name, str) or not name.strip():
        raise ConfigurationError(f"model name must be a non-empty string, got {name!r}")
    info = _lookup(name.strip())
    if window_override is None:
        return info
    if isinstance(window_override, bool) or not isinstance(window_override, int):
        raise ConfigurationError(
            f"window_override must be a positive integer, got {window_override!r}"
        )
    if window_override <= 0:
        raise ConfigurationError(f"window_override must be positive, got {window_override}")
    return info.model_copy(update={"context_window": window_override})


def family_of(name: str) -> Family:
    """The model family by name rules alone (no table needed)."""
    lowered = name.lower()
    if lowered in SIMULATOR_NAMES:
        return "simulator"
    for pattern, family in _FAMILY_RULES:
        if pattern.search(lowered):
            return family
    return "unknown"


def default_strategy_for(family: Family) -> Strategy:
    """Opus-class models compact well in place; Sonnet/Haiku-class (and the simulator) reset."""
    return "reset" if family in ("sonnet", "haiku", "simulator") else "compact"


@lru_cache(maxsize=1024)
def _lookup(name: str) -> ModelInfo:
    lowered = name.lower()
    if lowered in SIMULATOR_NAMES:
        return ModelInfo(
            name=name,
            matched_key=None,
            provider="baton",
            context_window=SIMULATOR_CONTEXT_WINDOW,
            max_output_tokens=4096,
            family="simulator",
            default_strategy="reset",
            known=True,
            encoding="cl100k_base",
        )
    prefix_provider, bare = _split_provider(lowered)
    match = _match(lowered)
    family = family_of(bare)
    encoding: Encoding = "o200k_base" if _O200K.search(bare) else "cl100k_base"
    if match is None:
        window = (
            UNKNOWN_LOCAL_CONTEXT_WINDOW
            if prefix_provider == "ollama"
            else (UNKNOWN_CONTEXT_WINDOW)
        )
        _log.warning(
            "unknown model %r: assuming a %d-token window and the %s strategy; "
            "set a window override on the assistant if this is wrong",
            name,
            window,
            default_strategy_for(family),
        )
        return ModelInfo(
            name=name,
            matched_key=None,
            provider=prefix_provider,
            context_window=window,
            max_output_tokens=UNKNOWN_MAX_OUTPUT,
            family=family,
            default_strategy=default_strategy_for(family),
            known=False,
            encoding=encoding,
        )
    key, (window, max_output, table_provider) = match
    return ModelInfo(
        name=name,
        matched_key=key,
        provider=prefix_provider or table_provider,
        context_window=window,
        max_output_tokens=max_output,
        family=family,
        default_strategy=default_strategy_for(family),
        known=True,
        encoding=encoding,
    )


def _split_provider(lowered: str) -> tuple[str | None, str]:
    """``anthropic:claude-x`` -> ("anthropic", "claude-x"); ``gemini/x`` -> ("gemini", "x")."""
    for sep in (":", "/"):
        head, found, tail = lowered.partition(sep)
        # "anthropic.claude-…-v1:0" has a colon in its version, not a provider prefix.
        if found and head and "." not in head and "-" not in head:
            return head, tail
    return None, lowered


def _candidates(lowered: str) -> list[str]:
    """The name, then the name with each provider/vendor prefix peeled off."""
    seen: list[str] = []
    provider, bare = _split_provider(lowered)
    # litellm spells provider prefixes with "/", Baton's model strings with ":".
    current = f"{provider}/{bare}" if provider else lowered
    while current and current not in seen:
        seen.append(current)
        if "/" in current:
            current = current.split("/", 1)[1]
        elif re.match(r"^[a-z0-9-]+\.[a-z]", current):
            # Bedrock vendor prefix: "anthropic.claude-…", "us.anthropic.claude-…".
            current = current.split(".", 1)[1]
        else:
            break
    return seen


def _match(lowered: str) -> tuple[str, list] | None:
    """Exact name on any candidate first; else the longest boundary-aligned prefix.

    Names are the table's keys plus their bare aliases (below), so a model that litellm lists
    only through a cloud (``anthropic.claude-3-5-sonnet-20240620-v1:0``) is still found by the
    name its vendor gives it.
    """
    index = _index()
    candidates = _candidates(lowered)
    for candidate in candidates:
        if candidate in index:
            return index[candidate]
    best: str | None = None
    for candidate in candidates:
        for end in range(len(candidate) - 1, 0, -1):
            if candidate[end] in _BOUNDARIES and candidate[:end] in index:
                if best is None or end > len(best):
                    best = candidate[:end]
                break
    return index[best] if best is not None else None


_CLOUD_VENDOR = re.compile(r"^(?:[a-z0-9-]+\.)+(?=[a-z])")  # "us.anthropic.", "meta."
_DATE_SUFFIX = re.compile(r"-20\d{6}$")  # "-20250805", a release date
_CLOUD_VERSION = re.compile(r"(?<=\d)(?P<rest>[a-z-]*)-v\d+:\d+$")  # Bedrock's "-v1:0"


def _alias(key: str) -> str:
    """The vendor's own name for a cloud listing: ``bedrock/us.anthropic.x-v1:0`` -> ``x``,
    ``vertex_ai/claude-3-5-sonnet@20240620`` -> ``claude-3-5-sonnet-20240620``."""
    bare = key.rsplit("/", 1)[-1]
    bare = _CLOUD_VENDOR.sub("", bare)
    # Only a versioned name keeps its identity without the suffix ("claude-v2:1" would not).
    return _CLOUD_VERSION.sub(r"\g<rest>", bare).replace("@", "-")


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[str, list]]:
    """name -> (table key, entry): every key, plus aliases of cloud listings that the table
    has no direct entry for. Where clouds disagree on an alias's window, the window most
    listings give wins, the smaller one on a tie (resetting early is safe, overflowing not)."""
    table = _table()
    listings: dict[str, list[str]] = {}
    for key in table:
        alias = _alias(key)
        if alias and alias not in table:
            listings.setdefault(alias, []).append(key)
    index = {key: (key, entry) for key, entry in table.items()}
    for alias, keys in listings.items():
        votes = Counter(table[k][0] for k in keys)
        window = min(votes, key=lambda w: (-votes[w], w))
        key = next(k for k in sorted(keys) if table[k][0] == window)
        index[alias] = (key, table[key])
    # People type the undated name ("claude-opus-4-1") of a model the table lists only with
    # its release date; the undated name means the newest dated release.
    dated: dict[str, str] = {}
    for name in index:
        undated = _DATE_SUFFIX.sub("", name)
        if undated != name and undated not in index and name > dated.get(undated, ""):
            dated[undated] = name
    for undated, name in dated.items():
        index[undated] = index[name]
    return index


@lru_cache(maxsize=1)
def _table() -> dict[str, list]:
    try:
        document = json.loads(_DATA_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a broken install, not a user error
        raise ConfigurationError(
            f"model table {_DATA_FILE} is missing or corrupt ({exc}); reinstall Baton or run "
            "scripts/build_model_table.py"
        ) from exc
    return document["models"]
