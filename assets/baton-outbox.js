// The composer's outbox: nothing typed is lost between Enter and the server storing it.
//
// On submit the message gets an id made here and a copy in localStorage; the text stays in
// the composer. The server answers "accepted" once it stored the message (at most once per
// id, however often it is sent): then the copy is dropped and the composer emptied. A copy
// left behind (the backend died, the socket dropped, the tab closed) is sent again with the
// same id when the chat opens again. A second Enter on a message still on its way is ignored.
(() => {
  const KEY = "baton-outbox";
  const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

  const load = () => {
    try {
      const items = JSON.parse(window.localStorage.getItem(KEY) || "[]");
      const fresh = Date.now() - MAX_AGE_MS;
      return Array.isArray(items) ? items.filter((e) => e && e.id && e.at > fresh) : [];
    } catch (error) {
      return [];
    }
  };
  const save = (items) => {
    try {
      window.localStorage.setItem(KEY, JSON.stringify(items));
    } catch (error) {
      // Storage full or disabled: the message still goes out, it just cannot be re-sent.
    }
  };
  const threadId = () => (window.location.pathname.match(/^\/t\/([^/]+)/) || [])[1] || "";
  const nonce = () =>
    window.crypto && window.crypto.randomUUID
      ? window.crypto.randomUUID()
      : Date.now().toString(16) + Math.random().toString(16).slice(2);
  // Ids read "<tab>.<n>.<nonce>": the server queues this page's messages in the order of n
  // however they arrive (agent_core/client_order.py); the nonce keeps ids unique even
  // where two pages share a tab part.
  const TAB = nonce().replace(/[^A-Za-z0-9]/g, "").slice(0, 12);
  let sent = 0;
  const newId = () => `${TAB}.${++sent}.${nonce()}`;
  // A visit of a new chat's draft: a new one each time the tab comes to a page that is not a
  // chat (a link, the back button). Leaving for the new chat does not end it: a message typed
  // into the draft while the chat opens still belongs to it. The page's hidden input cannot
  // hold it: the draft may render its composer again within one visit (its first-visit
  // welcome), which empties the input.
  let visit = 0;
  const arrived = (before) => {
    if (window.location.pathname !== before && !threadId()) visit += 1;
  };
  for (const name of ["pushState", "replaceState"]) {
    const original = window.history[name];
    window.history[name] = function (...args) {
      const before = window.location.pathname;
      const result = original.apply(this, args);
      arrived(before);
      return result;
    };
  }
  window.addEventListener("popstate", () => arrived(null));
  let draft = { visit: -1, id: "" };
  const draftId = () => {
    if (draft.visit !== visit) draft = { visit, id: `${TAB}.${nonce()}` };
    return draft.id;
  };
  const composer = () => document.getElementById("composer-input");
  const setComposer = (box, text) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    setter.call(box, text);
    box.dispatchEvent(new Event("input", { bubbles: true }));
  };

  window.batonOutbox = {
    // The server stored it: forget the copy; empty the composer if it still shows that text.
    accepted(id) {
      const sent = load().find((e) => e.id === id);
      save(load().filter((e) => e.id !== id));
      const box = composer();
      if (box && box.dataset.sending === id) {
        delete box.dataset.sending;
        if (sent && box.value === sent.text) setComposer(box, "");
      }
    },
    // The server refused it (the reason is in a toast): forget the copy, keep the text.
    refused(id) {
      save(load().filter((e) => e.id !== id));
      const box = composer();
      if (box && box.dataset.sending === id) delete box.dataset.sending;
    },
    // Copies of this chat's messages that no acknowledgement has cleared, oldest first;
    // not those sent in the last seconds, whose own send is still being answered.
    unsent(thread) {
      const settled = Date.now() - 3000;
      return load()
        .filter((e) => e.thread === thread && e.at < settled)
        .sort((a, b) => a.at - b.at);
    },
  };

  // A send that got no acknowledgement in time was lost in flight (the backend died as it
  // arrived, the socket dropped): ask the server to take this chat's copies again. Reflex
  // queues the click until the socket is back; the ids make a repeat harmless.
  const RETRY_AFTER_MS = 8000;
  window.setInterval(() => {
    const button = document.getElementById("outbox-retry");
    const thread = threadId();
    // On a new chat's draft (no thread yet) the draft's own button starts the chat.
    if (!button) return;
    const now = Date.now();
    const items = load();
    const overdue = items.filter(
      (e) => e.thread === thread && e.at < now - RETRY_AFTER_MS
        && (e.retriedAt || 0) < now - RETRY_AFTER_MS,
    );
    if (!overdue.length) return;
    overdue.forEach((e) => { e.retriedAt = now; });
    save(items);
    button.click();
  }, 2000);

  window.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      const box = form && form.querySelector && form.querySelector("#composer-input");
      if (!box || !form.elements.client_id) return;
      const text = box.value;
      if (!text.trim()) return;
      const thread = threadId();
      const items = load();
      if (items.some((e) => e.thread === thread && e.text === text)) {
        // Already on its way (a second Enter): sending it again would only duplicate it.
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
      const visitId = form.dataset.draft === "true" ? draftId() : "";
      if (form.elements.draft) form.elements.draft.value = visitId;
      const entry = { id: newId(), thread, text, at: Date.now(), draft: visitId };
      items.push(entry);
      save(items);
      form.elements.client_id.value = entry.id;
      box.dataset.sending = entry.id;
    },
    true,
  );
})();
