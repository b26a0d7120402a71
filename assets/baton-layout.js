// The chat list beside the conversation: a sidebar that folds away on a wide screen (the
// choice is kept), a drawer over the page on a phone. Only classes on <html> change, so no
// server round trip is needed and React never fights over them. Also keeps relative times
// ("5 min ago") fresh and the composer focused where a chat opens.
(() => {
  const KEY = "baton-sidebar";
  const root = document.documentElement;
  const phone = () => window.matchMedia("(max-width: 768px)").matches;
  const toggle = () => document.getElementById("sidebar-toggle");
  const sync = () => {
    const open = phone() ? root.classList.contains("baton-drawer-open")
      : !root.classList.contains("baton-sidebar-collapsed");
    const button = toggle();
    const value = open ? "true" : "false";
    if (button && button.getAttribute("aria-expanded") !== value) {
      button.setAttribute("aria-expanded", value);
    }
  };
  try {
    if (window.localStorage.getItem(KEY) === "collapsed") root.classList.add("baton-sidebar-collapsed");
  } catch (error) {
    // Storage disabled: the sidebar starts open.
  }

  const layout = {
    open() {
      if (phone()) root.classList.add("baton-drawer-open");
      else layout.setCollapsed(false);
      sync();
    },
    close() {
      root.classList.remove("baton-drawer-open");
      sync();
    },
    setCollapsed(collapsed) {
      root.classList.toggle("baton-sidebar-collapsed", collapsed);
      try {
        window.localStorage.setItem(KEY, collapsed ? "collapsed" : "open");
      } catch (error) {
        // Not kept; it still applies to this page.
      }
    },
    toggle() {
      if (phone()) {
        root.classList.toggle("baton-drawer-open");
        if (root.classList.contains("baton-drawer-open")) {
          const first = document.querySelector(".baton-sidebar button, .baton-sidebar a");
          if (first) requestAnimationFrame(() => first.focus());
        }
      } else {
        layout.setCollapsed(!root.classList.contains("baton-sidebar-collapsed"));
      }
      sync();
    },
    // Example tasks of a first visit: into the composer, ready to send or edit.
    fill(text) {
      const box = document.getElementById("composer-input");
      if (!box) return;
      const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
      setter.call(box, text);
      box.dispatchEvent(new Event("input", { bubbles: true }));
      box.focus();
    },
    // Where a chat opens, the message box has the focus; not on a touch screen, where the
    // keyboard would cover the chat before the user asked for it.
    focusComposer() {
      if (!window.matchMedia("(pointer: fine)").matches) return;
      let tries = 0;
      const go = () => {
        const box = document.getElementById("composer-input");
        if (box) box.focus({ preventScroll: true });  // always in view: it is docked
        else if (tries++ < 40) setTimeout(go, 50);
      };
      go();
    },
  };
  window.batonLayout = layout;

  // Opening a chat from the drawer closes it; so do Escape and a tap beside it.
  document.addEventListener("click", (event) => {
    const target = event.target;
    if (!(target instanceof Element)) return;
    if (target.closest(".baton-overlay, .baton-drawer-close")) layout.close();
    else if (phone() && target.closest(".baton-sidebar a[href], #new-chat")) layout.close();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && root.classList.contains("baton-drawer-open")
        && !document.querySelector("[role=dialog], [role=alertdialog]")) {
      layout.close();
      const button = toggle();
      if (button) button.focus();
    }
  });
  window.addEventListener("resize", sync);

  // Back in view (another tab, window or device may have made, renamed or deleted chats
  // meanwhile): read the chat list again, at most every two seconds.
  let listReadAt = Date.now();
  const rereadList = () => {
    if (document.visibilityState !== "visible" || Date.now() - listReadAt < 2000) return;
    const button = document.getElementById("thread-list-refresh");
    if (!button) return;
    listReadAt = Date.now();
    button.click();
  };
  document.addEventListener("visibilitychange", rereadList);
  window.addEventListener("focus", rereadList);

  // "just now", "3 min ago", "2 h ago", "4 days ago": the words the server writes.
  const relative = (iso) => {
    const seconds = (Date.now() - Date.parse(iso)) / 1000;
    if (!Number.isFinite(seconds)) return null;
    if (seconds < 60) return "just now";
    if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
    if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
    const days = Math.floor(seconds / 86400);
    return `${days} day${days === 1 ? "" : "s"} ago`;
  };
  const PHRASE = /just now|\d+ min ago|\d+ h ago|\d+ days? ago/;
  const refresh = () => {
    document.querySelectorAll("time.baton-reltime[datetime]").forEach((el) => {
      const text = relative(el.getAttribute("datetime"));
      if (text && el.textContent !== text) el.textContent = text;
    });
    // A session divider's header holds its time among other words: only that phrase
    // changes, in the text node React rendered (so React's later updates still land).
    document.querySelectorAll("[data-created]").forEach((el) => {
      const text = relative(el.dataset.created);
      if (!text) return;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (PHRASE.test(node.nodeValue)) node.nodeValue = node.nodeValue.replace(PHRASE, text);
      }
    });
    sync();
  };
  layout.refreshTimes = refresh;
  window.setInterval(refresh, 30000);
  // A page (or a chat) rendered anew brings a new toggle button: give it its state.
  new MutationObserver(sync).observe(root, { childList: true, subtree: true });
})();

