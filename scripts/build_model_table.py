"""Derive ``agent_core/data/models.json`` from litellm's model table in ``shared/eval``.

Run from the repo root: ``.venv/bin/python scripts/build_model_table.py``. The project never
reads ``shared/`` at run time; this script is the only bridge, and its output is package data.

Only chat-mode entries with a ``max_input_tokens`` figure are kept, from providers people
actually point Baton at (the rest of litellm's 4,800 entries are resellers and gateways that
repeat the same models). Family and strategy rules are code in ``agent_core/accounting/_models.py``, not data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCE_NAME = "litellm_model_prices_and_context_window.json"
OUTPUT = REPO_ROOT / "agent_core" / "data" / "models.json"

# Providers whose names users write in Baton model strings ("anthropic:…", "bedrock/…", …).
KEPT_PROVIDERS = frozenset(
    {
        "openai",
        "anthropic",
        "gemini",
        "vertex_ai",
        "vertex_ai-anthropic_models",
        "vertex_ai-language-models",
        "vertex_ai-llama_models",
        "vertex_ai-mistral_models",
        "vertex_ai-deepseek_models",
        "vertex_ai-qwen_models",
        "bedrock",
        "bedrock_converse",
        "azure",
        "azure_ai",
        "mistral",
        "codestral",
        "deepseek",
        "groq",
        "xai",
        "ollama",
        "together_ai",
        "fireworks_ai",
        "cohere_chat",
        "perplexity",
        "cerebras",
        "meta_llama",
        "dashscope",
        "moonshot",
        "openrouter",
    }
)


def default_source() -> Path:
    shared = Path(os.environ.get("BATON_SHARED_DIR", REPO_ROOT.parent / "shared"))
    return shared / "eval" / "context-window-tables" / SOURCE_NAME


def build_table(raw: dict) -> dict[str, list]:
    """Map each kept model key to ``[max_input_tokens, max_output_tokens, provider]``."""
    table: dict[str, list] = {}
    for key, entry in raw.items():
        if not isinstance(entry, dict) or entry.get("mode") != "chat":
            continue
        provider = entry.get("litellm_provider")
        window = entry.get("max_input_tokens")
        if provider not in KEPT_PROVIDERS or not isinstance(window, int) or window <= 0:
            continue
        max_output = entry.get("max_output_tokens")
        if not isinstance(max_output, int) or max_output <= 0:
            # Legacy entries only carry the ambiguous ``max_tokens``; cap it by the window.
            legacy = entry.get("max_tokens")
            max_output = min(legacy, window) if isinstance(legacy, int) and legacy > 0 else 4096
        table[key.lower()] = [window, max_output, provider]
    return dict(sorted(table.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=default_source())
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if not args.source.exists():
        print(f"source table not found: {args.source} (set BATON_SHARED_DIR)", file=sys.stderr)
        return 1
    table = build_table(json.loads(args.source.read_text(encoding="utf-8")))
    document = {
        "source": f"litellm 1.110.2 {SOURCE_NAME} (MIT); chat-mode entries of kept providers",
        "fields": ["max_input_tokens", "max_output_tokens", "litellm_provider"],
        "models": table,
    }
    # One entry per line: compact, yet diffs of a regenerated table stay readable.
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in table.items()]
    head = json.dumps({k: v for k, v in document.items() if k != "models"})[:-1]
    args.output.write_text(
        head + ', "models": {\n' + ",\n".join(lines) + "\n}}\n", encoding="utf-8"
    )
    print(f"wrote {len(table)} models to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
