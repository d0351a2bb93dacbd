"""The prompt an LLM evaluator receives: a Django template over the study, taxonomy and document.

Researchers may write their own template in admin or study.yaml. It is
rendered by a bare template engine: no autoescaping (a prompt is plain text,
never shown as HTML unescaped), no loaders (no {% include %} of files), and
only the tags and filters whose output grows at most with their input (no
{% lorem %}, no |ljust:"100000000"). A template is refused where it nests loops
more than MAX_LOOP_NESTING deep or blocks more than MAX_BLOCK_NESTING deep
(checked when it is saved or imported, and again before it renders), and a
rendering that runs more than MAX_STEPS steps or produces far more text than a
prompt may hold (EVALUATOR_PROMPT_MAX_CHARS) is stopped: a loop over a long
text inside another cannot take the worker's CPU and memory.
"""

import json
from functools import cache, lru_cache
from pathlib import Path

from django.conf import settings
from django.template import Context, Engine, Library, TemplateSyntaxError, defaultfilters, defaulttags
from django.template.defaulttags import ForNode

TEMPLATES = Path(__file__).parent / "templates" / "evaluators"
DEFAULT_TEMPLATE = TEMPLATES / "span_prompt.txt"
SYSTEM_MESSAGE = "You are a careful evaluator of generated text. You answer with JSON only, exactly in the shape asked for."

MAX_LOOP_NESTING = 2  # a loop over segments, and one over categories inside it
MAX_BLOCK_NESTING = 6
MAX_STEPS = 200_000  # loop iterations and nodes rendered, per document
# Nested blocks count their text once per level: rendering stops at this many times the limit.
PRODUCED_FACTOR = MAX_BLOCK_NESTING + 2

TAGS = {
    "autoescape", "comment", "cycle", "filter", "firstof", "for", "if", "ifchanged", "now", "regroup",
    "resetcycle", "spaceless", "templatetag", "verbatim", "with",
}  # fmt: skip
FILTERS = {
    "add", "addslashes", "capfirst", "cut", "date", "default", "default_if_none", "dictsort",
    "dictsortreversed", "divisibleby", "escape", "escapejs", "escapeseq", "filesizeformat", "first",
    "force_escape", "get_digit", "iriencode", "join", "last", "length", "linebreaks", "linebreaksbr",
    "linenumbers", "lower", "make_list", "phone2numeric", "pluralize", "pprint", "random", "safe", "safeseq",
    "slice", "slugify", "striptags", "time", "timesince", "timeuntil", "title", "truncatechars",
    "truncatechars_html", "truncatewords", "truncatewords_html", "unordered_list", "upper", "urlencode",
    "urlize", "urlizetrunc", "wordcount", "wordwrap", "yesno",
}  # fmt: skip


class PromptError(ValueError):
    """The evaluator's prompt template cannot give this document's prompt; the message says why."""


def _prompt_library():
    library = Library()
    library.tags = {name: tag for name, tag in defaulttags.register.tags.items() if name in TAGS}
    library.filters = {name: f for name, f in defaultfilters.register.filters.items() if name in FILTERS}
    return library


@cache
def _engine():
    engine = Engine(autoescape=False, loaders=[], libraries={}, debug=False)
    engine.template_builtins = [_prompt_library()]  # instead of every built-in tag and filter
    return engine


@cache
def default_template(name="span_prompt.txt"):
    """A default prompt of the platform (evaluators/templates/evaluators/): the span prompt unless named."""
    return (TEMPLATES / name).read_text(encoding="utf-8")


def _nesting(nodelist, loops=0, blocks=0):
    """(deepest loop nesting, deepest block nesting) under `nodelist`."""
    deepest = (loops, blocks)
    for node in nodelist:
        inner_loops = loops + isinstance(node, ForNode)
        for attribute in node.child_nodelists:
            children = getattr(node, attribute, None)
            if children:
                found = _nesting(children, inner_loops, blocks + 1)
                deepest = (max(deepest[0], found[0]), max(deepest[1], found[1]))
        deepest = (max(deepest[0], inner_loops), deepest[1])
    return deepest


