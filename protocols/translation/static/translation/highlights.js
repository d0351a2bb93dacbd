/**
 * A text as the page draws it: its language and direction, and the errors
 * over its words. A text cell holds exactly its text as text nodes, each
 * piece wrapped in a <span> where something covers it, so that a
 * selection's offsets can be counted over them (../worker/ranges.js).
 */

import { el } from "../worker/dom.js";
import { unitTable } from "../worker/offsets.js";
import { MISSING, SOURCE, TARGET } from "./state.js";

// Languages written right to left (their primary subtag); any other language gets dir="auto".
const RTL = new Set(["ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ku", "ps", "sd", "syr", "ug", "ur", "yi"]);
const LANGUAGE_TAG = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;
const KNOWN_SEVERITIES = new Set(["neutral", "minor", "major", "critical"]);

/** lang and dir of a text cell from the document's language code ("ar", "zh-Hant", ...). */
export function languageAttributes(code) {
  const tag = typeof code === "string" && LANGUAGE_TAG.test(code) ? code : "";
  const primary = tag.split("-")[0].toLowerCase();
  const rtl = RTL.has(primary) || /-(arab|hebr|thaa|syrc)\b/i.test(tag);
  return { lang: tag || null, dir: rtl ? "rtl" : "auto" };
}

export function languageName(code) {
  const { lang } = languageAttributes(code);
  if (!lang) return "";
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}

/** The highlight class of a severity: the known names, else by rank (the most severe looks Major). */
export function severityClass(state, name) {
  const lower = String(name ?? "").toLowerCase();
  if (KNOWN_SEVERITIES.has(lower)) return `sev-${lower}`;
  return state.severityRank(name) >= state.severities.length - 1 ? "sev-major" : "sev-minor";
}

export function errorLabel(state, error) {
  const category = error.category ? (state.category(error.category)?.label ?? error.category) : "";
  const label = category ? `${error.severity} · ${category}` : error.severity;
  // A badge the server puts on an error (e.g. one it pre-filled) leads its label.
  return error.badge ? `${error.badge}: ${label}` : label;
}

export function whereLabel(state, error) {
  if (error.side === MISSING) return "[missing]";
  if (error.side === SOURCE) return "in the source";
  if (error.category && state.category(error.category)?.whole_segment) return "whole segment";
  return "in the translation";
}

/**
 * Everything drawn over one side of one segment: its errors and the span being marked. A
 * translation shows its own errors; the source, shown once, those of every translation.
 */
export function marksFor(state, index, side, output) {
  const own = (e) => e.segment === index && e.side === side && (side !== TARGET || e.output === output);
  const label = (e) => (state.contrastive ? `${state.outputLabel(e.output)}: ${errorLabel(state, e)}` : errorLabel(state, e));
  const marks = state.errors
    .filter(own)
    .map((e) => ({ start: e.start, end: e.end, id: e.client_id, rank: state.severityRank(e.severity), cls: severityClass(state, e.severity), label: label(e), badged: Boolean(e.badge) }));
  const place = state.pending.place;
  if (place && place.segment === index && place.side === side && (side !== TARGET || place.output === output)) {
    marks.push({ start: place.start, end: place.end, pending: true });
  }
  return marks;
}

export function pieces(text, marks) {
  const units = unitTable(text);
  const spans = marks.filter((m) => m.start < m.end && m.end < units.length).map((m) => ({ ...m, from: units[m.start], to: units[m.end] }));
  const cuts = new Set([0, text.length]);
  for (const span of spans) cuts.add(span.from).add(span.to);
  const bounds = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < bounds.length; i += 1) {
    const [from, to] = [bounds[i], bounds[i + 1]];
    const covering = spans.filter((s) => s.from <= from && s.to >= to);
    const chunk = text.slice(from, to);
    if (!covering.length) {
      out.push(document.createTextNode(chunk));
      continue;
    }
    const piece = el("span", { className: "piece" }, chunk);
    const errors = covering.filter((m) => !m.pending);
    if (covering.some((m) => m.pending)) piece.classList.add("hl-pending");
    if (errors.length) {
      // Several errors over one piece: the most severe one's look, every one in the tooltip.
      const worst = errors.reduce((a, b) => (b.rank > a.rank ? b : a));
      piece.classList.add("hl", worst.cls);
      if (errors.length > 1) piece.classList.add("hl-overlap");
      if (errors.some((m) => m.badged)) piece.classList.add("hl-badged");
      piece.dataset.ids = errors.map((m) => m.id).join(" ");
      piece.title = errors.map((m) => m.label).join("; ");
    }
    out.push(piece);
  }
  return out;
}

export function quoted(text) {
  return el("q", { className: "span-text" }, text);
}
