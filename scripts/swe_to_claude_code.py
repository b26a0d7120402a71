"""Rewrite a SWE-agent function-calling trajectory as a Claude Code session JSONL.

No public Claude Code session ships with the evaluation data, so the replay CLI's Claude Code
path is exercised on a real agent trajectory re-encoded in that format (tool_use /
tool_result blocks, one assistant record per streamed content block sharing ``message.id``,
usage on the last record). Usage: ``python scripts/swe_to_claude_code.py IN.traj OUT.jsonl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def convert(traj: dict[str, Any]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    sent = 0
    for n, item in enumerate(traj["history"]):
        role, text = item.get("role"), _text(item.get("content"))
        base = {
            "sessionId": "replay",
            "uuid": f"u{n}",
            "timestamp": f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}Z",
        }
        if role in ("system", "user") and item.get("message_type") != "observation":
            sent += len(text) // 3
            records.append({**base, "type": "user", "message": {"role": "user", "content": text}})
        elif role == "assistant":
            blocks = [{"type": "text", "text": text}] if text.strip() else []
            for call in item.get("tool_calls") or []:
                fn = call["function"]
                args = fn["arguments"]
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": fn["name"],
                        "input": json.loads(args) if isinstance(args, str) else args,
                    }
                )
            for k, block in enumerate(blocks):
                message = {"id": f"msg_{n}", "role": "assistant", "content": [block]}
                if k == len(blocks) - 1:
                    message["usage"] = {"input_tokens": sent, "output_tokens": len(text) // 3}
                records.append(
                    {**base, "uuid": f"u{n}-{k}", "type": "assistant", "message": message}
                )
        elif role == "tool":
            sent += len(text) // 3
            ids = item.get("tool_call_ids") or [""]
            records.append(
                {
                    **base,
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": ids[0],
                                "content": [{"type": "text", "text": text}],
                            }
                        ],
                    },
                }
            )
    return records


def main() -> None:
    source, target = Path(sys.argv[1]), Path(sys.argv[2])
    records = convert(json.loads(source.read_text(encoding="utf-8")))
    target.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
