"""The chat page on a long thread, in headless chromium, measured side by side in one run.

1. Opening a chat by URL: the time until its newest message is visible (read in the page:
   ``performance.now()`` since the navigation started, when the newest row is in the
   viewport), beside a plain static page of ten messages served by the same server (the
   ratio is the figure; goal: newest message <= 1.0 s on the 10-message thread on a quiet
   machine); then until the composer is interactive, and where the time goes (response
   start, DOM content loaded, websocket open, first state frame). And the page-load
   payload: the bytes of the websocket frames the browser receives from opening the chat
   until it is interactive (and half a second more), in all, for the timeline's rows and
   per state var (the largest). Three thread shapes: 10 messages; 10,000 messages in 50
   sessions (plain rows); a rich one (12-line tool outputs, Markdown replies, 49 full
   handoffs). Goal: <= 60 KB on the long and the rich thread.
2. Bytes the server sends while a turn of the simulator runs (about 25 model steps, 40 to
   60 finished rows), on the long thread vs the short one, read from the websocket: per
   streaming flush and per streamed word, per finished step (a frame that changes the
   timeline; median, first and last quarter of the turn, largest), at the end of the turn
   and for the whole turn. Goal: a step <= 2 KB, the same on both threads and at the start
   and end of the turn.

3. On the long thread: time from a chip click until its session's divider is on screen, the
   rows in the page afterwards and the p95 frame time while scrolling, for sessions 1, 25
   and 49 (goals: <= 0.5 s, <= 400 rows, <= 20 ms), and screenshots at 1280 and 390 px.

With ``--before DIR`` (a checkout of an earlier commit) both are served at once on copies of
one database and the page opens are measured on each in turn: before/after in one run.

Needs Debian chromium. Run: ``.venv/bin/python -m bench.ui`` (``--help`` for options)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_core import NewMessage
from bench._shared import REPO_ROOT  # noqa: F401  (puts the repo on sys.path)
from chat_app.services.security import identity
from tests.browser.app_server import running_app
from tests.browser.conftest import CHROMIUM_ARGS, _chromium_path

SECRET = "bench-ui-signing-key"
SESSIONS, PER_SESSION = 50, 200


def _long_thread(app, owner: str) -> str:
    from chat_app.services.conversation import threads as thread_service

    store = app.store
    long_id = thread_service.create_thread(app, owner, "Long run").id
    for number in range(SESSIONS):
        session = store.current_session(long_id)
        rows = [NewMessage(role="user", content=f"Session {number + 1}: continue the work")]
        for n in range((PER_SESSION - 1) // 2):
            call = {
                "name": "run_command",
                "args": {"command": f"pytest -q tests/test_{n}.py"},
                "id": f"c{number}-{n}",
            }
            rows.append(
                NewMessage(
                    role="assistant", content=f"Step {n}: running the tests", tool_calls=[call]
                )
            )
            rows.append(
                NewMessage(
                    role="tool",
                    tool_call_id=call["id"],
                    name="run_command",
                    content=f"{n} passed in 0.{n % 9}s\n[exit status 0]",
                )
            )
        store.append(long_id, session.id, rows[:PER_SESSION])
        if number < SESSIONS - 1:
            handoff = {
                "session_number": number + 1,
                "trigger": "auto",
                "utilization": 0.82,
                "model": "simulator",
                "created_at": "2026-01-01T00:00:00Z",
                "completed_work": [f"Finished part {number + 1}"],
                "in_progress": ["Next part"],
                "remaining_tasks": ["More parts"],
                "key_decisions": ["Keep going"],
                "files_modified": [],
                "current_state_summary": f"Part {number + 1} done.",
                "open_todos": [],
                "pinned_files": [],
                "previous_handoff": None,
                "focus": None,
            }
            store.commit_reset(
                long_id,
                old_session_id=session.id,
                trigger="auto",
                utilization=0.82,
                model="simulator",
                handoff=handoff,
                handoff_path=f"HANDOFF-{number + 1}.md",
                handoff_markdown="-",
                context=[NewMessage(role="handoff", content="<handoff-context>…")],
            )
    return long_id


RICH_SESSIONS, RICH_PAIRS = 50, 30

_RICH_REPLY = """## Step {n}: what changed

