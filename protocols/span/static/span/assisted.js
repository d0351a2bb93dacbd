/**
 * The annotation page of an assisted study's suggestion arm (docs/assisted-annotation.md):
 * the page of main.js with the model's suggestions (suggestion_state.js, suggestion_ops.js,
 * suggestions.js).
 * The template loads it instead of main.js for that arm only, so the control arm's page
 * loads no word of it.
 */

import { startSpanPage, taskData } from "./page.js";
import { SuggestionTaskState } from "./suggestion_state.js";
import { suggestionOps, suggestionRoutes } from "./suggestion_ops.js";
import { attachSuggestions } from "./suggestions.js";

await startSpanPage(taskData(), {
  State: SuggestionTaskState,
  routes: suggestionRoutes,
  ops: suggestionOps,
  attach: attachSuggestions,
});
