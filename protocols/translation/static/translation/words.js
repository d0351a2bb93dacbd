/**
 * Words for choosing a span with the keyboard: the arrow keys step from word
 * to word of a text, Shift with an arrow stretches the span. A word is a run
 * of letters, marks and digits; a Chinese or Japanese character, a
 * punctuation mark or an emoji is a word of its own (those scripts put no
 * space between words, and a punctuation error is marked on the mark alone).
 * Offsets are code points, as the server counts them.
 */

const LETTER = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;
const SPACE = /^\s$/u;
// Scripts written without spaces: each character is a word.
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;

/** The words of `text`: [{start, end}] in code points, in reading order. */
export function words(text) {
  const characters = Array.from(text);
  const found = [];
  let index = 0;
  while (index < characters.length) {
    const character = characters[index];
    if (SPACE.test(character)) {
      index += 1;
      continue;
    }
    let end = index + 1;
    if (LETTER.test(character) && !UNSPACED.test(character)) {
      while (end < characters.length && LETTER.test(characters[end]) && !UNSPACED.test(characters[end])) end += 1;
    } else if (UNSPACED.test(character)) {
      // A combining mark stays with its character.
      while (end < characters.length && /^\p{M}$/u.test(characters[end])) end += 1;
    }
    found.push({ start: index, end });
    index = end;
  }
  return found;
}

/**
 * The keyboard's span after one arrow key: `cursor` is {anchor, focus} (word
 * numbers) or null, `step` +1 (on in reading order) or -1, `extend` whether
 * Shift was held. Returns the new cursor, or null when the text has no word.
 */
export function stepCursor(cursor, count, step, extend) {
  if (!count) return null;
  if (!cursor) {
    const first = step > 0 ? 0 : count - 1;
    return { anchor: first, focus: first };
  }
  const focus = Math.min(count - 1, Math.max(0, cursor.focus + step));
  if (extend) return { anchor: cursor.anchor, focus };
  // Without Shift a span of several words gives way to the word after (or before) it.
  const from = step > 0 ? Math.max(cursor.anchor, cursor.focus) : Math.min(cursor.anchor, cursor.focus);
  const single = cursor.anchor === cursor.focus ? focus : Math.min(count - 1, Math.max(0, from + step));
  return { anchor: single, focus: single };
}

/** The code-point span {start, end} a cursor covers. */
export function cursorSpan(list, cursor) {
  const first = list[Math.min(cursor.anchor, cursor.focus)];
  const last = list[Math.max(cursor.anchor, cursor.focus)];
  return { start: first.start, end: last.end };
}
