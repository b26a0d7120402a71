// A code block's highlighter, fetched when the first code block is drawn instead of with
// every chat page (chat_app/components/highlighted_code.py says why). Until it has arrived
// the code shows in place, unhighlighted.
import { createElement, lazy, Suspense } from "react";

const Highlighter = lazy(() =>
  import("react-syntax-highlighter").then((module) => ({ default: module.PrismAsyncLight })),
);

export function LazyHighlighter(props) {
  const plain = createElement(
    "pre",
    { style: props.customStyle, className: props.className },
    createElement("code", props.codeTagProps, props.children),
  );
  return createElement(Suspense, { fallback: plain }, createElement(Highlighter, props));
}
