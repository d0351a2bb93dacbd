/**
 * Keys of the rating pages (listed on the page, in task_rate.html):
 *   Likert  a digit chooses that score of the current output (0 is 10 on a
 *           scale that goes to 10);
 *   BWS     b, w or v then a digit: the best output is #digit, the worst,
 *           or the value of the difference;
 *   both    n or → next (on the last one: Submit), p or ← previous.
 * Tab, the arrows inside a radio group, Space and Enter on buttons stay the
 * browser's own: the arrows move between items only outside a radio group.
 */

const PREFIX_MS = 2000;
const PREFIXES = { b: "best", w: "worst", v: "value" };

function isTyping(target) {
  return Boolean(target.closest?.("textarea, select, [contenteditable], input:not([type=radio]):not([type=checkbox])"));
}

export function attachKeyboard({ protocol, dialog, isOpen, actions }) {
  let prefix = null;
  let prefixTimer = null;
  const clearPrefix = () => {
    clearTimeout(prefixTimer);
    if (prefix) actions.hint("");
    prefix = null;
  };

  document.addEventListener("keydown", (event) => {
    if (dialog.open || event.defaultPrevented || isTyping(event.target)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key;
    const inRadioGroup = event.target.matches?.("input[type=radio]");
    const moves = { n: actions.next, p: actions.previous };
    if (!inRadioGroup) Object.assign(moves, { ArrowRight: actions.next, ArrowLeft: actions.previous });
    if (key === "Escape") return clearPrefix();
    if (moves[key] && !event.repeat) {
      event.preventDefault();
      clearPrefix();
      moves[key]();
      return;
    }
    if (!isOpen()) return;
    const digit = /^[0-9]$/.test(key) ? Number(key) : null;
    if (protocol === "likert" && digit !== null) {
      event.preventDefault();
      actions.score(digit);
      return;
    }
    if (protocol !== "bws") return;
    if (PREFIXES[key.toLowerCase()] && !event.repeat) {
      event.preventDefault();
      clearPrefix();
      prefix = PREFIXES[key.toLowerCase()];
      actions.hint(prefix);
      prefixTimer = setTimeout(clearPrefix, PREFIX_MS);
      return;
    }
    if (prefix && digit !== null) {
      event.preventDefault();
      const role = prefix;
      clearPrefix();
      if (role === "value") actions.value(digit);
      else actions.choose(role, digit);
      return;
    }
    if (prefix && key.length === 1) clearPrefix();
  });
}
