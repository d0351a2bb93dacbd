"""Reloading a worker's page once everything it holds has reached the server.

Every task page keeps its unsent saves in a queue, persisted in localStorage under
`falte-task-queue:<token>` and removed once the last save is answered. While that queue holds
anything, the page asks "leave with unsaved work?" on a reload; the tests' pages dismiss every
dialog, so the reload is refused and Playwright waits for a load that never comes. A test that
checks what the server kept must therefore wait for the queue, not for one response: a click
can queue two saves (a choice, then its strength), and `expect_response` catches the first.
"""

_QUEUED = "Object.keys(localStorage).some((k) => k.startsWith('falte-task-queue:'))"
QUEUE_HOLDS_WORK = f"() => {_QUEUED}"
QUEUE_IS_EMPTY = f"() => !{_QUEUED}"


def wait_until_sent(page):
    """Return once the page's save queue is empty (every save answered by the server)."""
    page.wait_for_function(QUEUE_IS_EMPTY)


def reload_when_sent(page):
    """Reload the page after its save queue has emptied."""
    wait_until_sent(page)
    page.reload()
