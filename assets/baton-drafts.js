// Unsent text in the composer is kept per page: each chat's, and the new chat's draft.
//
// What is typed but not sent stays when the user opens another chat, goes back, reloads or
// closes the tab (localStorage, under "baton-draft:<chat id>" or "baton-draft:new"), and
// comes back into that page's composer when it opens again. A message sent is the outbox's
// (/baton-outbox.js): its text is not kept here as well. What the user types into the new
// chat's draft after its first message went out belongs to the chat that message starts,
// which the browser opens a moment later with a composer of its own: it is carried there.
(() => {
  const PREFIX = "baton-draft:";
  const NEW = "new";
  const MAX_AGE_MS = 30 * 24 * 3600 * 1000;
  const HYDRATE_MS = 5000;

  // The page's key: a chat's id, the draft's NEW, or null where there is no composer.
  const keyOf = (path) => {
    const chat = path.match(/^\/t\/([^/]+)/);
    if (chat) return chat[1];
    return path === "/" ? NEW : null;
  };
  const read = (key) => {
    try {
      const entry = JSON.parse(window.localStorage.getItem(PREFIX + key) || "null");
      return entry && entry.at > Date.now() - MAX_AGE_MS ? String(entry.text || "") : "";
    } catch (error) {
      return "";
    }
  };
  const write = (key, text) => {
    try {
      if (text.trim()) {
        window.localStorage.setItem(PREFIX + key, JSON.stringify({ text, at: Date.now() }));
      } else {
        window.localStorage.removeItem(PREFIX + key);
      }
    } catch (error) {
      // Storage full or disabled: the text stays in the box, it just is not kept.
    }
  };
  // A text the outbox holds is on its way (or will be sent again): not a draft.
  const onItsWay = (text) => {
    try {
      const items = JSON.parse(window.localStorage.getItem("baton-outbox") || "[]");
      return Array.isArray(items) && items.some((e) => e && e.text === text);
    } catch (error) {
      return false;
    }
  };
  const composer = () => document.getElementById("composer-input");
  const hydrated = (box) => Object.keys(box).some((name) => name.startsWith("__reactProps"));
  const setComposer = (box, text) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    setter.call(box, text);
    box.dispatchEvent(new Event("input", { bubbles: true }));
  };

  // The box's text, kept for the page the box belongs to.
  const keep = (box) => {
    const key = box.dataset.draftFor;
    if (key === undefined) return;
    const text = box.value;
    write(key, text && !onItsWay(text) ? text : "");
  };

  // The box now serves the page at ``key``: once React drives it, it shows that page's
  // draft, unless something else (the user, the server restoring a refused text) wrote
  // into it meanwhile.
  const adopt = (box, key) => {
    box.dataset.draftFor = key;
    const found = box.value;
    const started = Date.now();
    const fill = () => {
      if (box.dataset.draftFor !== key || !box.isConnected) return;
      if (!hydrated(box)) {
        if (Date.now() - started < HYDRATE_MS) window.requestAnimationFrame(fill);
        return;
      }
      const text = read(key);
      if (box.value === found && box.value !== text) setComposer(box, text);
    };
    fill();
  };

  let here = keyOf(window.location.pathname);
  // The draft's first message went out (when): what is typed next belongs to its chat. A
  // refusal, or a chat that does not open within the minute, ends it.
  let carry = 0;
  const CARRY_MS = 60000;
  // The chat the draft's first message started, once the address is that chat's: until the
  // chat's page renders, the draft's composer still shows, and what is typed into it is
  // that chat's (Enter there sends it into the chat: the server knows the draft's visit).
  let startedHere = null;
  // Whether the box is the composer of the page at ``here``: the draft's form for the new
  // chat, the form of that chat's loaded page for a chat (or the draft's form, for the chat
  // it has just started). Right after the address changes, the page before still shows its
  // composer until React renders the new page (seconds on a slow machine); given the new
  // page's draft then, Enter sent it with the page before's form, into the chat before.
  const servesHere = (box) => {
    const form = box.form;
    if (!form) return false;
    if (form.dataset.draft === "true") return here === NEW || here === startedHere;
    return here !== NEW && form.dataset.thread === here;
  };
  const sync = () => {
    const box = composer();
    if (box && here !== null && box.dataset.draftFor !== here && servesHere(box)) {
      adopt(box, here);
    }
  };
  const moved = () => {
    const before = here;
    here = keyOf(window.location.pathname);
    if (here === before) return;
    const box = composer();
    if (box && box.dataset.draftFor === before) keep(box);
    startedHere = null;
    if (Date.now() - carry < CARRY_MS && before === NEW && here !== null && here !== NEW) {
      write(here, read(NEW) || read(here));
      write(NEW, "");
      startedHere = here;
    }
    carry = 0;
    sync();
  };
  for (const name of ["pushState", "replaceState"]) {
    const original = window.history[name];
    window.history[name] = function (...args) {
      const result = original.apply(this, args);
      moved();
      return result;
    };
  }
  window.addEventListener("popstate", moved);
  window.addEventListener("pagehide", () => {
    const box = composer();
    if (box) keep(box);
  });
  window.addEventListener(
    "input",
    (event) => {
      if (event.target && event.target.id === "composer-input") keep(event.target);
    },
    true,
  );
  window.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      const box = form && form.querySelector && form.querySelector("#composer-input");
      if (!box || !box.value.trim()) return;
      if (box.dataset.draftFor !== undefined) write(box.dataset.draftFor, "");
      if (form.dataset.draft === "true") carry = Date.now();
    },
    true,
  );
  const outbox = window.batonOutbox;
  if (outbox) {
    const refused = outbox.refused;
    outbox.refused = (id) => {
      carry = 0;
      return refused.call(outbox, id);
    };
  }
  new MutationObserver(sync).observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["data-thread", "data-draft"],
  });
})();
