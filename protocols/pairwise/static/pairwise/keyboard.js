/**
 * Keys of the pairwise page (listed on the page, in pairwise/task.html):
 *   a or ←   A (left) is better        b or →   B (right) is better
 *   t or ↓   about the same (when the study allows ties)
 *   1-9      how much better the chosen output is (with a strength scale)
 *   n or Enter  next (on the last pair: Submit)      p  previous
 * Enter and Space on a focused button stay the button's own, the arrows stay
 * a radio group's own (the strength scale) and scroll a text the worker
 * tabbed into.
 */

const CHOICE_KEYS = { a: "left", b: "right", t: "tie" };
const ARROWS = { ArrowLeft: "left", ArrowRight: "right", ArrowDown: "tie" };

function isTyping(target) {
  return Boolean(target.closest?.("textarea, select, [contenteditable], input:not([type=radio]):not([type=checkbox])"));
}

export function attachKeyboard({ dialog, allowTies, isOpen, actions }) {
  document.addEventListener("keydown", (event) => {
    if (dialog.open || event.defaultPrevented || isTyping(event.target)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const onControl = Boolean(event.target.closest?.("button, a[href], summary, input"));
    const inText = Boolean(event.target.closest?.(".output-text, .source-text"));
    const inRadioGroup = Boolean(event.target.matches?.("input[type=radio]"));
    if ((key === "n" || (key === "Enter" && !onControl)) && !event.repeat) {
      event.preventDefault();
      actions.next();
      return;
    }
    if (key === "p" && !event.repeat) {
      event.preventDefault();
      actions.previous();
      return;
    }
    if (!isOpen()) return;
    let choice = CHOICE_KEYS[key];
    if (!choice && !inRadioGroup && !inText) choice = ARROWS[key];
    if (choice === "tie" && key === "ArrowDown" && !allowTies) return; // the page scrolls as usual
    if (choice) {
      event.preventDefault();
      actions.choose(choice);
      return;
    }
    if (/^[0-9]$/.test(key)) {
      event.preventDefault();
      actions.strength(Number(key));
    }
  });
}
