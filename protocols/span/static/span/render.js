/**
 * The text: the segments read so far (context) and the current one, with
 * every span highlighted in its category's colour.
 *
 * A segment's text is cut into pieces at every span boundary (and, for the
 * coreference cue, at capitalised words); each piece is a text node, wrapped
 * in a <span> when something covers it. The text nodes of a segment element
 * therefore hold exactly the segment's text, which selection.js relies on.
 */

import { cueWords } from "./cue.js";
import { el, fill, safeColor } from "../worker/dom.js";
import { unitTable } from "../worker/offsets.js";

/** Every span shown in segment `index`: saved/unsaved annotations, the pending one, and what
 * the state adds (TaskState.addedMarks). */
function marksFor(state, index) {
  const marks = [];
  for (const annotation of state.annotations) {
    const category = state.category(annotation.category);
    const mark = { id: annotation.client_id, color: safeColor(category?.color), label: category?.label ?? annotation.category };
    if (annotation.segment === index) marks.push({ ...mark, start: annotation.start, end: annotation.end, kind: "span" });
    if (annotation.paired?.segment === index) {
      marks.push({ ...mark, start: annotation.paired.start, end: annotation.paired.end, kind: "paired" });
    }
  }
  for (const span of [state.pending.span, state.pending.paired]) {
    if (span?.segment === index) marks.push({ start: span.start, end: span.end, kind: "pending" });
  }
  marks.push(...state.addedMarks(index));
  return marks;
}

function pieceElement(text, covering, word) {
  const annotations = covering.filter((m) => m.kind === "span" || m.kind === "paired");
  if (!annotations.length && !word && !covering.length) return document.createTextNode(text);
  const piece = el("span", { className: "piece" }, text);
  if (word) piece.dataset.word = word;
  if (covering.some((m) => m.kind === "pending")) piece.classList.add("hl-pending");
  const framed = covering.filter((m) => m.kind === "framed");
  if (framed.length) {
    // A dashed frame in the mark's colour (its class): never drawn like the worker's own (filled) spans.
    piece.classList.add(...new Set(framed.map((m) => m.className)));
    piece.style.borderColor = framed.at(-1).color;
    piece.dataset.framed = framed.map((m) => m.ref).join(" ");
    piece.title = framed.map((m) => m.title).join("; ");
  }
  if (annotations.length) {
    const last = annotations[annotations.length - 1];
    piece.classList.add("hl");
    piece.classList.toggle("hl-paired", last.kind === "paired");
    piece.dataset.ids = annotations.map((m) => m.id).join(" ");
    piece.title = annotations.map((m) => (m.kind === "paired" ? `${m.label} (earlier span)` : m.label)).join("; ");
    const colors = [...new Set(annotations.map((m) => m.color))];
    if (annotations.length > 1) piece.classList.add("hl-overlap");
    // Several spans over one piece: stripes of the last two colours, so both stay visible.
    piece.style.background =
      colors.length > 1
        ? `repeating-linear-gradient(135deg, ${colors.at(-1)} 0 6px, ${colors.at(-2)} 6px 12px)`
        : last.color;
  }
  return piece;
}

/** The pieces of one segment's text (see the module comment). */
export function segmentPieces(segment, marks, cue) {
  const text = segment.text;
  const units = unitTable(text);
  const spans = marks
    .filter((m) => m.start < m.end && m.end < units.length)
    .map((m) => ({ ...m, from: units[m.start], to: units[m.end] }));
  const words = cue ? cueWords(text) : [];
  const cuts = new Set([0, text.length]);
  for (const item of [...spans.map((s) => [s.from, s.to]), ...words.map((w) => [w.start, w.end])]) {
    cuts.add(item[0]);
    cuts.add(item[1]);
  }
  const bounds = [...cuts].sort((a, b) => a - b);
  const pieces = [];
  for (let i = 0; i + 1 < bounds.length; i += 1) {
    const [from, to] = [bounds[i], bounds[i + 1]];
    const covering = spans.filter((s) => s.from <= from && s.to >= to);
    const word = words.find((w) => w.start <= from && w.end >= to)?.word;
    pieces.push(pieceElement(text.slice(from, to), covering, word));
  }
  return pieces;
}

function segmentBlock(state, segment, { current }) {
  // The current segment's number is in its heading already.
  const label = current ? null : `Segment ${segment.index + 1} of ${state.segments.length}`;
  return el(
    "div",
    { className: current ? "segment current" : "segment", dataset: { segment: segment.index } },
    label ? el("div", { className: "segment-label" }, label) : null,
    el(
      "div",
      { className: "segment-text", dataset: { segment: segment.index } },
      segmentPieces(segment, marksFor(state, segment.index), state.coreferenceCue),
    ),
  );
}

let lastSignature = null;
let lastCurrent = null;

/**
 * Render the context and the current segment. Skipped when nothing they show
 * changed, so that a save finishing does not rebuild the text under the mouse.
 */
export function renderText(state, els) {
  const shown = state.segments.filter((s) => s.index <= state.current);
  const signature = JSON.stringify([state.current, shown.map((s) => marksFor(state, s.index))]);
  if (signature === lastSignature) return;
  const movedSegment = lastCurrent !== state.current;
  lastSignature = signature;
  lastCurrent = state.current;

  const context = shown.filter((s) => s.index < state.current);
  const scrollTop = els.context.scrollTop;
  fill(els.context, context.map((s) => segmentBlock(state, s, { current: false })));
  if (!context.length) fill(els.context, el("p", { className: "empty" }, "Nothing yet: this is the first segment."));
  const segment = state.segment(state.current);
  fill(els.current, segment ? segmentBlock(state, segment, { current: true }) : null);
  // On a new segment show the end of the context, which leads into it; otherwise stay put.
  els.context.scrollTop = movedSegment ? els.context.scrollHeight : scrollTop;
}

/** The segment element (.segment-text) for a segment index, if shown. */
export function segmentTextElement(root, index) {
  return [...root.querySelectorAll(".segment-text")].find((node) => Number(node.dataset.segment) === index) ?? null;
}