def _compile(source):
    """The compiled template, its nesting checked; PromptError otherwise."""
    try:
        template = _engine().from_string(source)
    except TemplateSyntaxError as error:
        raise PromptError(f"the prompt template does not parse: {error}") from None
    loops, blocks = _nesting(template.nodelist)
    if loops > MAX_LOOP_NESTING:
        raise PromptError(
            f"the prompt template nests {loops} loops ({{% for %}} inside {{% for %}}); at most "
            f"{MAX_LOOP_NESTING} are allowed"
        )
    if blocks > MAX_BLOCK_NESTING:
        raise PromptError(f"the prompt template nests blocks {blocks} deep; at most {MAX_BLOCK_NESTING}")
    return template


def check_template(source):
    """A message when `source` is not a template the platform renders, else None (admin, bundles)."""
    try:
        _compile(source or default_template())
    except PromptError as error:
        return str(error)
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


class _Stopped(Exception):
    pass


class BudgetContext(Context):
    """A Context that counts the steps of a rendering and the text it produces, and stops it at the limits.

    Loops set their variable through __setitem__ (or update()) once per iteration;
    every node's output passes through _measured (installed on each node of a
    compiled template)."""

    def __init__(self, values, *, max_chars):
        super().__init__(values, autoescape=False)
        self.steps, self.produced = 0, 0
        self.max_produced = max_chars * PRODUCED_FACTOR

    def step(self):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Stopped(
                f"rendering the prompt took more than {MAX_STEPS:,} steps (a loop over a long text inside "
                "another?) and was stopped"
            )

    def add_output(self, length):
        self.produced += length
        if self.produced > self.max_produced:
            raise _Stopped(
                f"the prompt template produced more than {self.max_produced:,} characters and was stopped "
                "(EVALUATOR_PROMPT_MAX_CHARS)"
            )

    def __setitem__(self, key, value):
        self.step()
        super().__setitem__(key, value)

    def update(self, other_dict):
        self.step()
        return super().update(other_dict)


def _measured(render):
    def render_annotated(context):
        if isinstance(context, BudgetContext):
            context.step()
        output = render(context)
        if isinstance(context, BudgetContext):
            context.add_output(len(output))
        return output

    return render_annotated


def _measure_nodes(nodelist):
    for node in nodelist:
        node.render_annotated = _measured(node.render_annotated)
        for attribute in node.child_nodelists:
            children = getattr(node, attribute, None)
            if children:
                _measure_nodes(children)


@lru_cache(maxsize=32)
def _compiled(source):
    template = _compile(source)
    _measure_nodes(template.nodelist)
    return template


def render_messages(template_source, context, *, default=None, system=SYSTEM_MESSAGE):
    """The chat messages of one document: the fixed system message and the rendered prompt.

    `default`: the platform's template used when the evaluator has none (the span prompt
    unless given). PromptError when the template does not render, or the prompt is over
    EVALUATOR_PROMPT_MAX_CHARS.
    """
    limit = settings.EVALUATOR_PROMPT_MAX_CHARS
    template = _compiled(template_source or default or default_template())
    try:
        prompt = template.render(BudgetContext(context, max_chars=limit))
    except _Stopped as stopped:
        raise PromptError(str(stopped)) from None
    except Exception as error:  # e.g. a filter given a bad argument: a template problem, not a crash
        raise PromptError(f"the prompt template does not render: {type(error).__name__}: {error}") from None
    prompt = prompt.strip() + "\n"
    if len(prompt) > limit:
        raise PromptError(
            f"the prompt is {len(prompt):,} characters, over the limit of {limit:,} (EVALUATOR_PROMPT_MAX_CHARS)"
        )
    return [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
