/**
 * Active time: seconds during which the tab was visible and the worker used
 * the mouse or keyboard within the last minute. Reading counts, so a minute
 * of stillness is allowed before the clock stops.
 */

const IDLE_AFTER_MS = 60_000;
const TICK_MS = 1000;

/**
 * report(seconds) resolves to true when the server took the seconds; what it
 * did not take is added to the next report. isOpen() false stops the clock.
 */
export function startActivityClock({ intervalSeconds, isOpen, report }) {
  let lastInteraction = Date.now();
  let lastTick = Date.now();
  let unreportedMs = 0;
  let sinceReportMs = 0;
  let sending = false;
  const touch = () => {
    lastInteraction = Date.now();
  };
  for (const type of ["mousemove", "mousedown", "keydown", "wheel", "touchstart", "scroll"]) {
    document.addEventListener(type, touch, { capture: true, passive: true });
  }
  const timer = setInterval(async () => {
    const now = Date.now();
    // A sleeping laptop or a throttled tab can make a tick very late: count at most two seconds.
    const elapsed = Math.min(now - lastTick, 2 * TICK_MS);
    lastTick = now;
    if (!isOpen()) {
      clearInterval(timer);
      return;
    }
    if (document.visibilityState === "visible" && now - lastInteraction < IDLE_AFTER_MS) unreportedMs += elapsed;
    sinceReportMs += elapsed;
    const seconds = Math.floor(unreportedMs / 1000);
    if (sinceReportMs < intervalSeconds * 1000 || seconds < 1 || sending) return;
    sinceReportMs = 0;
    sending = true;
    const sent = Math.min(seconds, 120);
    if (await report(sent)) unreportedMs -= sent * 1000;
    sending = false;
  }, TICK_MS);
}