The parser now reads **quoted fields** and `CRLF` line ends; the failing case was a
trailing comma in the header row.

- `parse_row()` keeps empty trailing fields
- `Invoice.total` is a `Decimal`, never a float
- the CLI exits with status 2 on a malformed file

```python
def parse_row(line: str) -> list[str]:
    return next(csv.reader([line], strict=True))
```

| check | before | after |
|---|---|---|
| tests | 41 passed, 3 failed | 44 passed |
| ruff | 2 findings | clean |
"""


def _rich_output(n: int) -> str:
    lines = [
        f"tests/test_invoices_{n}.py::test_case_{k} PASSED    [{(k + 1) * 8:3d}%]"
        for k in range(11)
    ]
    return "\n".join([*lines, f"============ 11 passed in 0.{n % 9}4s ============"])


def _rich_handoff(number: int) -> dict:
    return {
        "session_number": number,
        "trigger": "auto",
        "utilization": 0.82,
        "model": "simulator",
        "created_at": "2026-01-01T00:00:00Z",
        "goal": "Build a CSV invoice parser with a CLI, tests and docs",
        "completed_work": [f"Part {number}.{k}: parser and tests for case {k}" for k in range(5)],
        "in_progress": [f"Part {number + 1}: totals across currencies"],
        "remaining_tasks": [f"Part {number + k}: the next feature of the CLI" for k in range(2, 5)],
        "key_decisions": [
            "Decimal for money, never float",
            "csv module in strict mode, no hand-written splitting",
            "Exit status 2 on a malformed file",
        ],
        "files_modified": [f"src/invoices/part_{number}_{k}.py" for k in range(5)],
        "current_state_summary": (
            f"Part {number} is done and tested; 44 tests pass; the CLI reads one file at a time."
        ),
        "next_step": f"Write the failing test for part {number + 1}'s currency totals, then make it pass.",
        "open_todos": [f"Document part {number}"],
        "pinned_files": [],
        "previous_handoff": None,
        "focus": None,
    }


def _rich_thread(app, owner: str) -> str:
    """50 sessions of rich rows: each a user message, 30 Markdown replies calling a tool whose
    output is 12 lines, and a full handoff between sessions (49 in all)."""
    from chat_app.services.conversation import threads as thread_service

    store = app.store
    rich_id = thread_service.create_thread(app, owner, "Rich run").id
    for number in range(RICH_SESSIONS):
        session = store.current_session(rich_id)
        rows = [NewMessage(role="user", content=f"Session {number + 1}: **continue** the work")]
        for n in range(RICH_PAIRS):
            call = {
                "name": "run_command",
                "args": {"command": f"pytest -v tests/test_invoices_{n}.py"},
                "id": f"r{number}-{n}",
            }
            rows.append(
                NewMessage(role="assistant", content=_RICH_REPLY.format(n=n), tool_calls=[call])
            )
            rows.append(
                NewMessage(
                    role="tool",
                    tool_call_id=call["id"],
                    name="run_command",
                    content=_rich_output(n),
                )
            )
        rows.append(NewMessage(role="assistant", content=_RICH_REPLY.format(n="final")))
        store.append(rich_id, session.id, rows)
        if number < RICH_SESSIONS - 1:
            handoff = _rich_handoff(number + 1)
            store.commit_reset(
                rich_id,
                old_session_id=session.id,
                trigger="auto",
                utilization=0.82,
                model="simulator",
                handoff=handoff,
                handoff_path=f"HANDOFF-{number + 1}.md",
                handoff_markdown=f"# Handoff {number + 1}\n\n" + handoff["current_state_summary"],
                context=[NewMessage(role="handoff", content="<handoff-context>…")],
            )
    return rich_id


def _short_thread(app, owner: str) -> str:
    from chat_app.services.conversation import threads as thread_service

    store = app.store
    short_id = thread_service.create_thread(app, owner, "Short").id
    session = store.current_session(short_id)
    store.append(
        short_id,
        session.id,
        [
            NewMessage(role="user" if n % 2 == 0 else "assistant", content=f"message {n}")
            for n in range(10)
        ],
    )
    return short_id


def _fill(db_url: str, runs: int) -> tuple[str, list[str], list[str], list[str]]:
    """(owner cookie token, long, short and rich thread ids) written straight to the store:
    one pair per measured turn (the simulator plans its whole task only in a thread's first
    turn; later turns are short follow-ups), and one short thread more to warm up."""
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import Settings

    app = build_app(Settings(db_url=db_url, secret_key=SECRET))
    token = identity.mint_token(app.identity_key)  # the served app's key (BATON_SECRET_KEY)
    owner = identity.owner_from_token(token, app.identity_key)
    assert owner is not None  # a token minted here
    longs = [_long_thread(app, owner) for _ in range(runs)]
    shorts = [_short_thread(app, owner) for _ in range(runs + 1)]
    riches = [_rich_thread(app, owner) for _ in range(runs)]
    return token, longs, shorts, riches


def _frame_vars(payload: str) -> dict[str, object]:
    """The state vars a socket.io frame carries (``42["event", {"delta": {...}}]``)."""
    body = payload[payload.find("[") :] if "[" in payload else ""
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    found: dict[str, object] = {}
    for part in message if isinstance(message, list) else [message]:
        delta = part.get("delta") if isinstance(part, dict) else None
        for values in (delta or {}).values():
            if isinstance(values, dict):
                found.update(values)
    return found


_LIVE_VAR = re.compile(r"^(live_\d+|live_pages|rows)_rx_state_$")
_STREAM_VAR = re.compile(r"^(streaming|stream_\d+)_rx_state_$")


def turn_bytes(frames: list[tuple[int, str]]) -> dict[str, float]:
    """Classify a turn's frames: streaming flushes, finished steps, the end of the turn.

    A frame is a step when it carries the timeline (a live page or the rows), a flush when it
    carries only the streamed text; the end is the frame that turns the composer idle. A
    flush that happens to travel with a step is counted as a step, so a fast turn still has
    flushes only when a reply streams longer than one flush interval (the pace is set by
    ``BATON_SIM_DELAY``).
    """
    flushes, per_token, steps, end = [], [], [], 0
    streamed: dict[str, str] = {}  # the streamed reply's vars (its pieces and the newest)
    # Everything else sent from the first step to the last (scroll calls, the meter, ...)
    # is charged to the steps too: "all in" per step.
    other, pending = 0, 0
    for size, payload in frames:
        found = _frame_vars(payload)
        if not found:
            pending += size if steps else 0
            continue
        words = len("".join(streamed[name] for name in sorted(streamed)).split())
        streamed.update(
            {name: str(value) for name, value in found.items() if _STREAM_VAR.match(name)}
        )
        if any(_LIVE_VAR.match(name) for name in found):
            steps.append(size)
            other, pending = other + pending, 0
        elif all(_STREAM_VAR.match(name) for name in found):
            flushes.append(size)
            added = len("".join(streamed[name] for name in sorted(streamed)).split()) - words
            per_token.append(size / max(added, 1))
        elif steps:
            pending += size
        if found.get("sending_rx_state_") is False:
            end = size
    quarter = max(len(steps) // 4, 1)
    return {
        "flushes": len(flushes),
        "flush_bytes": statistics.median(flushes) if flushes else 0,
        "token_bytes": statistics.median(per_token) if per_token else 0,
        "steps": len(steps),
        "step_bytes": statistics.median(steps) if steps else 0,
        "step_max": max(steps, default=0),
        "step_all_in": (sum(steps) + other) / len(steps) if steps else 0,
        "first_steps": statistics.median(steps[:quarter]) if steps else 0,
        "last_steps": statistics.median(steps[-quarter:]) if steps else 0,
        "turn_bytes": sum(size for size, _ in frames),
        "end_bytes": end,
    }


def var_bytes(frames: list[tuple[int, str]]) -> dict[str, int]:
    """Bytes per state var over ``frames`` (each var's value as sent, JSON), largest first."""
    sizes: dict[str, int] = {}
    for _, payload in frames:
        for name, value in _frame_vars(payload).items():
            sizes[name] = sizes.get(name, 0) + len(
                json.dumps(value, separators=(",", ":")).encode()
            )
    return dict(sorted(sizes.items(), key=lambda item: -item[1]))


def load_bytes(frames: list[tuple[int, str]]) -> dict[str, float]:
    """The page load's websocket frames: how many, their bytes, and the bytes of the
    timeline's rows among them (the state var ``rows``, as sent)."""
    return {
        "load_frames": len(frames),
        "load_bytes": sum(size for size, _ in frames),
        "load_rows_bytes": var_bytes(frames).get("rows_rx_state_", 0),
    }


# Where a page load's time goes, read in the page (milliseconds since the navigation
# started): the document's first byte, DOM content loaded, the websocket open (set by
# the hook below) and the first frame carrying state.
_TIMING_HOOK = """
(() => {
  window.__bench = {};
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener('open', () => { window.__bench.ws_open ??= performance.now(); });
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string' && event.data.includes('"delta"'))
        window.__bench.first_state ??= performance.now();
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();
"""

# True once the newest message row is in the viewport: returns performance.now() then.
_NEWEST_VISIBLE = """(text) => {
  const rows = document.querySelectorAll(%s);
  const last = rows[rows.length - 1];
  if (!last || !last.textContent.includes(text)) return false;
  const box = last.getBoundingClientRect();
  if (box.height === 0 || box.bottom <= 0 || box.top >= window.innerHeight) return false;
  return performance.now();
}"""


def _page_timing(page) -> dict[str, float]:
    marks = page.evaluate(
        """() => { const nav = performance.getEntriesByType('navigation')[0];
                   return {response_start: nav.responseStart,
                           dom_loaded: nav.domContentLoadedEventEnd, ...window.__bench}; }"""
    )
    return {name: value / 1000 for name, value in marks.items() if value is not None}


def _static_page(static_dir: Path) -> str:
    """A plain page of ten messages, no script, written where the server serves the
    built frontend: the browser's and the server's floor for showing a message."""
    rows = "".join(f'<div class="msg">message {n}</div>' for n in range(10))
    (static_dir / "bench-static.html").write_text(
        f"<!doctype html><html><head><title>static</title></head><body>{rows}</body></html>"
    )
    return "/bench-static.html"


def _open_static(browser, url: str, path: str) -> float:
    context = browser.new_context(base_url=url, viewport={"width": 1100, "height": 820})
    page = context.new_page()
    page.goto(path, wait_until="commit")
    seconds = page.wait_for_function(
        _NEWEST_VISIBLE % json.dumps(".msg"), arg="message 9", polling="raf"
    ).json_value()
    context.close()
    return seconds / 1000


_ACTIVITY = "document.querySelector('.baton-composer')?.getAttribute('data-activity')"


def _measure(
    browser,
    url: str,
    token: str,
    thread_id: str,
    newest: str,
    dump: Path | None = None,
    turn: bool = True,
) -> dict[str, Any]:
    context = browser.new_context(base_url=url, viewport={"width": 1100, "height": 820})
    context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": url}])
    context.add_init_script(_TIMING_HOOK)
    page = context.new_page()
    frames: list[tuple[int, str]] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda payload: frames.append(
                (
                    len(payload if isinstance(payload, bytes) else payload.encode()),
                    payload if isinstance(payload, str) else "",
                )
            ),
        ),
    )
    start = time.perf_counter()
    page.goto(f"/t/{thread_id}", wait_until="commit")
    newest_s = (
        page.wait_for_function(
            _NEWEST_VISIBLE % json.dumps("#timeline .baton-item"),
            arg=newest,
            polling="raf",
            timeout=60_000,
        ).json_value()
        / 1000
    )
    page.wait_for_function(
        "() => { const c = document.querySelector('.baton-composer');"
        " return c && c.getAttribute('data-activity') === 'idle'; }"
    )
    interactive = time.perf_counter() - start
    page.wait_for_timeout(500)
    timing = _page_timing(page)
    loaded = load_bytes(list(frames))
    by_var = var_bytes(list(frames))
    frames.clear()
    opened = {"newest_s": newest_s, "interactive_s": interactive, **timing, **loaded}
    if not turn:
        context.close()
        return {**opened, "vars": by_var}
    page.locator("#composer-input").fill("Build a CSV parser for invoices")
    page.locator("#composer-input").press("Enter")
    # The composer is still idle right after Enter: wait for the turn to start, then to end
    # (waiting for idle alone can return at once and measure nothing).
    page.wait_for_function(f"() => {_ACTIVITY} !== 'idle'", timeout=30_000)
    page.wait_for_function(f"() => {_ACTIVITY} === 'idle'", timeout=180_000)
    page.wait_for_timeout(300)
    measured = turn_bytes(list(frames))
    if dump is not None:
        dump.write_text(json.dumps([text for _, text in frames], indent=0))
    context.close()
    if not measured["steps"]:
        sample = "\n".join(text[:300] for _, text in frames[:5])
        raise SystemExit(
            f"no timeline frame seen during the turn ({len(frames)} frames):\n{sample}"
        )
    return {**opened, **measured, "vars": by_var}


