"""Taxonomies a researcher starts from: the shipped library (console/library/*.yaml), or categories
written in place, one a line, that get their keys, colours and shortcuts here."""

import re
from functools import cache
from pathlib import Path

import yaml

from studies.models import Category

LIBRARY = Path(__file__).parent / "library"
# Light colours that dark text reads on (WCAG AA against #1a1a1a), distinct from one another.
PALETTE = (
    "#ffd166", "#9ad0f5", "#b8e0a3", "#f7a8b8", "#cdb4f0", "#ffb482", "#a0e7e5", "#e9c46a",
    "#d4d4aa", "#f4b6c2", "#bde0fe", "#caffbf",
)  # fmt: skip
# Keys the annotation page itself uses (next, previous; the suggestion arm's accept, reject,
# change, adjust, undo): a category never gets one of them.
RESERVED_KEYS = set("npaxgju")


@cache
def library(protocol=""):
    """{slug: taxonomy spec} of the shipped taxonomies, in the order of their names; those made for
    `protocol` (a spec's `suggested_for` lists protocol keys: MQM core for MQM) first."""
    found = {}
    for path in sorted(LIBRARY.glob("*.yaml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        found[spec["slug"]] = spec
    return dict(
        sorted(
            found.items(),
            key=lambda item: (protocol not in item[1].get("suggested_for", ()), item[1]["name"]),
        )
    )


def written_categories(text):
    """Category specs from lines such as "Repetition (paired): repeats earlier text".

    A line is a label, optionally "(paired)" after it, optionally ": description".
    Keys come from the label; each category gets a colour and a free shortcut.
    """
    specs, keys = [], set()
    for line in text.replace("\r", "").split("\n"):
        line = line.strip().lstrip("-*• ").strip()
        if not line:
            continue
        label, _, description = line.partition(":")
        paired = bool(re.search(r"\(paired\)", label, re.IGNORECASE))
        label = re.sub(r"\(paired\)", "", label, flags=re.IGNORECASE).strip() or line
        key = _free_key(label, keys)
        keys.add(key)
        specs.append(
            {"key": key, "label": label[:200], "description": description.strip(),
             "kind": Category.Kind.PAIRED if paired else Category.Kind.SINGLETON}
        )  # fmt: skip
    return assign_looks(specs)


def _free_key(label, taken):
    words = re.findall(r"[A-Za-z0-9]+", label)
    base = "".join(word[:1].upper() + word[1:] for word in words)[:28] or "Category"
    if not base[0].isalpha():
        base = f"C{base}"[:28]
    key, number = base, 2
    while key.lower() in {t.lower() for t in taken}:
        key, number = f"{base}{number}", number + 1
    return key


def assign_looks(specs):
    """Give each category without one a colour (in palette order) and a shortcut: the first letter
    of its label not taken, then of its key, then any free letter."""
    used = {spec["shortcut"] for spec in specs if spec.get("shortcut")} | RESERVED_KEYS
    for number, spec in enumerate(specs):
        spec.setdefault("color", PALETTE[number % len(PALETTE)])
        if spec.get("shortcut"):
            continue
        letters = [c.lower() for c in spec["label"] + spec["key"] if c.isalpha()]
        letters += list("bcdefhiklmoqrstvwyz")
        free = next((letter for letter in letters if letter not in used), "")
        spec["shortcut"] = free
        used.add(free)
    return specs
