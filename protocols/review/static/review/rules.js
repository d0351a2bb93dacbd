/**
 * The study's rules for its review questions, as the server checks them
 * (studies/review_questions.py, option_reason): an option may fit only items
 * with a given span status (`only_for_span`), and a flag may go only with
 * given options of another question (`requires`). The page disables what does
 * not fit and says why; the server refuses it anyway.
 */

const SPAN_STATUSES = { found: "found in the output", not_found: "not found in the output", no_span: "not given" };

const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** Why `option` of `question` does not fit `item` with its `answers`, or null. */
export function optionReason(questions, question, option, item, answers) {
  const statuses = isRecord(question.only_for_span) ? question.only_for_span[option] : null;
  if (Array.isArray(statuses) && statuses.length && !statuses.includes(item.span_status)) {
    const allowed = statuses.map((status) => SPAN_STATUSES[status] ?? status).join(" or ");
    return `only for items whose span is ${allowed}`;
  }
  const needed = isRecord(question.requires) ? question.requires[option] : null;
  for (const [key, allowed] of Object.entries(isRecord(needed) ? needed : {})) {
    if (Array.isArray(allowed) && !allowed.includes(answers[key])) {
      const other = questions.find((q) => q.key === key);
      return `only with ${other?.label || key}: ${allowed.join(" or ")}`;
    }
  }
  return null;
}

/**
 * The answers with every ticked flag that no longer fits taken off (after the
 * answer it depends on changed), and the options taken off.
 */
export function withoutUnfitFlags(questions, item, answers) {
  const kept = { ...answers };
  const dropped = [];
  for (const question of questions) {
    if (question.kind !== "multi" || !Array.isArray(kept[question.key])) continue;
    const fit = kept[question.key].filter((option) => !optionReason(questions, question, option, item, kept));
    if (fit.length !== kept[question.key].length) {
      dropped.push(...kept[question.key].filter((option) => !fit.includes(option)));
      kept[question.key] = fit;
    }
  }
  return { answers: kept, dropped };
}