_FRAME_P95 = """
async () => {
  const gaps = [];
  let last = performance.now();
  let running = true;
  const tick = (now) => { gaps.push(now - last); last = now; if (running) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  for (let i = 0; i < 40; i++) {
    window.scrollBy(0, i % 20 < 10 ? 300 : -300);
    await new Promise((r) => setTimeout(r, 25));
  }
  running = false;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length * 0.95)] || 0;
}
"""


def _jumps(browser, url: str, token: str, thread_id: str, shots: Path) -> dict[int, dict]:
    """Chip jumps on the long thread: seconds until the divider shows, rows, scroll p95."""
    results = {}
    for width in (1280, 390):
        context = browser.new_context(base_url=url, viewport={"width": width, "height": 820})
        context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": url}])
        page = context.new_page()
        page.goto(f"/t/{thread_id}")
        page.wait_for_selector("#timeline .baton-item")
        page.wait_for_timeout(800)
        page.screenshot(path=str(shots / f"long-thread-{width}.png"))
        for number in (1, 25, 49):
            start = time.perf_counter()
            page.locator(f'.baton-chip[data-session="{number}"]').click()
            page.wait_for_function(
                """(n) => { const el = document.getElementById('session-' + n);
                             if (!el) return false; const box = el.getBoundingClientRect();
                             return box.top >= 0 && box.top < window.innerHeight; }""",
                arg=number,
                timeout=60_000,
            )
            seconds = time.perf_counter() - start
            rows = page.locator("#timeline .baton-item").count()
            frame = page.evaluate(_FRAME_P95)
            if width == 1280:
                results[number] = {"jump_s": seconds, "rows": rows, "frame_p95_ms": frame}
            page.screenshot(path=str(shots / f"jump-session-{number}-{width}.png"))
        context.close()
    return results


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ui", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--runs", type=int, default=3, help="turns measured per thread (median)")
    parser.add_argument(
        "--shots",
        type=Path,
        default=None,
        help="folder for the screenshots (default: a new temporary folder)",
    )
    parser.add_argument(
        "--sim-delay",
        default="0.03",
        help="simulator seconds per streamed word; slower than the 80 ms "
        "flush interval divided by a step's words, so replies stream in "
        "several flushes (default 0.03)",
    )
    parser.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="write the long thread's last measured turn's frames to this file",
    )
    parser.add_argument("--no-jumps", action="store_true", help="skip the chip jumps")
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        help="another checkout of Baton (an earlier commit) served beside this one on a copy "
        "of the same database: the page opens are measured on both, in turn, in one run",
    )
    parser.add_argument(
        "--load-only",
        action="store_true",
        help="measure the page loads only (no turn, no chip jumps)",
    )
    return parser.parse_args()