// A jump scrolls a row to just under the sticky header, whatever its height (the header
// grows with a fork's origin line, a wrapped title or the chip bar): its measured height is
// the rows' scroll margin, kept in --baton-header-h.
(() => {
  const root = document.documentElement;
  let watched = null;
  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const height = Math.ceil(entry.target.getBoundingClientRect().height);
      root.style.setProperty("--baton-header-h", `${height}px`);
    }
  });
  const watch = () => {
    const header = document.querySelector(".baton-sticky-header");
    if (header === watched) return;
    if (watched) observer.unobserve(watched);
    watched = header;
    if (header) observer.observe(header);
  };
  new MutationObserver(watch).observe(document.documentElement, {childList: true, subtree: true});
  watch();
})();

// The user's settings (#baton-settings, from the server on every page): density and Enter
// as attributes of the page, the theme by pressing the hidden button that sets it.
(() => {
  const root = document.documentElement;
  let shownTheme = null;
  const apply = () => {
    const settings = document.getElementById("baton-settings");
    if (!settings) return;
    // Set only when changed: a write, even of the same value, is a mutation this observes.
    const density = settings.dataset.density || "comfortable";
    const enter = settings.dataset.enterSends || "on";
    if (root.dataset.density !== density) root.dataset.density = density;
    if (root.dataset.enterSends !== enter) root.dataset.enterSends = enter;
    const theme = settings.dataset.theme || "system";
    // "system" at first is no choice: the browser's own (the sidebar's toggle) stays.
    if (shownTheme === null && theme === "system") shownTheme = theme;
    if (theme !== shownTheme) {
      const button = document.getElementById(`baton-theme-${theme}`);
      if (button) {
        shownTheme = theme;
        button.click();
      }
    }
  };
  // The document, not its body: this script runs in the head, before there is a body.
  new MutationObserver(apply).observe(root, {
    subtree: true, attributes: true, childList: true,
    attributeFilter: ["data-theme", "data-density", "data-enter-sends"],
  });
  apply();
  // Enter off: Enter is a new line in the message box, Ctrl/Cmd+Enter sends. Caught before
  // the box's own Enter-to-submit handler.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || root.dataset.enterSends !== "off" || event.isComposing) return;
    const box = event.target;
    if (!box || box.id !== "composer-input") return;
    event.stopPropagation();
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      box.form && box.form.requestSubmit();
    }
  }, true);
})();
