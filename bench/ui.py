"""The chat page on a long thread, in headless chromium, measured side by side in one run.

1. Time until a 10,000-message, 50-session thread is interactive (timeline rendered and the
   composer usable) vs a 10-message thread. Goal: <= 1.5 s.
2. Bytes the server sends per streaming flush while a reply streams, on the long thread vs
   the short one (goal: the same order, <= 2 KB), against mutating the message list naively:
   what each flush would cost if the streamed text lived in the rows list, i.e. the size of
   a frame that carries the rows list (measured when a finished item is appended).

3. On the long thread: time from a chip click until its session's divider is on screen, the
   rows in the page afterwards and the p95 frame time while scrolling, for sessions 1, 25
   and 49 (goals: <= 0.5 s, <= 400 rows, <= 20 ms), and screenshots at 1280 and 390 px.

Needs Debian chromium. Run: ``.venv/bin/python -m bench.ui``
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from agent_core.records import NewMessage
from bench._shared import REPO_ROOT  # noqa: F401  (puts the repo on sys.path)
from chat_app.services import identity
from tests.browser.app_server import running_app
from tests.browser.conftest import CHROMIUM_ARGS, _chromium_path

SECRET = "bench-ui-signing-key"
SESSIONS, PER_SESSION = 50, 200


def _fill(db_url: str) -> tuple[str, str, str]:
    """(owner cookie token, long thread id, short thread id) written straight to the store."""
    import os

    os.environ["REFLEX_DB_URL"] = db_url
    os.environ["BATON_SECRET_KEY"] = SECRET
    from chat_app.services import runtime
    from chat_app.services import threads as thread_service

    token = identity.mint_token()
    owner = identity.owner_from_token(token)
    store = runtime.store()
    long_id = thread_service.create_thread(owner, "Long run").id
    for number in range(SESSIONS):
        session = store.current_session(long_id)
        rows = [NewMessage(role="user", content=f"Session {number + 1}: continue the work")]
        for n in range((PER_SESSION - 1) // 2):
            call = {"name": "run_command", "args": {"command": f"pytest -q tests/test_{n}.py"}, "id": f"c{number}-{n}"}
            rows.append(NewMessage(role="assistant", content=f"Step {n}: running the tests", tool_calls=[call]))
            rows.append(NewMessage(role="tool", tool_call_id=call["id"], name="run_command",
                                   content=f"{n} passed in 0.{n % 9}s\n[exit status 0]"))
        store.append(long_id, session.id, rows[:PER_SESSION])
        if number < SESSIONS - 1:
            handoff = {"session_number": number + 1, "trigger": "auto", "utilization": 0.82,
                       "model": "simulator", "created_at": "2026-01-01T00:00:00Z",
                       "completed_work": [f"Finished part {number + 1}"], "in_progress": ["Next part"],
                       "remaining_tasks": ["More parts"], "key_decisions": ["Keep going"],
                       "files_modified": [], "current_state_summary": f"Part {number + 1} done.",
                       "open_todos": [], "pinned_files": [], "previous_handoff": None, "focus": None}
            store.commit_reset(long_id, old_session_id=session.id, trigger="auto", utilization=0.82,
                               model="simulator", handoff=handoff,
                               handoff_path=f"HANDOFF-{number + 1}.md", handoff_markdown="-",
                               context=[NewMessage(role="handoff", content="<handoff-context>…")])
    short_id = thread_service.create_thread(owner, "Short").id
    session = store.current_session(short_id)
    store.append(short_id, session.id, [NewMessage(role="user" if n % 2 == 0 else "assistant",
                                                   content=f"message {n}") for n in range(10)])
    return token, long_id, short_id


def _measure(browser, url: str, token: str, thread_id: str) -> dict[str, float]:
    context = browser.new_context(base_url=url, viewport={"width": 1100, "height": 820})
    context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": url}])
    page = context.new_page()
    frames: list[tuple[float, int, str]] = []
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda payload: frames.append(
            (time.perf_counter(), len(payload if isinstance(payload, bytes) else payload.encode()),
             payload if isinstance(payload, str) else ""))))
    start = time.perf_counter()
    page.goto(f"/t/{thread_id}")
    page.wait_for_selector("#timeline .baton-item")
    page.wait_for_function("() => { const c = document.querySelector('.baton-composer');"
                           " return c && c.getAttribute('data-activity') === 'idle'; }")
    interactive = time.perf_counter() - start
    page.wait_for_timeout(500)
    frames.clear()
    page.locator("#composer-input").fill("Build a CSV parser for invoices")
    page.locator("#composer-input").press("Enter")
    page.wait_for_function("() => document.querySelector('.baton-composer')?.getAttribute('data-activity') === 'idle'",
                           timeout=180_000)
    flushes = [size for _, size, text in frames
               if '"streaming_rx_state_"' in text and 'rows_rx_state_"' not in text]
    # A finished item goes into this run's rows only; the window is sent once when the run
    # settles. A naive stream that kept everything in one list mutated per flush would send
    # a frame the size of that settled window on every flush.
    appends = [size for _, size, text in frames if '"live_rows_rx_state_"' in text]
    settled = [size for _, size, text in frames if '"rows_rx_state_"' in text]
    rows_frame = max(settled) if settled else 0
    context.close()
    return {"interactive_s": interactive, "flush_bytes": statistics.median(flushes) if flushes else 0,
            "flushes": len(flushes), "naive_bytes": rows_frame,
            "append_bytes": statistics.median(appends) if appends else 0}


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
                arg=number, timeout=60_000)
            seconds = time.perf_counter() - start
            rows = page.locator("#timeline .baton-item").count()
            frame = page.evaluate(_FRAME_P95)
            if width == 1280:
                results[number] = {"jump_s": seconds, "rows": rows, "frame_p95_ms": frame}
            page.screenshot(path=str(shots / f"jump-session-{number}-{width}.png"))
        context.close()
    return results


def main() -> None:
    chromium = _chromium_path()
    if chromium is None:
        raise SystemExit("chromium not found (install Debian's chromium or set BATON_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    workdir = Path(tempfile.mkdtemp(prefix="baton-bench-ui-"))
    db_url = f"sqlite:///{workdir / 'baton.db'}"
    from chat_app.db.migrate import migrate

    migrate(db_url)
    token, long_id, short_id = _fill(db_url)
    env = {"BATON_SECRET_KEY": SECRET, "BATON_SIM_DELAY": "0.01", "BATON_SIM_WINDOW": "200000"}
    with running_app(workdir, env) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        _measure(browser, server.url, token, short_id)  # warm the server and the browser
        results = {}
        for label, thread in (("10-message", short_id), ("10,000-message / 50-session", long_id)):
            runs = [_measure(browser, server.url, token, thread) for _ in range(3)]
            results[label] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        shots = Path(tempfile.mkdtemp(prefix="baton-bench-ui-shots-"))
        jumps = _jumps(browser, server.url, token, long_id, shots)
        browser.close()
    short, long = results["10-message"], results["10,000-message / 50-session"]
    print("thread                         interactive   bytes/flush  flushes  naive bytes/flush"
          "  bytes/finished item")
    for label, r in results.items():
        print(f"{label:30s} {r['interactive_s']:9.2f} s {r['flush_bytes']:11.0f} {r['flushes']:8.0f}"
              f" {r['naive_bytes']:18.0f} {r['append_bytes']:20.0f}")
    print(f"long/short interactive ratio {long['interactive_s'] / short['interactive_s']:.2f}x; "
          f"bytes per flush long/short {long['flush_bytes'] / max(short['flush_bytes'], 1):.2f}x; "
          f"naive/flush on the long thread {long['naive_bytes'] / max(long['flush_bytes'], 1):.0f}x")
    print("jump to session   seconds   rows in page   scroll frame p95 (goals 0.5 s, 400, 20 ms)")
    for number, r in jumps.items():
        print(f"{number:15d} {r['jump_s']:9.2f} {r['rows']:14d} {r['frame_p95_ms']:12.1f} ms")
    print(f"screenshots (1280 and 390 px): {shots}")
    print(json.dumps({"load": results, "jumps": jumps}))


if __name__ == "__main__":
    main()
