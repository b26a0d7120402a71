import reflex as rx

from chat_app.components.code_block import code_block
from chat_app.services.security.web_security import remote_images_allowed
from chat_app.settings import read_settings

# A rehype plugin: an image from another host becomes a link to it, so a message cannot
# make the reader's browser call a tracking pixel. Relative and data-less images stay.
_LINK_REMOTE_IMAGES = rx.Var(
    _js_expr="""(() => (tree) => {
  const remote = /^([a-z][a-z0-9+.-]*:|\\/\\/)/i;
  const walk = (node) => {
    if (!node.children) return;
    node.children = node.children.map((child) => {
      if (child.type === "element" && child.tagName === "img"
          && remote.test(String((child.properties || {}).src || ""))) {
        const src = String(child.properties.src);
        return {type: "element", tagName: "a",
                properties: {href: src, className: ["baton-remote-image"],
                             rel: "noopener noreferrer nofollow", target: "_blank"},
                children: [{type: "text", value: "image: " + (child.properties.alt || src)}]};
      }
      walk(child);
      return child;
    });
  };
  walk(tree);
})"""
)


# A single newline is a line break, as people type with Shift+Enter (CommonMark would fold
# it into a space).
_LINE_BREAKS = rx.markdown.plugin.create("remark-breaks@4.0.0", "remarkBreaks")


def _external_link(text: object) -> rx.Component:
    # A link opens beside the chat, never in its place; the page behind learns nothing.
    return rx.link(text, is_external=True, rel="noopener noreferrer nofollow")


def safe_markdown(source: rx.Var[str] | str) -> rx.Component:
    """Markdown for text anyone may have written (a user, a model, a tool's output).

    Raw HTML is shown as text, never rendered (Reflex's default parses it: an iframe, a meta
    refresh, a form or a style block in a message would act on the page). Links keep
    react-markdown's protocol allow-list (no ``javascript:`` or ``data:``) and open in a new
    tab, images from other hosts are links unless ``BATON_REMOTE_IMAGES`` allows them, a
    single newline is a line break, and code blocks carry their language and a copy button.
    """
    # Decided when the pages are compiled, which happens before (and without) the app.
    plugins = [] if remote_images_allowed(read_settings()) else [_LINK_REMOTE_IMAGES]
    return rx.markdown(
        source,
        use_raw=False,
        rehype_plugins=plugins,
        remark_plugins=[_LINE_BREAKS],
        component_map={"a": _external_link, "pre": code_block},
        class_name="baton-markdown",
    )
