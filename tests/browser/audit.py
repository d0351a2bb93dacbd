"""Two checks any browser test can run on the page it has open, at any moment.

    from tests.browser.audit import assert_accessible, assert_no_overflow

    page.set_viewport_size({"width": 390, "height": 844})  # or the `phone_page` fixture
    page.goto(url)
    assert_no_overflow(page)  # nothing scrolls sideways at this width
    assert_accessible(page)   # axe-core finds no serious or critical violation

Both first wait for the page's document to have loaded (`loaded(page)`), so a check right
after a click that navigates reads the new page whole; waiting for something only the new
page shows stays the test's job (see `loaded`).

`assert_no_overflow(page)` fails when the document is wider than the window
(`document.documentElement.scrollWidth > window.innerWidth`), naming the
elements that stick out on the right.

`assert_accessible(page)` runs axe-core's default rules (WCAG 2 A and AA, and
axe's best practices) on the page as it is now: hidden parts are not audited,
so open a dialog or a panel first to audit it too. It fails on a violation of
impact "serious" or "critical", listing each one's rule id, help text, help
URL, and the targets (CSS selectors) and markup of the offending nodes. Lesser impacts are
returned, not asserted: `axe_violations(page)` gives every violation, for a
test (or a before/after count) that wants them all. `exclude` takes selectors
that axe should skip (a third-party widget, say), each a reason to write down.

axe-core is the npm package pinned in tests/browser/package.json and
package-lock.json: `npm ci --prefix tests/browser` installs it (the Makefile's
`browser-test-deps` target does, and `make test` depends on it). Nothing is
downloaded while the tests run. The pages' Content-Security-Policy forbids
inline scripts, so axe is injected with `page.evaluate` of the package's
source: evaluation from the driver (DevTools protocol) is not subject to the
page's CSP, and the page itself gains no script tag.
"""

from pathlib import Path

AXE_SOURCE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
INSTALL_COMMAND = "npm ci --prefix tests/browser"
FAILING_IMPACTS = ("serious", "critical")

_axe_source = None


def axe_source():
    """The pinned axe-core's source; a clear failure when it is not installed."""
    global _axe_source
    if _axe_source is None:
        if not AXE_SOURCE.exists():
            raise AssertionError(
                f"axe-core is not installed ({AXE_SOURCE} is missing): run `{INSTALL_COMMAND}` "
                "(or `make browser-test-deps`) from the repository's root"
            )
        _axe_source = AXE_SOURCE.read_text(encoding="utf-8")
    return _axe_source


_RUN_AXE = """async (exclude) => {
  const context = exclude.length ? {include: [document], exclude: exclude.map((s) => [s])} : document;
  const results = await window.axe.run(context, {resultTypes: ["violations"]});
  return results.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    targets: v.nodes.map((node) => node.target.join(" ")),
    summaries: v.nodes.map((node) => node.failureSummary || ""),
    html: v.nodes.map((node) => node.html.slice(0, 160)),
  }));
}"""


def loaded(page):
    """Waits until the page's current document has fired `load`.

    A click that submits a form or follows a link returns once the new document is committed,
    not parsed: an evaluate then may find no `document.documentElement` yet ("Cannot read
    properties of null (reading 'scrollWidth')") or a page without its stylesheets, which
    measures wrong. This does not tell a page that is about to be replaced from one that stays:
    after such a click the test still waits for something only the new page shows."""
    page.wait_for_load_state()


def axe_violations(page, *, exclude=()):
    """Every axe-core violation on the page as it is now: dicts with id, impact, help,
    helpUrl, targets (one CSS selector per offending node), html (the start of each
    node's markup) and summaries (axe's word on what to fix)."""
    loaded(page)
    if not page.evaluate("() => Boolean(window.axe)"):
        page.evaluate(axe_source())
    return page.evaluate(_RUN_AXE, list(exclude))


def format_violations(violations):
    lines = []
    for violation in violations:
        lines.append(
            f"[{violation['impact']}] {violation['id']}: {violation['help']} ({violation['helpUrl']})"
        )
        for target, html, summary in zip(
            violation["targets"], violation["html"], violation["summaries"], strict=True
        ):
            first = summary.splitlines()[1].strip() if summary.count("\n") else summary
            lines.append(f"    {target}  {html}\n      -- {first}")
    return "\n".join(lines)


def assert_accessible(page, *, exclude=()):
    """No serious or critical axe-core violation on the page as it is now (see the module's docstring).
    Returns every violation found, lesser ones included."""
    violations = axe_violations(page, exclude=exclude)
    failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
    assert not failing, f"axe-core on {page.url}:\n{format_violations(failing)}"
    return violations


_OVERFLOW = """() => {
  const width = window.innerWidth;
  const sticking = [...document.querySelectorAll("body *")]
    .filter((node) => node.getClientRects().length && node.getBoundingClientRect().right > width + 0.5)
    .filter((node, _, all) => !all.some((other) => other !== node && node.contains(other)))
    .slice(0, 8)
    .map((node) => {
      const name = node.tagName.toLowerCase() + (node.id ? "#" + node.id : "")
        + [...node.classList].map((c) => "." + c).join("");
      return `${name} (right edge at ${Math.round(node.getBoundingClientRect().right + window.scrollX)} px)`;
    });
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: width, sticking};
}"""


def assert_no_overflow(page):
    """The page does not scroll sideways: document.documentElement.scrollWidth <= window.innerWidth
    (and the window is as wide as the viewport the test set, so a zoomed-out page cannot hide it)."""
    loaded(page)
    found = page.evaluate(_OVERFLOW)
    viewport = page.viewport_size
    assert viewport is None or found["innerWidth"] <= viewport["width"], (
        f"{page.url}: the window is {found['innerWidth']} px wide in a {viewport['width']} px viewport"
    )
    assert found["scrollWidth"] <= found["innerWidth"], (
        f"{page.url} scrolls sideways: {found['scrollWidth']} px of content in a "
        f"{found['innerWidth']} px window; sticking out: {', '.join(found['sticking']) or 'nothing visible'}"
    )
