/**
 * What every worker page (span, rating, review) does around its save queue:
 * the "not saved yet" warning, the switch to read-only when the server says
 * the assignment is closed, and the hand-off after a submit.
 */

import { safeHttpUrl } from "./dom.js";

const REDIRECT_DELAY_MS = 3000;

/** Prolific wants the worker back on its completion URL: go there after a moment
 * to read the code (the link stays on the page should the redirect be blocked). */
export function handOff(completion) {
  const target = completion?.redirect_url ? safeHttpUrl(completion.redirect_url) : null;
  if (target) setTimeout(() => window.location.assign(target), REDIRECT_DELAY_MS);
}

/** Queue callbacks shared by the pages; `renderWhenIdle` redraws once the queue empties. */
export function sharedQueueCallbacks({ state, els, render, resync, renderWhenIdle = false }) {
  return {
    onClosed(message) {
      state.closedMessage = message;
      state.submitting = false;
      els.saveWarning.hidden = true;
      render();
      resync(); // submitted from another tab? then show its completion code
    },
    onRetrying(op, seconds) {
      els.saveWarning.hidden = false;
      els.saveWarning.textContent = `Not saved yet – retrying… (next try in ${seconds} s; keep this page open)`;
    },
    onIdle() {
      els.saveWarning.hidden = true;
      if (renderWhenIdle) render();
    },
  };
}
