/**
 * Code points and UTF-16 units: the server counts Unicode code points
 * (Python's text[start:end]); the DOM counts UTF-16 units, in which an emoji
 * is two. Shared by every page that shows spans.
 */

export const isHigh = (code) => code >= 0xd800 && code <= 0xdbff;
export const isLow = (code) => code >= 0xdc00 && code <= 0xdfff;

export function unitsToCodePoints(text, units) {
  let points = 0;
  for (let i = 0; i < units; i += 1) {
    if (!(i > 0 && isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1)))) points += 1;
  }
  return points;
}

/** unitTable(text)[k] is the UTF-16 offset of code point k (length: code points + 1). */
export function unitTable(text) {
  const table = [0];
  let units = 0;
  for (const character of text) {
    units += character.length;
    table.push(units);
  }
  return table;
}

export function codePointLength(text) {
  return unitTable(text).length - 1;
}

/** Python's text[start:end] for code-point offsets. */
export function sliceCodePoints(text, start, end) {
  const table = unitTable(text);
  return text.slice(table[start], table[end]);
}
