/**
 * The output with every item's span highlighted in its evaluator's colour.
 *
 * Like the span page (../task/render.js), a segment's text is cut at every
 * span boundary; each piece is a text node, wrapped in a <span> when items
 * cover it, so overlapping spans stay visible. Locations are code-point
 * offsets (the server's), converted to UTF-16 units before slicing. After
 * each span a small tag ("A1") names the item; tags are not part of the text
 * for screen readers (the cards say the same).
 */

import { el, safeColor } from "../worker/dom.js";
import { unitTable } from "../worker/offsets.js";

/** "Evaluator A" -> "A": the short name tags and cards use. */
export function shortLabel(label) {
  const match = /^evaluator\s+(\S+)$/i.exec(label ?? "");
  return match ? match[1] : label ?? "";
}

/** The tag of each item: its evaluator's short label and its number among that evaluator's items. */
export function itemTags(items) {
  const counts = new Map();
  const tags = new Map();
  for (const item of items) {
    const number = (counts.get(item.label) ?? 0) + 1;
    counts.set(item.label, number);
    tags.set(item.id, `${shortLabel(item.label)}${number}`);
  }
  return tags;
}

function segmentMarks(items, index, length) {
  const marks = [];
  for (const item of items) {
    if (item.span_status !== "found" || !Array.isArray(item.locations)) continue;
    for (const location of item.locations) {
      if (!Array.isArray(location) || location.length !== 3) continue;
      const [segment, start, end] = location;
      if (segment === index && Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start < end && end <= length) {
        marks.push({ item, start, end });
      }
    }
  }
  return marks;
}

function piece(text, covering) {
  if (!covering.length) return document.createTextNode(text);
  const colors = [...new Set(covering.map((m) => safeColor(m.item.color)))];
  const node = el(
    "span",
    {
      className: covering.length > 1 ? "hl hl-overlap" : "hl",
      dataset: { items: covering.map((m) => m.item.id).join(" ") },
      title: covering.map((m) => m.tag).join(", "),
    },
    text,
  );
  // Two colours over one piece: stripes, so both evaluators stay visible.
  node.style.background =
    colors.length > 1 ? `repeating-linear-gradient(135deg, ${colors.at(-1)} 0 6px, ${colors.at(-2)} 6px 12px)` : colors[0];
  return node;
}

function tag(mark) {
  return el(
    "sup",
    {
      className: "hl-tag",
      "aria-hidden": "true",
      dataset: { items: String(mark.item.id) },
      style: { borderColor: safeColor(mark.item.color) },
    },
    mark.tag,
  );
}

/** The nodes of one segment: text pieces, highlighted pieces, and the tags after each span. */
export function segmentNodes(text, index, items, tags) {
  const units = unitTable(text);
  const marks = segmentMarks(items, index, units.length - 1).map((m) => ({
    ...m,
    from: units[m.start],
    to: units[m.end],
    tag: tags.get(m.item.id),
  }));
  const cuts = [...new Set([0, text.length, ...marks.flatMap((m) => [m.from, m.to])])].sort((a, b) => a - b);
  const nodes = [];
  for (let i = 0; i + 1 < cuts.length; i += 1) {
    const [from, to] = [cuts[i], cuts[i + 1]];
    nodes.push(piece(text.slice(from, to), marks.filter((m) => m.from <= from && m.to >= to)));
    for (const mark of marks.filter((m) => m.to === to)) nodes.push(tag(mark));
  }
  return nodes;
}

export function outputContent(segments, items, tags) {
  return segments.map((text, index) =>
    el("div", { className: "output-segment", dataset: { segment: index } }, segmentNodes(String(text), index, items, tags)),
  );
}

/** Show the spans of the items in `ids` more strongly. */
export function emphasise(root, ids) {
  for (const node of root.querySelectorAll("[data-items]")) {
    const active = node.dataset.items.split(" ").some((id) => ids.has(id));
    node.classList.toggle("active", active);
  }
  root.classList.toggle("has-active", ids.size > 0);
}

/** Scroll the output box (only it) so that item `id`'s first span is in view. */
export function revealSpan(box, id) {
  const first = [...box.querySelectorAll(".hl[data-items]")].find((node) => node.dataset.items.split(" ").includes(String(id)));
  if (!first) return;
  const boxRect = box.getBoundingClientRect();
  const rect = first.getBoundingClientRect();
  if (rect.top >= boxRect.top && rect.bottom <= boxRect.bottom) return;
  box.scrollTop += rect.top - boxRect.top - box.clientHeight / 3;
}
