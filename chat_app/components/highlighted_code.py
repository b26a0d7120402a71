import reflex as rx
from reflex_components_code.code import CodeBlock


class _LazyHighlighter(CodeBlock):
    """``rx.code_block`` drawn by ``assets/baton-code-block.jsx``, which imports the
    highlighter when the first code block is drawn: the chat page's script no longer
    carries it. (A :mod:`chat_app.components.lazy` class would not do: a code block is
    drawn inside Markdown, whose component map leaves out its parts' dynamic imports.)"""

    library = "$/public/baton-code-block.jsx"
    tag = "LazyHighlighter"
    alias = "BatonHighlighter"
    lib_dependencies: list[str] = ["react-syntax-highlighter@16.1.2"]  # noqa: RUF012


def highlighted_code(code: rx.Var[str] | str, **props) -> rx.Component:
    """``rx.code_block``: the code, highlighted once the highlighter has arrived."""
    return _LazyHighlighter.create(code, **props)
