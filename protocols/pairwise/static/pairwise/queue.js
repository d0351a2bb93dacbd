/**
 * The shared save queue (../worker/api.js: one request at a time, in order,
 * retried with backoff, kept in localStorage under the task token), taught
 * the pairwise page's operations. A choice is an upsert on the server, so
 * sending one twice after a reload is harmless.
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class PairwiseQueue extends SaveQueue {
  request(op) {
    switch (op.kind) {
      case "choice":
        return requestJSON("POST", this.api.choices, op.body);
      case "submit":
        return requestJSON("POST", this.api.submit, {});
      default:
        return Promise.resolve({ status: 400, data: { error: `unknown operation ${op.kind}` } });
    }
  }

  /** Is a change of this pair still on its way to the server? */
  has(key, keyOf) {
    return this.ops.some((op) => keyOf(op) === key);
  }
}
