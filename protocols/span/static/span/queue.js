/**
 * The span page's save queue (../worker/api.js: one request at a time, in
 * order, retried with backoff, kept in localStorage under the task token),
 * taught the span page's operations: add and remove a span, move to a
 * segment, and the answers about the whole document (merged on the server,
 * so sending one twice after a reload is harmless).
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class SpanQueue extends SaveQueue {
  /** `addedRoutes`: the operations a page add-on brings ({kind: (body, api) => promise}). */
  constructor(token, api, handlers, addedRoutes = {}) {
    super(token, api, handlers);
    this.addedRoutes = addedRoutes;
  }

  routes() {
    return {
      add: (body, api) => requestJSON("POST", api.annotations, body),
      remove: (body, api) => requestJSON("DELETE", `${api.annotations}${encodeURIComponent(body.client_id)}/`),
      move: (body, api) => requestJSON("POST", api.move, { segment: body.segment }),
      answers: (body, api) => requestJSON("POST", api.document_answers, { answers: body.answers }),
      ...this.addedRoutes,
    };
  }

  /**
   * Queue changed answers. A body waiting behind the request in flight takes
   * the newer answers in (they are merged on the server anyway), so typing a
   * comment sends two requests, not one per pause. The first op may be on the
   * wire and is never touched. Answers commute with adds, removes and moves,
   * and the page takes none while a submit is queued.
   */
  pushAnswers(answers) {
    if (this.stopped) return;
    const waiting = this.ops.find((op, index) => index > 0 && op.kind === "answers");
    if (!waiting) return this.push({ kind: "answers", body: { answers } });
    Object.assign(waiting.body.answers, answers);
    this.persist();
    this.run();
  }

  get savingAnswers() {
    return this.ops.some((op) => op.kind === "answers");
  }
}
