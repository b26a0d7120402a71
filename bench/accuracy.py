"""How close each token estimate comes to the input tokens providers reported.

Run: ``.venv/bin/python -m bench.accuracy``. Sources with provider-reported usage in
``shared/eval``:

- aider chat history: ``> Tokens: N sent`` per request (Claude 3.5 Sonnet, GPT-4o, …). aider's
  prompt also holds its system prompt, repo map and file contents, which the history does not
  show, so methods that only see the visible messages are far off.
- SWE-agent trajectories: ``model_stats.tokens_sent`` is a total over all calls; compared with
  the sum over calls of each method's estimate of that call's prompt (history up to the call).

"Calibrated" is an honest one-step-ahead prediction: ``ContextEstimator`` has observed the
previous calls of the same aider session (prompts and reported figures) and predicts the next
call before seeing its figure. The first call of a session has nothing to anchor on and is
not scored for it (the coverage column says how many calls were). A call's prompt is what aider
sent: the history since the session start or the last ``/clear``, without the ``/commands``,
with aider's reflections (edit errors, lint output it sent back); its chat mode stands in for
the system prompt, whose text the log does not hold.

Rows: "same chat mode" leaves out the first call after a chat-mode switch (``/ask``, ``/chat``),
where aider's new system prompt is unknown to the estimator (Baton always passes its system
prompt, so Baton never has this case). "history-only" keeps calls where nothing outside the
visible history changed since the previous call (no applied edit, commit, added file or
prompt-changing /command): there the prompt's growth is exactly what the log shows, which is
Baton's situation, where every message is known. The second table splits the calibrated
errors by what changed.
