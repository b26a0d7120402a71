import reflex as rx

from chat_app.states.paste_offer_state import PasteOfferState


def paste_offer() -> rx.Component:
    """Above the composer: a message too large to send, and the offer to attach it as a file
    the agent reads instead. The text stays in the composer whatever is chosen."""
    return rx.cond(
        PasteOfferState.reason != "",
        rx.callout.root(
            rx.callout.icon(rx.icon("file-text", size=16)),
            rx.vstack(
                rx.text(PasteOfferState.reason, size="1", id="paste-offer-reason"),
                rx.text(
                    "Your text is still in the box below. Attach it as a file instead: the "
                    "agent reads it with its file tools.",
                    size="1",
                ),
                rx.cond(
                    PasteOfferState.error != "",
                    rx.text(
                        PasteOfferState.error, size="1", color_scheme="red", id="paste-offer-error"
                    ),
                ),
                rx.hstack(
                    rx.button(
                        rx.icon("paperclip", size=14),
                        "Attach as ",
                        PasteOfferState.file_name,
                        size="1",
                        type="button",
                        on_click=PasteOfferState.accept,
                        id="paste-offer-attach",
                    ),
                    rx.button(
                        "Keep editing",
                        size="1",
                        type="button",
                        variant="soft",
                        color_scheme="gray",
                        on_click=PasteOfferState.dismiss,
                        id="paste-offer-dismiss",
                    ),
                    spacing="2",
                    wrap="wrap",
                ),
                spacing="1",
                width="100%",
            ),
            color_scheme="amber",
            size="1",
            id="paste-offer",
            width="100%",
        ),
    )
