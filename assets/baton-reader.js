// Who moves the chat's view. The reader's own scrolling (wheel, touch, navigation keys, a
// press on the page's scrollbar) is noted once here, for every page script that must yield
// to it: ``__batonReaderAt`` is when the reader last scrolled (the auto-loader loads rows
// only then; a restored place stops holding), and ``__batonScrollGen`` counts who took the
// view last (the reader here; a chip, search or message jump and a restored place in their
// own scripts), so a scroll the page started stops when someone else moves the view.
(() => {
  if (window.__batonReaderWatch) return;
  window.__batonReaderWatch = true;
  window.__batonReaderAt = -Infinity;  // no reader input yet
  window.__batonScrollGen = window.__batonScrollGen || 0;
  const reader = () => {
    window.__batonReaderAt = performance.now();
    window.__batonScrollGen += 1;
  };
  const keys = new Set(["PageUp", "PageDown", "ArrowUp", "ArrowDown", "Home", "End", " "]);
  window.addEventListener("wheel", reader, {passive: true, capture: true});
  window.addEventListener("touchmove", reader, {passive: true, capture: true});
  window.addEventListener("keydown", (event) => {
    if (keys.has(event.key) && !event.target.closest?.("textarea, input, [role=menu]")) reader();
  }, {capture: true});
  window.addEventListener("pointerdown", (event) => {
    if (event.target === document.documentElement || event.target === document.body) reader();
  }, {passive: true, capture: true});
})();
