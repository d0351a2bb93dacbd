"""Study instructions: Markdown written by researchers, made safe to show workers."""

import markdown
import nh3


def instructions_html(text):
    """Render Markdown, then keep only harmless HTML (no scripts, no event attributes).

    Markdown passes raw HTML through, so the sanitiser is what makes this safe.
    """
    html = markdown.markdown(text or "", extensions=["extra", "sane_lists"], output_format="html")
    return nh3.clean(html, link_rel="noopener noreferrer nofollow")
