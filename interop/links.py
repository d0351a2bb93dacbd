"""What a file's links become: paired spans of a label, or relation spans (docs/decisions.md,
"Links of imported files").

A link between two regions of a label whose every region is in exactly one such link
is one paired span of that label; any other link is a relation span, a paired span of
a relation category placed at its two regions, which stay singleton spans of their own
labels. The link itself is kept in the paired span's `answers`, so export writes it back.
"""

from collections import Counter
from dataclasses import dataclass, field

from . import corpus as c
from .segmenting import SpanOutside

LINK_ANSWER = "interop_link"  # the key of a paired span's answers that keeps the file's link
RELATION_GROUP = "relations"  # the group of the categories made of links' labels
UNLABELLED_RELATION = "link"  # the relation category of links without a label


@dataclass
class LinkPlan:
    """What the file's links become (the module docstring's rule)."""

    paired_labels: set = field(default_factory=set)  # labels whose links are paired spans of the label
    relations: dict = field(default_factory=dict)  # relation name -> (Annotation, Link) first using it

    def is_pair(self, source, target):
        return source.label == target.label and source.label in self.paired_labels


def relation_name(link):
    """The relation category a link that is no pair becomes: its label, or "link"."""
    return link.label or UNLABELLED_RELATION


def link_plan(corpus):
    """Which labels are paired categories and which links relations, over the whole file.

    A label is paired when it is linked and each of its regions is in exactly one link,
    to a region of the same label; an evaluator's region in no link does not count
    (an evaluator's span of a paired category may lack its pair). Every other link
    is a relation.
    """
    planning = LinkPlanning()
    for annotation in corpus.annotations:
        planning.add(annotation)
    return planning.plan()


class LinkPlanning:
    """link_plan's rule over annotations given one at a time (a file read in parts): it keeps the
    labels linked and spoiled, and the first link of each relation that may become one, never
    the annotations themselves."""

    def __init__(self):
        self.linked, self.spoiled = set(), set()
        # (relation name, the label of both ends or None when they differ) -> (order, annotation, link)
        # of its first link: a link between two regions of one label is a relation only if that
        # label turns out not paired, which only the whole file tells.
        self.first = {}

    def add(self, annotation):
        label_of = {region.id: region.label for region in annotation.regions if region.id}
        links_of = Counter()
        for link in annotation.links:
            if link.source in label_of and link.target in label_of:
                links_of.update((link.source, link.target))
                source, target = label_of[link.source], label_of[link.target]
                self.linked.update((source, target))
                if source != target:
                    self.spoiled.update((source, target))
                key = (relation_name(link), source if source == target else None)
                self.first.setdefault(key, (len(self.first), annotation, link))
        for region in annotation.regions:
            count = links_of[region.id] if region.id else 0
            if count > 1 or (count == 0 and annotation.kind != c.MODEL):
                self.spoiled.add(region.label)

    def plan(self):
        plan = LinkPlan(paired_labels=self.linked - self.spoiled)
        relations = sorted(
            (order, name, annotation, link)
            for (name, label), (order, annotation, link) in self.first.items()
            if label is None or label not in plan.paired_labels
        )
        for _, name, annotation, link in relations:
            plan.relations.setdefault(name, (annotation, link))
        return plan


def annotation_items(annotation, cut, taxonomy, name, where, problems):
    """The bundle's annotation items of one annotation: a span per region not paired by a link,
    a paired span per link (of the regions' label, or of the link's relation category)."""
    categories, relations, plan = taxonomy
    regions, ok = {}, True
    for region in annotation.regions:
        if region.id and region.id in regions:
            problems.add(name, annotation.line, f"{where}: region id {region.id!r} is given twice")
            ok = False
        regions[region.id or f"#{len(regions)}"] = region
    place = {}
    for key, region in regions.items():
        try:
            place[key] = cut.locate(region.start, region.end)
        except SpanOutside as outside:
            problems.add(name, annotation.line, f"{where}, region {region.id}: {region.label} {outside}")
            ok = False
    paired, items = set(), []
    for link in annotation.links:
        missing = [end for end in (link.source, link.target) if end not in regions]
        if missing:
            problems.add(name, annotation.line, f"{where}: link {link.source} -> {link.target} names no region "
                                                f"{', '.join(map(repr, missing))}")  # fmt: skip
            ok = False
            continue
        source, target = regions[link.source], regions[link.target]
        if link.source not in place or link.target not in place:
            continue  # the region's problem is reported
        at = (place[link.source], place[link.target])
        if plan.is_pair(source, target):
            paired.update((link.source, link.target))
            if source.label in categories:
                items.append(_paired_item(cut, (source, target), at, link, categories[source.label][0]))
        elif relation_name(link) in relations:
            items.append(_relation_item(cut, (source, target), at, link, relations[relation_name(link)]))
    for key, region in regions.items():
        if key in paired or key not in place or region.label not in categories:
            continue
        category, kind = categories[region.label]
        if kind == "paired" and annotation.kind != c.MODEL:
            problems.add(name, annotation.line, f"{where}, region {region.id}: category {category} is paired, "
                                                f"but the file does not pair regions labelled {region.label!r} "
                                                "(each in exactly one link, to a region of the same label); "
                                                "give the label a singleton category")  # fmt: skip
            ok = False
            continue
        segment, start, end = place[key]
        items.append({"segment": segment, "category": category, "start": start, "end": end,
                      "text": cut.segments[segment][start:end], "comment": region.note})  # fmt: skip
    return items if ok else None


def _paired_item(cut, ends, places, link, category):
    """The link's later region is the span, its earlier one the pair (the bundle's rule); which of
    them the link starts from, its label and what else the file says of it, go to `answers`."""
    (source, target), (source_place, target_place) = ends, places
    span_is_source = source_place[0] >= target_place[0]
    (span, span_at), (pair, pair_at) = (
        ((source, source_place), (target, target_place)) if span_is_source else ((target, target_place), (source, source_place))
    )  # fmt: skip
    kept = {"label": link.label, "source": "span" if span_is_source else "paired", **link.meta}
    notes = list(dict.fromkeys(note for note in (span.note, pair.note) if note))
    return {
        "segment": span_at[0], "category": category, "start": span_at[1], "end": span_at[2],
        "text": cut.segments[span_at[0]][span_at[1] : span_at[2]], "comment": "\n".join(notes),
        "paired": {"segment": pair_at[0], "start": pair_at[1], "end": pair_at[2],
                   "text": cut.segments[pair_at[0]][pair_at[1] : pair_at[2]]},
        "answers": {LINK_ANSWER: kept},
    }  # fmt: skip


def _relation_item(cut, ends, places, link, category):
    """A link that is no pair: a paired span of its relation category at its two regions, which
    stay spans of their own (their notes with them); `answers` adds the regions' labels, so that
    export links those very regions again."""
    item = _paired_item(cut, ends, places, link, category)
    item["comment"] = ""
    source, target = ends
    item["answers"][LINK_ANSWER].update(relation=True, source_label=source.label, target_label=target.label)
    return item
