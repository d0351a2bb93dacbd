/**
 * Keys: a category's shortcut chooses it, n / p (or the right / left arrows)
 * move between segments (n on
 * the last one opens Submit), Escape cancels the annotation being built.
 * While the worker types in a field (the comment, an answer about the whole
 * text), letters are text and the arrows move the caret or the radio choice:
 * only Escape, and in the comment Ctrl+Enter (Add), act there. Enter and
 * Space on a focused button or checkbox are the browser's own. The page never
 * puts the focus in a field itself (after Add it goes back to the current
 * segment), so a key meant as a shortcut is never typed as text.
 */

export function attachKeyboard(state, dialog, actions) {
  const shortcuts = new Map(state.categories.filter((c) => c.shortcut).map((c) => [c.shortcut, c]));
  document.addEventListener("keydown", (event) => {
    if (dialog.open || event.defaultPrevented) return; // the dialog handles its own keys
    const typing = event.target.closest?.("textarea, input, select, [contenteditable]");
    if (event.key === "Escape") {
      if (state.pendingStarted) actions.cancel();
      if (typing) event.target.blur();
      return;
    }
    if (typing) {
      // Ctrl+Enter adds from the annotation's comment only, not from an answer about the whole text.
      if (event.target.id === "comment" && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        actions.add();
      }
      return;
    }
    if (state.readOnly || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    // A category's own key wins over n / p, should a taxonomy use those letters.
    const category = shortcuts.get(event.key) ?? shortcuts.get(event.key.toLowerCase());
    // The arrows always move, even when a taxonomy takes n or p as a category key.
    const moves = { n: actions.next, p: actions.previous, ArrowRight: actions.next, ArrowLeft: actions.previous };
    const action = category && event.key.length === 1 ? () => actions.chooseCategory(category.key) : moves[event.key];
    if (!action) {
      // u: the page's undo, where it has one (its add-on says whether it took the key).
      if (event.key.toLowerCase() === "u" && actions.undo?.()) event.preventDefault();
      return;
    }
    event.preventDefault();
    action();
  });
}
