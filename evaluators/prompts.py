"""The prompt an LLM evaluator receives: a Django template over the study, taxonomy and document.

Researchers may write their own template in admin or study.yaml. It is
rendered by a bare template engine: no autoescaping (a prompt is plain text,
never shown as HTML unescaped), no loaders (no {% include %} of files), only
the built-in tags and filters.
"""

import json
from functools import cache, lru_cache
from pathlib import Path

from django.template import Context, Engine, TemplateSyntaxError

DEFAULT_TEMPLATE = Path(__file__).parent / "templates" / "evaluators" / "span_prompt.txt"
SYSTEM_MESSAGE = "You are a careful evaluator of generated text. You answer with JSON only, exactly in the shape asked for."


class PromptError(ValueError):
    """The evaluator's prompt template does not render; the message says where."""


@cache
def _engine():
    return Engine(autoescape=False, loaders=[], libraries={}, debug=False)


@cache
def default_template():
    return DEFAULT_TEMPLATE.read_text(encoding="utf-8")


def check_template(source):
    """A message when `source` is not a valid template, else None (admin and bundle checks)."""
    try:
        _engine().from_string(source or default_template())
    except TemplateSyntaxError as error:
        return f"the prompt template does not parse: {error}"
    return None


def prompt_context(*, study, categories, document, segments):
    """What a template sees: instructions, categories, the document and its numbered segments."""
    data = document.meta.get("data") if isinstance(document.meta, dict) else None
    return {
        "study": {"slug": study.slug, "title": study.title},
        "instructions": study.instructions,
        "categories": [
            {"key": c.key, "label": c.label, "description": c.description, "kind": c.kind, "group": c.group}
            for c in categories
        ],
        "document": {
            "id": document.external_id, "system": document.system, "source": document.source,
            "meta": document.meta, "data": data,
            "data_json": json.dumps(data, ensure_ascii=False, indent=1) if data is not None else "",
        },
        "segments": [{"number": index + 1, "index": index, "text": text} for index, text in enumerate(segments)],
    }  # fmt: skip


@lru_cache(maxsize=32)
def _compiled(source):
    return _engine().from_string(source)


def render_messages(template_source, context):
    """The chat messages of one document: the fixed system message and the rendered prompt."""
    try:
        template = _compiled(template_source or default_template())
        prompt = template.render(Context(context, autoescape=False))
    except TemplateSyntaxError as error:
        raise PromptError(f"the prompt template does not parse: {error}") from None
    except Exception as error:  # e.g. {% include %} without loaders: a template problem, not a crash
        raise PromptError(f"the prompt template does not render: {type(error).__name__}: {error}") from None
    return [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": prompt.strip() + "\n"}]
