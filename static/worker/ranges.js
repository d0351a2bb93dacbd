/**
 * Between the browser's selections and the server's spans, for every page
 * that marks spans in a text (the span page, the translation page).
 *
 * The server counts Unicode code points (Python's text[start:end]); the DOM
 * counts UTF-16 units, in which an emoji is two. Offsets are computed by
 * walking the text nodes of a text element, which must hold exactly the
 * text (the pages' renderers build them so), never from innerText, whose
 * white space depends on CSS.
 */

import { isHigh, isLow, unitsToCodePoints } from "./offsets.js";

/** True when a UTF-16 offset would cut a surrogate pair (an emoji) in two. */
function splitsPair(text, units) {
  return units > 0 && units < text.length && isHigh(text.charCodeAt(units - 1)) && isLow(text.charCodeAt(units));
}

function textNodes(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  return nodes;
}

/** UTF-16 offset, from the start of `root`, of the boundary point (node, offset). */
function pointUnits(root, node, offset) {
  const point = document.createRange();
  point.setStart(node, offset);
  let units = 0;
  for (const text of textNodes(root)) {
    if (text === node) return units + offset;
    // The point sits between elements: stop at the first text node not before it.
    if (point.comparePoint(text, 0) >= 0) return units;
    units += text.length;
  }
  return units;
}

/**
 * The part of `range` inside `root`, as UTF-16 offsets {start, end}, or null
 * when the range does not overlap it. A range that runs out of the element is
 * clamped to it; nothing else is trimmed.
 */
export function clampRange(range, root) {
  const whole = document.createRange();
  whole.selectNodeContents(root);
  const total = textNodes(root).reduce((sum, node) => sum + node.length, 0);
  const units = (node, offset) => {
    const side = whole.comparePoint(node, offset);
    if (side < 0) return 0;
    if (side > 0) return total;
    return pointUnits(root, node, offset);
  };
  try {
    const start = units(range.startContainer, range.startOffset);
    const end = units(range.endContainer, range.endOffset);
    return start < end ? { start, end, total } : null;
  } catch {
    return null; // a boundary in another document (e.g. inside a frame)
  }
}

/**
 * The span {segment, start, end, text} that `range` selects in the segment
 * rendered in `root`, in code points, or null if it selects nothing there.
 */
export function spanFromRange(range, root, segment) {
  const units = clampRange(range, root);
  const text = segment.text;
  if (!units || units.total !== text.length) return null;
  let { start, end } = units;
  // A selection cannot end inside an emoji in practice, but keep whole characters if it does.
  if (splitsPair(text, start)) start -= 1;
  if (splitsPair(text, end)) end += 1;
  return {
    segment: segment.index,
    start: unitsToCodePoints(text, start),
    end: unitsToCodePoints(text, end),
    text: text.slice(start, end),
  };
}
