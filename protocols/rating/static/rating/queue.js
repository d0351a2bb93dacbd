/**
 * The span page's save queue (../task/api.js: one request at a time, in
 * order, retried with backoff, kept in localStorage under the task token),
 * taught the rating page's operations. A score or a judgment is an upsert on
 * the server, so sending one twice after a reload is harmless.
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class RatingQueue extends SaveQueue {
  request(op) {
    switch (op.kind) {
      case "rating":
        return requestJSON("POST", this.api.ratings, { document: op.body.document, score: op.body.score });
      case "judgment":
        return requestJSON("POST", this.api.judgments, op.body);
      case "submit":
        return requestJSON("POST", this.api.submit, {});
      default:
        return Promise.resolve({ status: 400, data: { error: `unknown operation ${op.kind}` } });
    }
  }

  /** Is a change of this unit still on its way to the server? */
  has(key, keyOf) {
    return this.ops.some((op) => keyOf(op) === key);
  }
}
