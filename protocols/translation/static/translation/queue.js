/**
 * The shared save queue (../worker/api.js: one request at a time, in order,
 * retried with backoff, kept in localStorage under the task token), taught
 * the translation page's operations: add and remove an error, score a
 * segment, move to a segment. An error carries its client id and a score is
 * one row per segment, so sending either again after a reload is harmless.
 * An error and a score carry their translation's `output` (0 on a page of one).
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class TranslationQueue extends SaveQueue {
  routes() {
    return {
      add: (body, api) => requestJSON("POST", api.errors, body),
      remove: (body, api) => requestJSON("DELETE", `${api.errors}${encodeURIComponent(body.client_id)}/`),
      score: (body, api) => requestJSON("POST", api.scores, { output: body.output ?? 0, segment: body.segment, score: body.score }),
      move: (body, api) => requestJSON("POST", api.move, { segment: body.segment }),
    };
  }

  /**
   * Queue a translation's score of a segment. A score of the same one still
   * waiting behind the request in flight takes the new value instead (a
   * slider moved by its arrow keys sends one request, not one per step); the
   * first op may be on the wire and is never touched. Only the value changes,
   * so a move queued after it still finds the segment scored.
   */
  pushScore(segment, output, score) {
    if (this.stopped) return;
    const same = (op) => op.kind === "score" && op.body.segment === segment && (op.body.output ?? 0) === output;
    const waiting = this.ops.find((op, index) => index > 0 && same(op));
    if (!waiting) return this.push({ kind: "score", body: { output, segment, score } });
    waiting.body.score = score;
    this.persist();
    this.run();
  }
}
