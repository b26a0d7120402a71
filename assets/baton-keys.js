// Keyboard shortcuts. The list comes from the page (#baton-shortcuts, written from
// chat_app/components/shortcut_keys.py): each entry clicks or focuses an element, so a key
// does what the mouse does. `mod` is Ctrl, or Cmd on a Mac. A single character ("?", "/")
// is left alone while the focus is in a text field: there it is text.
(() => {
  const MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
  const typing = (el) =>
    el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  const bindings = () => {
    const holder = document.getElementById("baton-shortcuts");
    try {
      return holder ? JSON.parse(holder.dataset.bindings || "[]") : [];
    } catch (error) {
      return [];
    }
  };
  const matches = (combo, event) => {
    if (combo.length === 1) {
      return event.key === combo && !event.ctrlKey && !event.metaKey && !event.altKey;
    }
    const parts = combo.split("+");
    const key = parts[parts.length - 1];
    const mod = parts.includes("mod");
    if (mod !== (MAC ? event.metaKey : event.ctrlKey)) return false;
    if (!mod && (event.ctrlKey || event.metaKey)) return false;
    if (parts.includes("shift") !== event.shiftKey) return false;
    if (parts.includes("alt") !== event.altKey) return false;
    return (event.key || "").toLowerCase() === key;
  };
  const field = (el) =>
    el.matches("input, textarea, select") ? el : el.querySelector("input, textarea, select") || el;

  window.batonKeys = {
    run(entry) {
      const target = document.querySelector(entry.target);
      if (!target) return false;
      if (entry.action === "focus") {
        if (window.batonLayout && target.closest(".baton-sidebar")) window.batonLayout.open();
        // After the sidebar is shown: a hidden element cannot take the focus.
        requestAnimationFrame(() => field(target).focus({ preventScroll: true }));
      } else {
        target.click();
      }
      return true;
    },
  };

  window.addEventListener(
    "keydown",
    (event) => {
      if (event.defaultPrevented || event.isComposing || event.repeat) return;
      const inField = typing(document.activeElement);
      for (const entry of bindings()) {
        const combo = entry.keys.find((k) => matches(k, event));
        if (!combo) continue;
        if (combo.length === 1 && inField) return;
        // A dialog keeps the keyboard to itself; only its own keys (Esc, Tab) apply.
        if (document.querySelector("[role=dialog], [role=alertdialog]")) return;
        if (window.batonKeys.run(entry)) {
          event.preventDefault();
          event.stopPropagation();
        }
        return;
      }
    },
    true,
  );
})();
