/**
 * Between the browser's selections and the server's spans: a selection
 * becomes a span in code points through the shared ../worker/ranges.js
 * (render.js builds each segment element of exactly its text, as that
 * module needs); the span page's categories may then widen the span to
 * whole words or whole sentences.
 */

import { codePointLength, sliceCodePoints } from "../worker/offsets.js";

export { clampRange, spanFromRange } from "../worker/ranges.js";

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
