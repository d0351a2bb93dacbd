/**
 * The coreference cue: hovering a capitalised word (a name, mostly) marks its
 * other occurrences in the text read so far, which helps to judge whether a
 * character was introduced before (FALTE's "new character" errors).
 */

// Sentence starters that are capitalised for grammar, not because they name someone.
const COMMON_STARTERS = new Set(
  "The A An He She It They We I But And Then When This That There In On At His Her".split(" "),
);

// An upper-case letter, then letters (with combining accents), not inside a longer word.
const CAPITALISED = /(?<![\p{L}\p{M}\p{N}])\p{Lu}[\p{L}\p{M}]+/gu;

/** The capitalised words of `text` as {start, end, word}, in UTF-16 units. */
export function cueWords(text) {
  const words = [];
  for (const match of text.matchAll(CAPITALISED)) {
    if (COMMON_STARTERS.has(match[0])) continue;
    words.push({ start: match.index, end: match.index + match[0].length, word: match[0] });
  }
  return words;
}

/** Mark every piece of the hovered word's occurrences inside `container`. */
export function attachCue(container) {
  let active = null;
  const show = (word) => {
    if (word === active) return;
    active = word;
    for (const piece of container.querySelectorAll("[data-word]")) {
      piece.classList.toggle("cue-match", word !== null && piece.dataset.word === word);
    }
  };
  container.addEventListener("mouseover", (event) => {
    const piece = event.target.closest?.("[data-word]");
    show(piece ? piece.dataset.word : null);
  });
  container.addEventListener("mouseleave", () => show(null));
}
