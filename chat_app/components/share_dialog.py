import reflex as rx

from chat_app.states.share_state import LinkRow, ShareLinksState


def _link(link: rx.Var[LinkRow]) -> rx.Component:
    active = link.status == "active"
    return rx.hstack(
        rx.text(link.label, size="1", flex="1"),
        rx.badge(link.status, variant="soft", color_scheme=rx.cond(active, "grass", "gray")),
        rx.cond(
            active,
            rx.hstack(
                rx.button(
                    "Update snapshot",
                    size="1",
                    variant="soft",
                    on_click=ShareLinksState.update_snapshot(link.id),
                    class_name="share-update",
                ),
                rx.button(
                    "Revoke",
                    size="1",
                    variant="soft",
                    color_scheme="red",
                    on_click=ShareLinksState.revoke(link.id),
                    class_name="share-revoke",
                ),
                spacing="1",
            ),
        ),
        align="center",
        width="100%",
        class_name="share-link-row",
    )


def share_dialog() -> rx.Component:
    """The chat page's Share panel: create a read-only link, then refresh or revoke it."""
    return rx.dialog.root(
        rx.dialog.trigger(
            rx.button(
                rx.icon("share-2", size=14),
                rx.text("Share", as_="span", class_name="baton-share-label"),
                size="1",
                variant="soft",
                aria_label="Share",
                on_click=ShareLinksState.open_panel,
                id="share-open",
            ),
        ),
        rx.dialog.content(
            rx.dialog.title("Share a read-only snapshot"),
            rx.dialog.description(
                "Anyone with the link sees this chat up to now (not the system prompt or "
                "settings). Update the snapshot to include newer messages.",
                size="2",
            ),
            rx.cond(
                ShareLinksState.enabled,
                rx.vstack(
                    rx.hstack(
                        rx.select.root(
                            rx.select.trigger(aria_label="When the link expires"),
                            rx.select.content(
                                rx.select.item("Never expires", value="never"),
                                rx.select.item("Expires in 1 day", value="1"),
                                rx.select.item("Expires in 7 days", value="7"),
                                rx.select.item("Expires in 30 days", value="30"),
                            ),
                            value=ShareLinksState.expiry_days,
                            on_change=ShareLinksState.set_expiry_days,
                            size="1",
                            id="share-expiry",
                        ),
                        rx.spacer(),
                        rx.button(
                            "Create link",
                            on_click=ShareLinksState.create,
                            size="1",
                            id="share-create",
                        ),
                        align="center",
                        width="100%",
                    ),
                    rx.cond(
                        ShareLinksState.new_url != "",
                        rx.hstack(
                            # The whole link wraps inside the dialog; it was cut off with the
                            # copy button pushed out of sight.
                            rx.code(
                                ShareLinksState.new_url,
                                id="share-url",
                                flex="1",
                                min_width="0",
                                overflow_wrap="anywhere",
                            ),
                            rx.icon_button(
                                rx.icon("copy", size=14),
                                size="1",
                                variant="ghost",
                                aria_label="Copy link",
                                title="Copy link",
                                on_click=[
                                    rx.set_clipboard(ShareLinksState.new_url),
                                    rx.toast("Link copied"),
                                ],
                            ),
                            align="center",
                            width="100%",
                        ),
                    ),
                    rx.cond(
                        ShareLinksState.error != "",
                        rx.text(ShareLinksState.error, color_scheme="red", size="1"),
                    ),
                    rx.foreach(ShareLinksState.links, _link),
                    width="100%",
                    spacing="2",
                    margin_top="1em",
                ),
                rx.text("Sharing is turned off on this instance.", color_scheme="gray"),
            ),
            rx.dialog.close(rx.button("Close", size="1", variant="soft", margin_top="1em")),
        ),
    )
