"""Check study.yaml and its taxonomy, collecting every problem.

Each check reports `file:line: message` and carries on, so a researcher sees
the whole list at once. Only records without problems become specs.
"""

import re

from studies import extensions, protocols
from studies.config import config_problems
from studies.models import Category, Study, Taxonomy

from .fields import is_int as _is_int
from .fields import text_field as _text_field
from .fields import unknown_fields as _unknown_fields
from .reading import plain
from .specs import CategorySpec, StudySpec, TaxonomySpec

SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
CATEGORY_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
# Distinct, readable highlight colours for categories that give none.
PALETTE = ["#ffb3ba", "#bae1ff", "#baffc9", "#ffdfba", "#e0bbff", "#ffffba", "#c9c9ff", "#b3f0e0"]

STUDY_FIELDS = {
    "slug", "title", "protocol", "instructions", "status", "annotators_per_document",
    "max_documents_per_worker", "config", "taxonomy",
}  # fmt: skip
TAXONOMY_FIELDS = {"slug", "name", "version", "description", "categories"}
CATEGORY_FIELDS = {
    "key", "label", "description", "kind", "group", "color", "shortcut", "whole_sentence", "snap_to_words",
    "order",
}  # fmt: skip


# --- study.yaml -------------------------------------------------------------


def check_study(raw, problems, name="study.yaml", *, user=None):
    """Check study.yaml; return a StudySpec (None when a required part is broken).

    `user` imports it (None: the server's operator, from the command line); a
    stored taxonomy is shared only when they may see it (see check_taxonomy).
    """
    line = getattr(raw, "line", 1)
    _unknown_fields(raw, STUDY_FIELDS | extensions.study_yaml_keys(), name, problems, line)
    slug = raw.get("slug")
    title = raw.get("title")
    if not isinstance(slug, str) or not SLUG.match(slug):
        problems.add(name, line, "'slug' is required: letters, digits, - and _")
        slug = None
    elif Study.objects.filter(slug=slug).exists():
        problems.add(name, line, f"a study with slug '{slug}' already exists")
    if not isinstance(title, str) or not title.strip():
        problems.add(name, line, "'title' is required")
    protocol = raw.get("protocol", "span")
    if protocol not in protocols.installed_keys():
        problems.add(
            name, line, f"unknown protocol '{protocol}' (one of {', '.join(protocols.installed_keys())})"
        )
    status = raw.get("status", "draft")
    if status not in Study.Status.values:
        problems.add(name, line, f"unknown status '{status}' (one of {', '.join(Study.Status.values)})")
    per_document = raw.get("annotators_per_document", 3)
    if not _is_int(per_document) or per_document < 1:
        problems.add(name, line, "'annotators_per_document' must be a whole number of at least 1")
    max_documents = raw.get("max_documents_per_worker")
    if max_documents is not None and (not _is_int(max_documents) or max_documents < 1):
        problems.add(name, line, "'max_documents_per_worker' must be a whole number of at least 1")
    config = raw.get("config") or {}
    if not isinstance(config, dict):
        problems.add(name, line, "'config' must be a mapping")
        config = {}
    if protocol in protocols.installed_keys():
        for problem in config_problems(config, protocol=protocol):
            problems.add(name, _line_of(config, problem.path, line), str(problem))
    taxonomy = None
    if raw.get("taxonomy") is not None:
        taxonomy = check_taxonomy(raw["taxonomy"], problems, name, user=user)
    elif protocol in protocols.installed_keys() and protocols.get(protocol).needs_taxonomy:
        problems.add(name, line, f"a {protocol} study needs a 'taxonomy' with its categories")
    if slug is None or not isinstance(title, str):
        return None
    spec = StudySpec(
        slug=slug,
        title=title,
        protocol=protocol,
        instructions=_text_field(raw, "instructions", name, line, problems),
        status=status,
        annotators_per_document=per_document if _is_int(per_document) else 3,
        max_documents_per_worker=max_documents if _is_int(max_documents) else None,
        config=plain(config),
        taxonomy=taxonomy,
    )
    for extension in extensions.registered():
        if extension.study_yaml_key and raw.get(extension.study_yaml_key) is not None:
            value = raw[extension.study_yaml_key]
            spec.extensions[extension.key] = extension.study_yaml_check(
                value, spec, problems, name, getattr(value, "line", line)
            )
    return spec


def _line_of(config, path, default):
    """The line of the innermost mapping along `path` (YAML gives lines to mappings, not to values)."""
    line, value = getattr(config, "line", default), config
    for key in path:
        if isinstance(value, list):  # a list has no line of its own, its mappings do
            value = value[key] if isinstance(key, int) and 0 <= key < len(value) else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
        line = getattr(value, "line", line)
    return line


