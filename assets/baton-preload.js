// Opening a page by its URL: a chat (/t/<id>) is served the app's shell, whose head names
// only the shell's modules. The page's own module (the largest: the timeline, Markdown,
// the chart) was requested only once the shell had run, and its imports only once it had
// been parsed: two round trips and the shell's run before the newest message could show.
// This reads React Router's route manifest (already preloaded by the shell) and preloads
// the current route's module, its imports and its styles at once.
(() => {
  const manifestLink = document.querySelector('link[rel="modulepreload"][href*="/assets/manifest-"]');
  if (!manifestLink) return;
  const segments = (path) => path.split("/").filter(Boolean);
  const matches = (pattern, actual) =>
    pattern.length === actual.length &&
    pattern.every((part, index) => part.startsWith(":") || part === decodeURIComponent(actual[index]));
  const linked = (href) => document.querySelector(`link[href="${href}"]`) !== null;
  const add = (rel, href, as) => {
    if (linked(href)) return;
    const link = document.createElement("link");
    link.rel = rel;
    link.href = href;
    if (as) link.as = as;
    document.head.appendChild(link);
  };
  import(manifestLink.href)
    .then(() => {
      const manifest = window.__reactRouterManifest;
      if (!manifest || !manifest.routes) return;
      const here = segments(window.location.pathname);
      const route = Object.values(manifest.routes).find(
        (entry) => entry.path && entry.id !== "root" && matches(segments(entry.path), here),
      );
      if (!route) return;
      for (const href of [route.module, ...(route.imports || [])]) add("modulepreload", href);
      for (const href of route.css || []) add("preload", href, "style");
    })
    .catch(() => {
      // No manifest: the router fetches the route's modules itself, as before.
    });
})();
