/**
 * The shared save queue (../worker/api.js: one request at a time, in order,
 * retried with backoff, kept in localStorage under the task token), taught
 * the translation page's operations: add and remove an error, score a
 * segment, move to a segment. An error carries its client id and a score is
 * one row per segment, so sending either again after a reload is harmless.
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class TranslationQueue extends SaveQueue {
  routes() {
    return {
      add: (body, api) => requestJSON("POST", api.errors, body),
      remove: (body, api) => requestJSON("DELETE", `${api.errors}${encodeURIComponent(body.client_id)}/`),
      score: (body, api) => requestJSON("POST", api.scores, { segment: body.segment, score: body.score }),
      move: (body, api) => requestJSON("POST", api.move, { segment: body.segment }),
    };
  }

  /**
   * Queue a segment's score. A score of the same segment still waiting behind
   * the request in flight takes the new value instead (a slider moved by its
   * arrow keys sends one request, not one per step); the first op may be on
   * the wire and is never touched. Only the value changes, so a move queued
   * after it still finds the segment scored.
   */
  pushScore(segment, score) {
    if (this.stopped) return;
    const waiting = this.ops.find((op, index) => index > 0 && op.kind === "score" && op.body.segment === segment);
    if (!waiting) return this.push({ kind: "score", body: { segment, score } });
    waiting.body.score = score;
    this.persist();
    this.run();
  }
}