def check_taxonomy(raw, problems, name, *, user=None):
    if not isinstance(raw, dict):
        problems.add(name, 1, "'taxonomy' must be a mapping with slug, name and categories")
        return None
    line = getattr(raw, "line", 1)
    _unknown_fields(raw, TAXONOMY_FIELDS, name, problems, line)
    slug, title = raw.get("slug"), raw.get("name")
    if not isinstance(slug, str) or not SLUG.match(slug):
        problems.add(name, line, "taxonomy 'slug' is required: letters, digits, - and _")
    if not isinstance(title, str) or not title.strip():
        problems.add(name, line, "taxonomy 'name' is required")
    version = str(raw.get("version", "1"))
    raw_categories = raw.get("categories")
    if not isinstance(raw_categories, list) or not raw_categories:
        problems.add(name, line, "taxonomy 'categories' must be a non-empty list")
        raw_categories = []
    categories, keys, shortcuts = [], {}, {}
    for position, item in enumerate(raw_categories):
        category = _check_category(item, position, problems, name, line)
        if category is None:
            continue
        item_line = getattr(item, "line", line)
        if category.key in keys:
            problems.add(
                name,
                item_line,
                f"duplicate category key '{category.key}' (first on line {keys[category.key]})",
            )
        keys.setdefault(category.key, item_line)
        if category.shortcut:
            if category.shortcut in shortcuts:
                problems.add(
                    name,
                    item_line,
                    f"shortcut '{category.shortcut}' is already used by {shortcuts[category.shortcut]}",
                )
            shortcuts.setdefault(category.shortcut, category.key)
        categories.append(category)
    if not isinstance(slug, str) or not isinstance(title, str):
        return None
    spec = TaxonomySpec(slug=slug, name=title, version=version, categories=categories,
                        description=_text_field(raw, "description", name, line, problems))  # fmt: skip
    _check_existing_taxonomy(spec, problems, name, line, user)
    return spec


def _check_category(item, position, problems, name, parent_line):
    if not isinstance(item, dict):
        problems.add(name, parent_line, f"category {position + 1} must be a mapping")
        return None
    line = getattr(item, "line", parent_line)
    _unknown_fields(item, CATEGORY_FIELDS, name, problems, line)
    key = item.get("key")
    if not isinstance(key, str) or not CATEGORY_KEY.match(key):
        problems.add(name, line, "category 'key' is required: a letter, then letters, digits, - or _")
        return None
    kind = item.get("kind", Category.Kind.SINGLETON)
    if kind not in Category.Kind.values:
        problems.add(name, line, f"category {key}: kind must be singleton or paired, not '{kind}'")
    color = item.get("color") or PALETTE[position % len(PALETTE)]
    if not isinstance(color, str) or not COLOR.match(color):
        problems.add(name, line, f"category {key}: colour must be #rrggbb, not '{color}'")
    shortcut = item.get("shortcut") or ""
    if not isinstance(shortcut, str) or len(shortcut) > 1:
        problems.add(name, line, f"category {key}: shortcut must be one character")
        shortcut = ""
    flags = {}
    for flag in ("whole_sentence", "snap_to_words"):
        flags[flag] = item.get(flag, False)
        if not isinstance(flags[flag], bool):
            problems.add(name, line, f"category {key}: {flag} must be true or false")
    order = item.get("order", position + 1)
    if not _is_int(order) or order < 0:
        problems.add(name, line, f"category {key}: order must be a whole number")
        order = position + 1
    return CategorySpec(
        key=key,
        label=_text_field(item, "label", name, line, problems, default=key) or key,
        description=_text_field(item, "description", name, line, problems),
        kind=kind,
        group=_text_field(item, "group", name, line, problems),
        color=str(color),
        shortcut=shortcut,
        whole_sentence=flags["whole_sentence"] is True,
        snap_to_words=flags["snap_to_words"] is True,
        order=order,
    )


def _check_existing_taxonomy(spec, problems, name, line, user):
    """A slug and version already stored are shared only when the importing user may see
    that taxonomy and its categories are identical (writing then reuses it).

    Whether it is hidden or only different, the message is the same: a researcher
    learns that the slug is taken, nothing about another researcher's taxonomy.
    The operator (no user) may share any identical one.
    """
    stored = Taxonomy.objects.filter(slug=spec.slug, version=spec.version)
    if not stored.exists():
        return
    existing = (
        stored if user is None else stored.filter(pk__in=Taxonomy.objects.for_user(user).values("pk"))
    ).first()
    if existing is None or _categories_of(existing) != sorted(spec.categories, key=lambda c: c.key):
        problems.add(
            name, line,
            f"taxonomy '{spec.slug}' version {spec.version} is already taken: a study shares a stored "
            "taxonomy only when you can see it and its categories are exactly these; choose another slug or version",
        )  # fmt: skip


def _categories_of(taxonomy):
    return sorted((category_spec_of(category) for category in taxonomy.categories.all()), key=lambda c: c.key)


def category_spec_of(category):
    return CategorySpec(
        key=category.key, label=category.label, description=category.description,
        kind=category.kind, group=category.group, color=category.color,
        shortcut=category.shortcut, whole_sentence=category.whole_sentence,
        snap_to_words=category.snap_to_words, order=category.order,
    )  # fmt: skip
