/**
 * The suggestion arm's operations in the page's save queue ("decide", "undo"): where each
 * is sent, and what the page does with the server's answer, a refusal, or a replay of an
 * unsent one after a reload. assisted.js hands them to startSpanPage (page.js).
 */

import { requestJSON } from "../worker/api.js";

/** The save queue's operations of this arm (page.js hands them to its SpanQueue). */
export const suggestionRoutes = {
  decide: (body, api) =>
    requestJSON("POST", `${api.suggestions}${body.id}/`, { annotation: body.annotation, seconds: body.seconds }),
  undo: (body, api) => requestJSON("DELETE", `${api.suggestions}${body.id}/`),
};

/** What the page does with those operations: the server's answer, a refusal, a replay after a reload. */
export const suggestionOps = {
  decide: {
    saved(state, op, result) {
      const suggestion = state.suggestion(op.body.id);
      // Taken back (or decided otherwise) while this one was on its way: the page's is the newer.
      const standing = suggestion?.decision && suggestion.decision.annotation === (op.body.annotation?.client_id ?? null);
      if (standing && result?.decision) {
        suggestion.decision = result.decision;
        if (op.body.annotation) state.markSaved(op.body.annotation.client_id);
      }
    },
    rejected: (state, op) => state.undecide(op.body.id), // the suggestion waits again
    replay: (state, op) => state.decide(op.body.id, op.body.annotation),
  },
  undo: {
    rejected: (state, op, { resync }) => resync(),
    replay: (state, op) => state.undecide(op.body.id),
  },
};
