"""Model registry: figures from the packaged table, family/strategy rules, prefix matching."""

from __future__ import annotations

import json
import logging
import uuid

import pytest
from pydantic import ValidationError

from agent_core.accounting._models import ModelInfo, model_info
from agent_core.errors import ConfigurationError


@pytest.mark.parametrize(
    ("name", "window", "max_output"),
    [
        ("gpt-4o", 128000, 16384),
        ("openai:gpt-4o", 128000, 16384),
        ("gpt-4.1", 1047576, 32768),
        ("claude-sonnet-4-5", 200000, 64000),
        ("anthropic:claude-sonnet-4-5", 200000, 64000),
        ("claude-sonnet-4-5-20250929", 200000, 64000),
        ("bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0", 200000, 64000),
        ("gemini/gemini-2.5-pro", 1048576, 65536),
        ("gpt-5", 272000, 128000),
    ],
)
def test_figures_come_from_the_table(name: str, window: int, max_output: int) -> None:
    info = model_info(name)
    assert (info.context_window, info.max_output_tokens, info.known) == (window, max_output, True)


def test_provider_prefix_is_reported_and_stripped_for_matching() -> None:
    info = model_info("anthropic:claude-sonnet-4-5")
    assert info.provider == "anthropic"
    assert info.matched_key == "claude-sonnet-4-5"


def test_a_new_dated_version_inherits_its_base_model_by_longest_prefix() -> None:
    info = model_info("claude-sonnet-4-5-20991231")
    assert info.matched_key == "claude-sonnet-4-5"
    assert info.context_window == 200000


def test_prefix_match_respects_name_boundaries() -> None:
    # "gpt-4" (8k) must not be the match for an unlisted "gpt-4o…" variant.
    assert model_info("gpt-4o-2099-01-01").matched_key == "gpt-4o"
    assert model_info("gpt-4o-2099-01-01").context_window == 128000


@pytest.mark.parametrize(
    ("name", "listing", "window"),
    [
        # Retired from the vendor's own listing, still listed by the clouds.
        ("claude-3-5-sonnet-20240620", "anthropic.claude-3-5-sonnet-20240620-v1:0", 200000),
        (
            "anthropic:claude-3-5-sonnet-20240620",
            "anthropic.claude-3-5-sonnet-20240620-v1:0",
            200000,
        ),
        ("claude-3-opus-20240229", "anthropic.claude-3-opus-20240229-v1:0", 200000),
        ("llama3-1-70b-instruct", "meta.llama3-1-70b-instruct-v1:0", 128000),
    ],
)
def test_a_model_listed_only_by_clouds_is_found_by_its_vendor_name(
    name: str, listing: str, window: int
) -> None:
    info = model_info(name)
    assert (info.matched_key, info.context_window, info.known) == (listing, window, True)


@pytest.mark.parametrize(
    ("typed", "dated"),
    [
        ("claude-opus-4-1", "claude-opus-4-1-20250805"),
        ("anthropic:claude-opus-4-1", "claude-opus-4-1-20250805"),
        ("claude-sonnet-4", "claude-sonnet-4-20250514"),
        ("anthropic:claude-sonnet-4", "claude-sonnet-4-20250514"),
    ],
)
def test_an_undated_name_people_type_resolves_to_its_dated_entry(typed: str, dated: str) -> None:
    info = model_info(typed)
    assert info.known
    assert (info.matched_key, info.context_window) == (
        model_info(dated).matched_key,
        model_info(dated).context_window,
    )


def test_an_undated_name_never_takes_a_longer_models_entry() -> None:
    # "claude-sonnet-4" means Sonnet 4, not "claude-sonnet-4-5" by prefix.
    assert "4-5" not in (model_info("claude-sonnet-4").matched_key or "")


def test_cloud_aliases_never_shorten_a_name_to_its_family() -> None:
    # "anthropic.claude-v2:1" must not become a "claude" entry that every unknown Claude
    # name would then prefix-match with a 100k window.
    info = model_info(f"claude-{uuid.uuid4().hex[:8]}")
    assert (info.known, info.matched_key) == (False, None)


@pytest.mark.parametrize(
    ("name", "family", "strategy"),
    [
        ("claude-opus-4-5", "opus", "compact"),
        ("anthropic:claude-sonnet-4-5", "sonnet", "reset"),
        ("claude-haiku-4-5", "haiku", "reset"),
        ("gpt-4o", "gpt", "compact"),
        ("o3-mini", "o-series", "compact"),
        ("gemini/gemini-2.5-pro", "gemini", "compact"),
        ("deepseek-chat", "deepseek", "compact"),
    ],
)
def test_family_decides_default_strategy(name: str, family: str, strategy: str) -> None:
    info = model_info(name)
    assert (info.family, info.default_strategy) == (family, strategy)


@pytest.mark.parametrize(
    ("name", "encoding"),
    [
        ("gpt-4", "cl100k_base"),
        ("gpt-4o", "o200k_base"),
        ("gpt-4.1-mini", "o200k_base"),
        ("o1", "o200k_base"),
        ("claude-sonnet-4-5", "cl100k_base"),
    ],
)
def test_encoding_follows_openai_generations(name: str, encoding: str) -> None:
    assert model_info(name).encoding == encoding


@pytest.mark.parametrize("name", ["simulator", "baton:simulator"])
def test_simulator(name: str) -> None:
    info = model_info(name)
    assert (info.family, info.context_window, info.default_strategy, info.encoding) == (
        "simulator",
        32768,
        "reset",
        "cl100k_base",
    )


def test_unknown_model_gets_safe_default_and_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    name = f"acme-{uuid.uuid4().hex[:8]}"
    with caplog.at_level(logging.WARNING, logger="agent_core.accounting._models"):
        first = model_info(name)
        model_info(name)
        model_info(name, window_override=4096)
    assert (first.known, first.family, first.default_strategy, first.context_window) == (
        False,
        "unknown",
        "compact",
        128000,
    )
    assert sum(name in r.getMessage() for r in caplog.records) == 1


def test_window_override_replaces_the_window() -> None:
    info = model_info("gpt-4o", window_override=50_000)
    assert info.context_window == 50_000
    assert info.max_output_tokens == 16384


@pytest.mark.parametrize("bad", [0, -5, 1.5, "100", True])
def test_window_override_is_validated(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="window_override"):
        model_info("gpt-4o", window_override=bad)  # type: ignore[arg-type]


def test_empty_name_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        model_info("  ")


def test_model_info_is_frozen() -> None:
    with pytest.raises(ValidationError):
        model_info("gpt-4o").context_window = 1  # type: ignore[misc]
    assert isinstance(model_info("gpt-4o"), ModelInfo)


def test_packaged_table_agrees_with_the_source_table() -> None:
    from scripts.build_model_table import build_table
    from tests.shared_data import eval_path

    source = eval_path("context-window-tables", "litellm_model_prices_and_context_window.json")
    rebuilt = build_table(json.loads(source.read_text(encoding="utf-8")))
    from agent_core.accounting._models import _table

    assert rebuilt == _table()
