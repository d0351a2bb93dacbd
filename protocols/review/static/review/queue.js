/**
 * The span page's save queue (../task/api.js: one request at a time, in
 * order, retried with backoff, kept in localStorage under the task token),
 * taught the review page's operations. Answers replace an item's stored
 * answers, so sending them twice after a reload is harmless.
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class ReviewQueue extends SaveQueue {
  routes() {
    return { answers: (body, api) => requestJSON("POST", api.answers, { item: body.item, answers: body.answers }) };
  }

  /**
   * Queue an item's answers. Each body holds all of the item's answers, so a
   * newer one waiting behind the request in flight takes the place of an
   * older one still waiting: a burst of clicks or typing sends two requests,
   * not twenty. The first op may be on the wire and is never touched.
   */
  pushAnswers(body) {
    if (this.stopped) return;
    const waiting = this.ops.findIndex((op, index) => index > 0 && op.kind === "answers" && op.body.item === body.item);
    if (waiting === -1) return this.push({ kind: "answers", body });
    this.ops[waiting] = { kind: "answers", body };
    this.persist();
    this.run();
  }
}
