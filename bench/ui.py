"""The chat page on a long thread, in headless chromium, measured side by side in one run.

1. Time until a 10,000-message, 50-session thread is interactive (timeline rendered and the
   composer usable) vs a 10-message thread. Goal: <= 1.5 s. And the page-load payload: the
   bytes of the websocket frames the browser receives from opening the chat until it is
   interactive (and half a second more), in all and for the timeline's rows. Goal: <= 60 KB
   on the long thread.
2. Bytes the server sends while a turn of the simulator runs (about 25 model steps, 40 to
   60 finished rows), on the long thread vs the short one, read from the websocket: per
   streaming flush and per streamed word, per finished step (a frame that changes the
   timeline; median, first and last quarter of the turn, largest), at the end of the turn
   and for the whole turn. Goal: a step <= 2 KB, the same on both threads and at the start
   and end of the turn.

3. On the long thread: time from a chip click until its session's divider is on screen, the
   rows in the page afterwards and the p95 frame time while scrolling, for sessions 1, 25
   and 49 (goals: <= 0.5 s, <= 400 rows, <= 20 ms), and screenshots at 1280 and 390 px.

Needs Debian chromium. Run: ``.venv/bin/python -m bench.ui`` (``--help`` for options)
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from pathlib import Path

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


def _fill(db_url: str, runs: int) -> tuple[str, list[str], list[str]]:
    """(owner cookie token, long thread ids, short thread ids) written straight to the store:
    one pair per measured turn (the simulator plans its whole task only in a thread's first
    turn; later turns are short follow-ups), and one short thread more to warm up."""
    import os

    os.environ["BATON_SECRET_KEY"] = SECRET
    from chat_app.services.runtime.container import build_app
    from chat_app.settings import Settings

    token = identity.mint_token()
    owner = identity.owner_from_token(token)
    app = build_app(Settings(db_url=db_url))
    longs = [_long_thread(app, owner) for _ in range(runs)]
    shorts = [_short_thread(app, owner) for _ in range(runs + 1)]
    return token, longs, shorts


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


def load_bytes(frames: list[tuple[int, str]]) -> dict[str, float]:
    """The page load's websocket frames: how many, their bytes, and the bytes of the
    timeline's rows among them (the state var ``rows``, as sent)."""
    rows = 0
    for _, payload in frames:
        value = _frame_vars(payload).get("rows_rx_state_")
        if value is not None:
            rows += len(json.dumps(value, separators=(",", ":")).encode())
    return {
        "load_frames": len(frames),
        "load_bytes": sum(size for size, _ in frames),
        "load_rows_bytes": rows,
    }


_ACTIVITY = "document.querySelector('.baton-composer')?.getAttribute('data-activity')"


def _measure(
    browser, url: str, token: str, thread_id: str, dump: Path | None = None, turn: bool = True
) -> dict[str, float]:
    context = browser.new_context(base_url=url, viewport={"width": 1100, "height": 820})
    context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": url}])
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
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#timeline .baton-item")
    page.wait_for_function(
        "() => { const c = document.querySelector('.baton-composer');"
        " return c && c.getAttribute('data-activity') === 'idle'; }"
    )
    interactive = time.perf_counter() - start
    page.wait_for_timeout(500)
    loaded = load_bytes(list(frames))
    frames.clear()
    if not turn:
        context.close()
        return {"interactive_s": interactive, **loaded}
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
    return {"interactive_s": interactive, **loaded, **measured}


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
        "--load-only",
        action="store_true",
        help="measure the page loads only (no turn, no chip jumps)",
    )
    return parser.parse_args()


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
    token, longs, shorts = _fill(db_url, args.runs)
    env = {
        "BATON_SECRET_KEY": SECRET,
        "BATON_SIM_DELAY": args.sim_delay,
        "BATON_SIM_WINDOW": "200000",
    }
    shots = args.shots or Path(tempfile.mkdtemp(prefix="baton-bench-ui-shots-"))
    shots.mkdir(parents=True, exist_ok=True)
    with running_app(workdir, env) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        _measure(browser, server.url, token, shorts.pop())  # warm the server and the browser
        results = {}
        for label, threads in (("10-message", shorts), ("10,000-message / 50-session", longs)):
            runs = [
                _measure(
                    browser,
                    server.url,
                    token,
                    thread,
                    args.dump if thread == longs[-1] else None,
                    turn=not args.load_only,
                )
                for thread in threads
            ]
            results[label] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        jumps = (
            {}
            if args.no_jumps or args.load_only
            else _jumps(browser, server.url, token, longs[0], shots)
        )
        browser.close()
    short, long = results["10-message"], results["10,000-message / 50-session"]
    print("page load: websocket frames from opening the chat until it is interactive (+0.5 s)")
    print("thread                       frames     bytes  of which rows")
    for label, r in results.items():
        print(
            f"{label:28s} {r['load_frames']:6.0f} {r['load_bytes']:9.0f} {r['load_rows_bytes']:14.0f}"
        )
    print(
        f"long/short page load {long['load_bytes'] / max(short['load_bytes'], 1):.2f}x; "
        f"long thread {long['load_bytes'] / 1000:.1f} kB (goal: <= 60 kB)"
    )
    if args.load_only:
        print(json.dumps({"load": results}))
        return
    print(
        "thread                       newest shown  B/flush  B/token  flushes  steps"
        "  B/step (median, first 1/4, last 1/4, max, all in)  end of turn  whole turn"
    )
    for label, r in results.items():
        print(
            f"{label:28s} {r['interactive_s']:10.2f} s {r['flush_bytes']:8.0f} {r['token_bytes']:8.0f}"
            f" {r['flushes']:8.0f} {r['steps']:6.0f}  {r['step_bytes']:8.0f} {r['first_steps']:8.0f}"
            f" {r['last_steps']:8.0f} {r['step_max']:8.0f} {r['step_all_in']:8.0f}     {r['end_bytes']:10.0f} {r['turn_bytes']:11.0f}"
        )
    print(
        f"long/short: newest shown {long['interactive_s'] / short['interactive_s']:.2f}x, "
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
    print(json.dumps({"load": results, "jumps": jumps}))


if __name__ == "__main__":
    main()
