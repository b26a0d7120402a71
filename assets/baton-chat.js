// The chat page's own scripts: loaded with every page (and kept by the browser's cache),
// started by the chat's on_load with a one-line call (``window.batonChat.*``, each run once).
// Sent as the calls' bodies over the websocket instead, they were 6.7 KB of every chat's
// page load.
(() => {
  if (window.batonChat) return;
  const once = (name, install) => () => {
    if (window[name]) return;
    window[name] = true;
    install();
  };

  // Whether the view follows the chat as it grows: while it is at the bottom. Decided when
  // the view moves (the reader's scroll, or ours), never after the page grew: measured then,
  // a tall row (a long message just sent, a long reply) put the bottom out of reach by
  // itself, and nothing after it was followed. While it follows, the timeline's growth
  // (new rows, the streaming reply, markdown settling) keeps the bottom in view.
  const FOLLOW_SLACK = 150;
  const atBottom = () =>
    window.innerHeight + window.scrollY >= document.body.scrollHeight - FOLLOW_SLACK;
  let following = true, watched = null;
  window.addEventListener("scroll", () => { following = atBottom(); }, {passive: true});
  const grown = new ResizeObserver(() => {
    if (following) window.scrollTo({top: document.body.scrollHeight});
  });
  const watch = () => {  // the chat's timeline (a new one on another chat)
    const timeline = document.getElementById("timeline");
    if (!timeline || timeline === watched) return;
    if (watched) grown.unobserve(watched);
    grown.observe(timeline);
    watched = timeline;
  };

  // Scroll to the bottom of the chat. Forced (a chat just opened, a message sent): keep
  // scrolling until the rows are there and the page stops growing (markdown, code and fonts
  // settle over a few frames), for up to 3 s. Whoever moves the view next takes it over
  // (``__batonScrollGen``, counted by /baton-reader.js): the reader (wheel, touch, keys, the
  // scrollbar), a chip or search jump, a restored place. Left running, the settling pulled a
  // chip jump made in the page's first seconds back to the bottom of the new rows. Not
  // forced (a new row): only while the view follows (above).
  window.batonScrollToBottom = (force) => {
    watch();
    if (!following && !force) return;
    if (!force) {
      setTimeout(() => window.scrollTo({top: document.body.scrollHeight}), 60);
      return;
    }
    following = true;
    let last = -1, steady = 0, tries = 0;
    const gen = window.__batonScrollGen = (window.__batonScrollGen || 0) + 1;
    const settle = () => {
      if (window.__batonScrollGen !== gen) return;  // the view is someone else's now
      const height = document.body.scrollHeight;
      window.scrollTo({top: height});
      const rows = document.querySelectorAll('#timeline .baton-item').length;
      steady = rows > 0 && height === last ? steady + 1 : 0;
      last = height;
      if (steady < 3 && tries++ < 60) setTimeout(settle, 50);
    };
    settle();
  };

  // In a chat's rename field (the chat list, on every page) Escape cancels the rename and
  // stops nothing: this listener comes first and marks the key as used.
  once("__batonEscapeRenames", () => {
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || event.isComposing) return;
      const rename = event.target.closest && event.target.closest(".baton-rename");
      if (!rename) return;
      event.preventDefault();
      rename.querySelector(".baton-rename-cancel")?.click();
    });
  })();

  // Escape presses the Stop / Cancel handoff button while it is shown, unless a dialog is
  // open (Escape closes the dialog then); the button's own click handler does the rest, so
  // the keyboard and the mouse take the same path.
  const escapeStops = once("__batonEscapeStops", () => {
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || event.defaultPrevented || event.isComposing) return;
      if (document.querySelector("[role=dialog], [role=alertdialog]")) return;
      const stop = document.getElementById("stop-button");
      if (!stop) return;
      event.preventDefault();
      stop.click();
    });
  });

  // Load earlier or newer rows while reading. Only a scroll the reader makes loads rows
  // (wheel, touch, keys, the scrollbar's drag: noted by /baton-reader.js), never the page's
  // own scrolling (opening at the bottom, a chip jump). The button is pressed when it comes
  // within a screen of the view, so the rows are usually there before the reader gets to the
  // edge; the next press waits until the rows changed.
  const autoLoad = once("__batonAutoLoad", () => {
    let lastY = window.scrollY, busy = false;
    const keys = () => [...document.querySelectorAll("#timeline .baton-item")]
      .map((el) => el.dataset.key).join("|");
    const press = (button) => {
      busy = true;
      const before = keys();
      button.click();
      let tries = 0;
      const wait = () => {
        if (keys() !== before || tries++ > 100) { busy = false; lastY = window.scrollY; return; }
        setTimeout(wait, 50);
      };
      setTimeout(wait, 50);
    };
    const look = () => {
      const y = window.scrollY, up = y < lastY, down = y > lastY;
      lastY = y;
      if (busy || performance.now() - (window.__batonReaderAt ?? -Infinity) > 1500) return;
      const margin = window.innerHeight;
      const earlier = document.getElementById("load-earlier");
      if (up && earlier && earlier.getBoundingClientRect().bottom > -margin) return press(earlier);
      const later = document.getElementById("load-later");
      if (down && later && later.getBoundingClientRect().top < window.innerHeight + margin)
        press(later);
    };
    let queued = false;
    window.addEventListener("scroll", () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; look(); });
    }, {passive: true});
  });

  // The session of the row at the top of the view (under the sticky header) is the one being
  // read: its chip gets data-inview, and the chip bar scrolls sideways to keep that chip in
  // sight. An IntersectionObserver watches a thin band there, as tall as the gap between
  // rows (so a row is always in it), and scrolling costs nothing until a row crosses it.
  const markInView = once("__batonInView", () => {
    let timeline = null, observer = null, band = -1, shown = null;
    const inBand = new Set();
    const mark = (session) => {
      let current = null;
      document.querySelectorAll(".baton-chip[data-session]").forEach((chip) => {
        const here = chip.dataset.session === session;
        if (here) current = chip;
        if (here !== (chip.dataset.inview === "true")) chip.dataset.inview = here ? "true" : "false";
      });
      if (!current || current === shown) return;
      shown = current;
      const bar = current.parentElement, box = current.getBoundingClientRect(),
            edge = bar.getBoundingClientRect();
      if (box.left < edge.left || box.right > edge.right)
        bar.scrollLeft += box.left - edge.left - (edge.width - box.width) / 2;
    };
    const crossed = (entries) => {
      for (const entry of entries)
        entry.isIntersecting ? inBand.add(entry.target) : inBand.delete(entry.target);
      // The band is as tall as the gap between rows, so some row is always in it; of two,
      // the upper one is the one being read.
      let row = null;
      for (const el of inBand)
        if (el.isConnected && (!row || el.getBoundingClientRect().top < row.getBoundingClientRect().top)) row = el;
      if (row) mark(row.dataset.session);
    };
    const rows = () => timeline.querySelectorAll(":scope > .baton-item");
    let watched = null;
    const headerSize = new ResizeObserver(() => { band = -1; setUp(); });
    const setUp = () => {
      const found = document.getElementById("timeline");
      if (found === timeline && band >= 0) return false;
      const header = document.querySelector(".baton-sticky-header");
      if (header !== watched) {  // the band follows the header's height (the chip bar comes and goes)
        headerSize.disconnect();
        if (header) headerSize.observe(header);
        watched = header;
      }
      timeline = found;
      // Just under the header, and no higher than where a chip jump puts a divider (the
      // rows' scroll-margin-top), so a jump marks the session it went to.
      const margin = parseFloat(getComputedStyle(timeline?.querySelector(".baton-item")
        || document.body).scrollMarginTop) || 0;
      band = Math.round(Math.max(header ? header.getBoundingClientRect().bottom + 8 : 8, margin + 4));
      const top = band;
      if (observer) observer.disconnect();
      inBand.clear();
      shown = null;
      if (!timeline) return false;
      const gap = parseFloat(getComputedStyle(timeline).rowGap) || 0;
      const below = Math.max(window.innerHeight - top - Math.ceil(gap) - 2, 0);
      observer = new IntersectionObserver(crossed, {rootMargin: `-${top}px 0px -${below}px 0px`});
      rows().forEach((el) => observer.observe(el));
      return true;
    };
    // Rows come and go with the window; the timeline itself is new on another chat.
    new MutationObserver((records) => {
      if (setUp() || !observer) return;
      for (const record of records) {
        if (record.target !== timeline) continue;
        record.addedNodes.forEach((el) => el.classList?.contains("baton-item") && observer.observe(el));
        record.removedNodes.forEach((el) => { if (el.nodeType === 1) { observer.unobserve(el); inBand.delete(el); } });
      }
    }).observe(document.body, {childList: true, subtree: true});
    window.addEventListener("resize", () => { band = -1; setUp(); }, {passive: true});
    setUp();
  });

  window.batonChat = {escapeStops, autoLoad, markInView};
})();
