"""The real mouse held down on a button, for what happens between a press and its release."""


def press_and_hold(page, button):
    """Press the mouse on the middle of `button` and keep it down; `page.mouse.up()` releases it.
    A person's click takes about a tenth of a second from press to release, and the browser sends
    the click only if both land on the same node."""
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
