import reflex as rx


def assistant_label(name: rx.Var[str], model: rx.Var[str]) -> rx.Component:
    """ "Baton · Offline simulator": who answers in this chat, under its title."""
    return rx.text(
        name,
        rx.cond((name != "") & (model != ""), " · ", ""),
        model,
        size="1",
        color_scheme="gray",
        class_name="baton-ellipsis",
        id="chat-assistant",
    )