def _median_runs(runs: list[dict]) -> dict:
    """The median of each figure over the runs; the per-var bytes of the last run."""
    figures = {
        key: statistics.median(run[key] for run in runs if key in run)
        for key in runs[0]
        if key != "vars"
    }
    return {**figures, "vars": runs[-1]["vars"]}


def main() -> None:
    args = _arguments()
    chromium = _chromium_path()
    if chromium is None:
        raise SystemExit("chromium not found (install Debian's chromium or set BATON_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    workdir = Path(tempfile.mkdtemp(prefix="baton-bench-ui-"))
    db_url = f"sqlite:///{workdir / 'baton.db'}"
    from chat_app.db.migrate import migrate

    migrate(db_url)
    token, longs, shorts, riches = _fill(db_url, args.runs)
    env = {
        "BATON_SECRET_KEY": SECRET,
        "BATON_SIM_DELAY": args.sim_delay,
        "BATON_SIM_WINDOW": "200000",
    }
    shots = args.shots or Path(tempfile.mkdtemp(prefix="baton-bench-ui-shots-"))
    shots.mkdir(parents=True, exist_ok=True)
    shapes = (
        ("10-message", shorts, "message 9"),
        ("10,000-message / 50-session", longs, "test_98.py"),
        ("rich / 49 handoffs", riches, "Step final"),
    )
    with contextlib.ExitStack() as stack:
        before = None
        if args.before is not None:
            before_dir = Path(tempfile.mkdtemp(prefix="baton-bench-ui-before-"))
            _copy_database(workdir / "baton.db", before_dir / "baton.db")
            before = stack.enter_context(running_app(before_dir, env, repo=args.before))
            _static_page(before_dir / "web" / "build" / "client")
        server = stack.enter_context(running_app(workdir, env))
        playwright = stack.enter_context(sync_playwright())
        static = _static_page(workdir / "web" / "build" / "client")
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        # Warm the server and the browser.
        _measure(browser, server.url, token, shorts.pop(), "message 9", turn=False)
        _open_static(browser, server.url, static)
        if before is not None:
            _measure(browser, before.url, token, shorts[-1], "message 9", turn=False)
        results, earlier = {}, {}
        static_runs, static_before = [], []
        for label, threads, newest in shapes:
            runs, before_runs = [], []
            for thread in threads:
                if before is not None:
                    static_before.append(_open_static(browser, before.url, static))
                    before_runs.append(
                        _measure(browser, before.url, token, thread, newest, turn=False)
                    )
                # The static page is opened beside each chat, so both see the same load.
                static_runs.append(_open_static(browser, server.url, static))
                runs.append(
                    _measure(
                        browser,
                        server.url,
                        token,
                        thread,
                        newest,
                        args.dump if thread == longs[-1] else None,
                        turn=not args.load_only and thread not in riches,
                    )
                )
            results[label] = _median_runs(runs)
            if before_runs:
                earlier[label] = _median_runs(before_runs)
        jumps = (
            {}
            if args.no_jumps or args.load_only
            else _jumps(browser, server.url, token, longs[0], shots)
        )
        browser.close()
    if earlier:
        _report_before(earlier, statistics.median(static_before), results, static_runs)
    _report(results, statistics.median(static_runs), jumps, shots, args.load_only)


def _copy_database(source: Path, target: Path) -> None:
    import sqlite3

    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def _report_before(earlier: dict, static_before: float, results: dict, static_runs) -> None:
    static_after = statistics.median(static_runs)
    print("before / after, measured in turn in this run (page opens; median of the runs)")
    print(
        "thread                       newest shown before  after   x static before  after"
        "   load bytes before    after"
    )
    for label, old in earlier.items():
        new = results[label]
        print(
            f"{label:28s} {old['newest_s']:12.3f} s {new['newest_s']:6.3f} s"
            f" {old['newest_s'] / static_before:15.2f} {new['newest_s'] / static_after:6.2f}"
            f" {old['load_bytes']:17.0f} {new['load_bytes']:8.0f}"
        )
    print(f"static page: {static_before:.3f} s beside before, {static_after:.3f} s beside after")


def _report(results: dict, static_s: float, jumps: dict, shots: Path, load_only: bool) -> None:
    short, long = results["10-message"], results["10,000-message / 50-session"]
    rich = results["rich / 49 handoffs"]
    print("opening a chat by URL (seconds since the navigation started; median of the runs)")
    print(
        "thread                       newest shown  x static  1st byte  DOM loaded  ws open"
        "  1st state  interactive"
    )
    print(f"{'static page (10 messages)':28s} {static_s:10.3f} s {1:8.2f}")
    for label, r in results.items():
        print(
            f"{label:28s} {r['newest_s']:10.3f} s {r['newest_s'] / static_s:8.2f}"
            f" {r.get('response_start', 0):9.3f} {r.get('dom_loaded', 0):10.3f}"
            f" {r.get('ws_open', 0):8.3f} {r.get('first_state', 0):10.3f} {r['interactive_s']:10.3f}"
        )
    print(
        f"10-message thread: newest message shown in {short['newest_s']:.2f} s "
        f"(goal: <= 1.0 s on a quiet machine), {short['newest_s'] / static_s:.2f}x the static page"
    )
    print("page load: websocket frames from opening the chat until it is interactive (+0.5 s)")
    print("thread                       frames     bytes  of which rows")
    for label, r in results.items():
        print(
            f"{label:28s} {r['load_frames']:6.0f} {r['load_bytes']:9.0f} {r['load_rows_bytes']:14.0f}"
        )
    for label, r in results.items():
        top = ", ".join(
            f"{name.removesuffix('_rx_state_')} {size}"
            for name, size in list(r["vars"].items())[:6]
        )
        print(f"  largest vars, {label}: {top}")
    print(
        f"long/short page load {long['load_bytes'] / max(short['load_bytes'], 1):.2f}x; "
        f"long thread {long['load_bytes'] / 1000:.1f} kB, rich thread "
        f"{rich['load_bytes'] / 1000:.1f} kB (goal: <= 60 kB)"
    )
    if load_only:
        print(json.dumps({"load": results, "static_s": static_s}))
        return
    results = {label: r for label, r in results.items() if "steps" in r}
    print(
        "thread                       newest shown  B/flush  B/token  flushes  steps"
        "  B/step (median, first 1/4, last 1/4, max, all in)  end of turn  whole turn"
    )
    for label, r in results.items():
        print(
            f"{label:28s} {r['newest_s']:10.2f} s {r['flush_bytes']:8.0f} {r['token_bytes']:8.0f}"
            f" {r['flushes']:8.0f} {r['steps']:6.0f}  {r['step_bytes']:8.0f} {r['first_steps']:8.0f}"
            f" {r['last_steps']:8.0f} {r['step_max']:8.0f} {r['step_all_in']:8.0f}     {r['end_bytes']:10.0f} {r['turn_bytes']:11.0f}"
        )
    print(
        f"long/short: newest shown {long['newest_s'] / short['newest_s']:.2f}x, "
        f"bytes per step {long['step_bytes'] / max(short['step_bytes'], 1):.2f}x, "
        f"per flush {long['flush_bytes'] / max(short['flush_bytes'], 1):.2f}x; last/first quarter "
        f"of the turn's steps {long['last_steps'] / max(long['first_steps'], 1):.2f}x (goal: <= 2 KB a step)"
    )
    if jumps:
        print(
            "jump to session   seconds   rows in page   scroll frame p95 (goals 0.5 s, 400, 20 ms)"
        )
        for number, r in jumps.items():
            print(f"{number:15d} {r['jump_s']:9.2f} {r['rows']:14d} {r['frame_p95_ms']:12.1f} ms")
        print(f"screenshots (1280 and 390 px): {shots}")
    print(json.dumps({"load": results, "static_s": static_s, "jumps": jumps}))


if __name__ == "__main__":
    main()
