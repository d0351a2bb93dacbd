/** What every task page shows once its task can no longer change: a banner and the completion code. */

import { el, fill, safeHttpUrl } from "./dom.js";

/** Banner and completion code once the task can no longer change (or the link to the
 * next document of a qualification round, which shows its code after its last one). */
export function renderClosed(state, els, donePath) {
  const released = state.status === "released";
  const goesOn = Boolean(state.completion?.next);
  const message = released
    ? "This assignment was released after a long time without activity. What you saved is kept, but it can no longer change."
    : goesOn
      ? "This text is submitted. Your next one is opening…"
      : state.status === "submitted"
        ? "You have submitted this task. Thank you!"
        : state.closedMessage;
  els.banner.hidden = !state.readOnly;
  els.banner.className = released || (state.closedMessage && state.status !== "submitted") ? "notice error" : "notice";
  fill(els.banner, state.readOnly ? message : null);

  const completion = state.completion;
  els.completion.hidden = !completion;
  if (goesOn) {
    // No code yet: it comes with the round's last document (handOff opens the next one).
    const next = safeHttpUrl(completion.next);
    if (els.completion.dataset.next === next) return;
    els.completion.dataset.next = next;
    fill(els.completion, next ? el("p", {}, el("a", { className: "button primary", id: "next-document", href: next }, "Go on to the next text")) : null);
    return;
  }
  if (!completion || els.completion.dataset.code === completion.code) return;
  els.completion.dataset.code = completion.code;
  const redirect = completion.redirect_url ? safeHttpUrl(completion.redirect_url) : null;
  const donePage = donePath ? safeHttpUrl(donePath) : null;
  const mturk = completion.mturk;
  fill(
    els.completion,
    el("h2", {}, "Your completion code"),
    el("p", {}, el("span", { className: "completion-code", id: "completion-code" }, completion.code)),
    redirect
      ? el("p", {}, el("a", { className: "button primary", id: "return-to-platform", href: redirect, rel: "noreferrer" }, "Return to Prolific"))
      : null,
    mturk
      ? el(
          "form",
          { id: "mturk-submit", method: "post", action: mturk.action },
          el("input", { type: "hidden", name: "assignmentId", value: mturk.assignmentId }),
          el("input", { type: "hidden", name: "completion_code", value: completion.code }),
          el("button", { className: "primary", type: "submit" }, "Submit the HIT to Mechanical Turk"),
        )
      : null,
    donePage ? el("p", { className: "done-link" }, el("a", { href: donePage }, "This code stays on your completion page.")) : null,
  );
}
