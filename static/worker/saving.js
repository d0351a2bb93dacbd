/**
 * What every worker page (span, rating, review) does around its save queue:
 * the "not saved yet" warning, the switch to read-only when the server says
 * the assignment is closed, and the hand-off after a submit.
 */

import { fetchState } from "./api.js";
import { safeHttpUrl } from "./dom.js";

const REDIRECT_DELAY_MS = 3000;

/** Prolific wants the worker back on its completion URL: go there after a moment
 * to read the code (the link stays on the page should the redirect be blocked).
 * A qualification round taken as one task goes straight on to its next document. */
export function handOff(completion) {
  const next = completion?.next ? safeHttpUrl(completion.next) : null;
  if (next) {
    window.location.assign(next);
    return;
  }
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

/**
 * The rating and review pages keep what the server confirmed apart from what
 * the page shows (`state.markSaved`, `state.revert`, `state.applyServer`):
 * their queue callbacks and their resync are the same.
 * `queue()` gives the queue (built with these callbacks, so only known later);
 * `afterSubmit` runs before the completion code takes the focus.
 */
export function answerPageSaving({ state, els, render, say, api, queue, afterSubmit = () => {} }) {
  async function resync() {
    const result = await fetchState(api);
    if (result.status !== 200) return;
    state.applyServer(result.data);
    if (!state.readOnly) for (const op of queue().ops) state.applyOp(op);
    render();
  }
  const callbacks = {
    onSaved(op, result) {
      state.markSaved(op, result);
      if (op.kind === "submit") {
        state.submitting = false;
        state.status = result.status;
        state.completion = result.completion;
        say("");
      }
      els.saveWarning.hidden = true;
      render();
      if (op.kind === "submit") {
        afterSubmit();
        els.completion.focus();
        handOff(result.completion);
      }
    },
    onRejected(op, message) {
      if (op.kind === "submit") {
        state.submitting = false;
        say(`Not submitted: ${message}`, { error: true });
        resync(); // the server knows best what is still missing
      } else {
        state.revert(op, queue().ops);
        say(`Not saved: ${message}`, { error: true });
      }
      render();
    },
    ...sharedQueueCallbacks({ state, els, render, resync, renderWhenIdle: true }),
  };
  return { callbacks, resync };
}
