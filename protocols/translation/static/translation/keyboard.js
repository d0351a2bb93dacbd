/**
 * Keys of the translation page (listed in its Keys card, task.html):
 *   in a text (Tab to it)  ← → choose a word, Shift+← → stretch the span
 *                          (in a right-to-left text the arrows follow the script)
 *   1, 2, ...   the error's severity, mildest first      0   [missing]
 *   a category's letter (MQM)                            Esc cancel the error
 *   s   the score (ESA, DA); on a scale of 0-6 the digits give the score
 *   n or Enter  next segment (Submit on the last)        p   previous
 *   → ← outside a text and a slider: next, previous
 * While the worker types in a field (the note, the score's number, the note
 * to the researchers) letters are text: only Escape acts there. Enter and
 * Space on a focused button are the button's own.
 */

export function attachKeyboard(state, dialog, actions) {
  const shortcuts = new Map(state.categories.filter((c) => c.shortcut).map((c) => [c.shortcut.toLowerCase(), c]));
  document.addEventListener("keydown", (event) => {
    if (dialog.open || event.defaultPrevented) return; // the dialog handles its own keys
    const target = event.target;
    const typing = Boolean(target.closest?.("textarea, select, [contenteditable], input:not([type=range])"));
    if (event.key === "Escape") {
      actions.escape({ typing, inText: Boolean(target.closest?.(".seg-text")) });
      return;
    }
    if (typing || state.readOnly || event.ctrlKey || event.metaKey || event.altKey) return;
    const textCell = target.closest?.(".seg-text[tabindex]");
    const onSlider = Boolean(target.matches?.("input[type=range]"));
    const onControl = Boolean(target.closest?.("button, a[href], summary, input"));
    const arrowsMove = !textCell && !target.closest?.("input, select, textarea, summary");
    if (textCell && (event.key === "ArrowRight" || event.key === "ArrowLeft")) {
      event.preventDefault();
      const rtl = getComputedStyle(textCell).direction === "rtl";
      const forward = (event.key === "ArrowRight") !== rtl;
      actions.stepWord(textCell, forward ? 1 : -1, event.shiftKey);
      return;
    }
    if (event.repeat) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const category = event.key.length === 1 ? shortcuts.get(key) : undefined;
    let action = null;
    if (category) action = () => actions.category(category.key);
    else if (/^[0-9]$/.test(key)) action = actions.digit(Number(key));
    else if (key === "s" && state.scoring) action = actions.focusScore;
    else if (key === "n" || (key === "Enter" && (!onControl || onSlider))) action = actions.next;
    else if (key === "p") action = actions.previous;
    else if (arrowsMove && key === "ArrowRight") action = actions.next;
    else if (arrowsMove && key === "ArrowLeft") action = actions.previous;
    if (!action) return;
    event.preventDefault();
    action();
  });
}
