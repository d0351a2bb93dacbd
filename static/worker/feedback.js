/**
 * The worker's note to the researchers ("Anything you want to tell the
 * researchers?"), just before Submit on every task page
 * (templates/_worker_feedback.html). Optional free text.
 *
 * The text goes through the page's own save queue (api.js), so it has the
 * page's CSRF header, retries and offline keeping: the whole text after a
 * pause in typing and when the field is left, the last one wins on the
 * server. A text waiting behind the request in flight is replaced rather
 * than queued again, and queuing a submit first sends what is still typed.
 * After a reload, a text still in the queue wins over the stored one.
 */

import { requestJSON } from "./api.js";

const SAVE_DELAY_MS = 800;
const KIND = "feedback";

/**
 * `state` gives readOnly and submitting; `isShown()` says whether the page
 * shows the box now (the span page: on the last segment, next to Submit).
 * Returns { render, flush }: the page calls render() from its own render().
 */
export function attachFeedback(queue, state, { isShown = () => true } = {}) {
  const byId = (id) => document.getElementById(id);
  const section = byId("worker-feedback");
  const area = byId("worker-feedback-text");
  const status = byId("worker-feedback-status");
  const url = section.dataset.url;
  let saved = area.defaultValue; // the stored text, as the server rendered it (escaped) into the box
  let timer = null;
  let problem = null;

  const waitingOps = () => queue.ops.filter((op) => op.kind === KIND);
  const latest = () => waitingOps().at(-1)?.body.text ?? saved;
  const locked = () => state.readOnly || Boolean(state.submitting);

  function show() {
    if (problem) status.textContent = `Not saved: ${problem}`;
    else if (timer !== null || waitingOps().length) status.textContent = "Saving…";
    else status.textContent = saved && area.value === saved ? "Saved." : "";
    status.classList.toggle("error", Boolean(problem));
  }

  function send(text) {
    if (text === latest()) return;
    const waiting = queue.ops.find((op, index) => index > 0 && op.kind === KIND);
    if (waiting) {
      waiting.body.text = text;
      queue.persist();
      queue.run();
    } else {
      queue.push({ kind: KIND, body: { text } });
    }
  }

  /** Queue what is typed now (before a submit, a reload, or when the field is left). */
  function flush() {
    if (timer === null) return;
    clearTimeout(timer);
    timer = null;
    if (!state.readOnly) send(area.value);
    show();
  }

  queue.share(KIND, {
    route: (body) => requestJSON("POST", url, { text: body.text }),
    onSaved(op, result) {
      saved = typeof result?.text === "string" ? result.text : op.body.text;
      problem = null;
      show();
    },
    onRejected(op, message) {
      problem = message;
      show();
    },
    beforeSubmit: flush,
  });

  area.value = state.readOnly ? saved : latest();
  area.addEventListener("input", () => {
    if (locked()) return;
    problem = null;
    clearTimeout(timer);
    timer = setTimeout(flush, SAVE_DELAY_MS);
    show();
  });
  area.addEventListener("change", flush);
  window.addEventListener("beforeunload", (event) => {
    flush(); // into the queue, which localStorage keeps for the next visit
    if (!waitingOps().length) return;
    event.preventDefault();
    event.returnValue = "";
  });

  function render() {
    const closed = locked();
    area.readOnly = closed;
    // A closed task with nothing written needs no empty box.
    section.hidden = !isShown() || (state.readOnly && !area.value);
    if (state.readOnly && timer !== null) {
      clearTimeout(timer); // the server takes no more: a text still waiting for its pause stays unsent
      timer = null;
    }
    show();
  }

  render();
  return { render, flush };
}
