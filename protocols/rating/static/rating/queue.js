/**
 * The shared save queue (../worker/api.js: one request at a time, in
 * order, retried with backoff, kept in localStorage under the task token),
 * taught the rating page's operations. A score or a judgment is an upsert on
 * the server, so sending one twice after a reload is harmless.
 */

import { requestJSON, SaveQueue } from "../worker/api.js";

export class RatingQueue extends SaveQueue {
  routes() {
    return {
      rating: (body, api) => requestJSON("POST", api.ratings, { document: body.document, score: body.score }),
      judgment: (body, api) => requestJSON("POST", api.judgments, body),
    };
  }
}
