/**
 * Talking to the task's JSON API: CSRF header, and the save queue.
 *
 * Every add, remove, move and the final submit goes through one queue, sent
 * one at a time in the order the worker did them (a move must reach the
 * server before an annotation in the segment it opens). The queue lives in
 * localStorage under the task token, so a reload or a crash re-sends what was
 * not saved yet; adds carry a client id, so a repeated add is harmless.
 */

const BACKOFF_SECONDS = [1, 2, 4, 8, 10];

function csrfToken() {
  const cookie = document.cookie.split(";").map((part) => part.trim()).find((part) => part.startsWith("csrftoken="));
  return cookie ? decodeURIComponent(cookie.slice("csrftoken=".length)) : "";
}

/** One request; resolves to {status, data} or {status: 0} when the network failed. */
export async function requestJSON(method, url, body) {
  let response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { status: 0, data: null };
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null; // a proxy's HTML error page: the status still tells what happened
  }
  return { status: response.status, data };
}

function errorMessage(result) {
  return (result.data && typeof result.data.error === "string" && result.data.error) || `The server refused (HTTP ${result.status}).`;
}

export class SaveQueue {
  /**
   * handlers: onSaved(op, data), onRejected(op, message), onClosed(message),
   * onRetrying(op, seconds), onIdle().
   */
  constructor(token, api, handlers) {
    this.key = `falte-task-queue:${token}`;
    this.api = api;
    this.handlers = handlers;
    this.ops = this.load();
    this.shared = new Map();
    this.running = false;
    this.stopped = false;
    this.wake = null;
    // Back online: try now rather than at the end of the backoff.
    window.addEventListener("online", () => this.wake?.());
  }

  load() {
    try {
      const ops = JSON.parse(localStorage.getItem(this.key) || "[]");
      return Array.isArray(ops) ? ops.filter((op) => op && typeof op.kind === "string") : [];
    } catch {
      return [];
    }
  }

  persist() {
    try {
      if (this.ops.length) localStorage.setItem(this.key, JSON.stringify(this.ops));
      else localStorage.removeItem(this.key);
    } catch {
      // Storage full or blocked: the queue still works for this page's life.
    }
  }

  get size() {
    return this.ops.length;
  }

  /**
   * An operation every page's queue takes, added by a shared module (the
   * worker's feedback, feedback.js) rather than by the page: its own route
   * and callbacks, so the page's onSaved and onRejected never see it, and
   * beforeSubmit(), called when a submit is queued, so that what the module
   * still holds back goes out before the submit. Call it before run().
   */
  share(kind, { route, onSaved, onRejected, beforeSubmit = () => {} }) {
    this.shared.set(kind, { route, onSaved, onRejected, beforeSubmit });
  }

  /** op: {kind: "add"|"remove"|"move"|"submit", body}. */
  push(op) {
    if (this.stopped) return;
    if (op.kind === "submit") for (const shared of this.shared.values()) shared.beforeSubmit();
    this.ops.push(op);
    this.persist();
    this.run();
  }

  /** Forget unsent work the server can no longer take (submitted or released). */
  clear() {
    this.ops = [];
    this.persist();
  }

  /**
   * The page's own operations: {kind: (body, api) => a requestJSON promise}.
   * "submit" is every page's; a subclass gives the rest.
   */
  routes() {
    return {};
  }

  request(op) {
    const route =
      op.kind === "submit" ? () => requestJSON("POST", this.api.submit, {}) : (this.shared.get(op.kind)?.route ?? this.routes()[op.kind]);
    if (!route) return Promise.resolve({ status: 400, data: { error: `unknown operation ${op.kind}` } });
    return route(op.body, this.api);
  }

  /** Is a change of `key` (keyOf(op) names what an op changes) still on its way to the server? */
  has(key, keyOf) {
    return this.ops.some((op) => keyOf(op) === key);
  }

  sleep(seconds) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, seconds * 1000);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async run() {
    if (this.running) return;
    this.running = true;
    let failures = 0;
    while (this.ops.length && !this.stopped) {
      const op = this.ops[0];
      const result = await this.request(op);
      if (result.status === 0 || result.status >= 500) {
        // Not saved yet: keep it first in line and try again, waiting longer each time.
        const seconds = BACKOFF_SECONDS[Math.min(failures, BACKOFF_SECONDS.length - 1)];
        failures += 1;
        this.handlers.onRetrying(op, seconds);
        await this.sleep(seconds);
        this.wake = null;
        continue;
      }
      failures = 0;
      if (result.status === 409) {
        this.stopped = true;
        this.clear();
        this.handlers.onClosed(errorMessage(result));
        break;
      }
      this.ops.shift();
      this.persist();
      const gone = result.status === 404 && op.kind === "remove";
      const handlers = this.shared.get(op.kind) ?? this.handlers;
      if (result.status < 300 || gone) handlers.onSaved(op, result.data);
      else handlers.onRejected(op, errorMessage(result));
    }
    this.running = false;
    if (!this.ops.length) this.handlers.onIdle();
  }
}

/** Active-time reports go straight out: a lost one is simply added to the next. */
export function reportActivity(api, seconds) {
  return requestJSON("POST", api.activity, { seconds });
}

export function fetchState(api) {
  return requestJSON("GET", api.state);
}
