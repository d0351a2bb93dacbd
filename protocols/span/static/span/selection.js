/**
 * Between the browser's selections and the server's spans.
 *
 * The server counts Unicode code points (Python's text[start:end]); the DOM
 * counts UTF-16 units, in which an emoji is two. Offsets are computed by
 * walking the text nodes of a segment element, which hold exactly the
 * segment's text (render.js builds them so), never from innerText, whose
 * white space depends on CSS.
 */

import { codePointLength, isHigh, isLow, sliceCodePoints, unitsToCodePoints } from "../worker/offsets.js";

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

/**
 * Grow a span to the whole sentences it touches (whole-sentence categories,
 * e.g. an abrupt scene transition). A span lying only in the gap between two
 * sentences takes the next one.
 */
export function snapToSentences(span, segment) {
  const length = codePointLength(segment.text);
  const sentences = segment.sentences?.length ? segment.sentences : [[0, length]];
  let touched = sentences.filter(([start, end]) => start < span.end && end > span.start);
  if (!touched.length) {
    touched = [sentences.find(([start]) => start >= span.end) ?? sentences[sentences.length - 1]];
  }
  const start = Math.min(...touched.map(([s]) => s));
  const end = Math.max(...touched.map(([, e]) => e));
  return { segment: span.segment, start, end, text: sliceCodePoints(segment.text, start, end) };
}

// Python's \w on text: letters, marks, digits and connector punctuation (_).
const WORD_CHARACTER = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;

/**
 * Widen a span that cuts a word to the whole word at either end (categories
 * with snap_to_words; SNaC App. E.3 fixed span boundaries afterwards). Words
 * are runs of word characters; a span never grows past its segment.
 */
export function snapToWords(span, segment) {
  const characters = Array.from(segment.text);
  const isWord = (index) => index >= 0 && index < characters.length && WORD_CHARACTER.test(characters[index]);
  let { start, end } = span;
  while (isWord(start - 1) && isWord(start)) start -= 1;
  while (isWord(end - 1) && isWord(end)) end += 1;
  return { segment: span.segment, start, end, text: characters.slice(start, end).join("") };
}
