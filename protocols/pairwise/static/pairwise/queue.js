/**
 * The shared save queue (../worker/api.js: one request at a time, in order,
 * retried with backoff, kept in localStorage under the task token), taught
 * the pairwise page's operations. A choice is an upsert on the server, so
 * sending one twice after a reload is harmless.
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class PairwiseQueue extends SaveQueue {
  routes() {
    return { choice: (body, api) => requestJSON("POST", api.choices, body) };
  }
}
