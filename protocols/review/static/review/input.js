/**
 * The input the output was generated from: its plain text, and its
 * structured data as tables. The data is one of
 *   {"records": [{...}, ...]} or [{...}, ...]   one table, a column per key;
 *   {"tables": [{"title", "columns", "rows"}]}  each table as given;
 * anything else shows as a table of keys and values. Every cell reaches the
 * page as text (dom.js), so "<b>" in a cell shows those characters.
 */

import { el } from "../worker/dom.js";

const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function cell(tag, value) {
  const numeric = typeof value === "number";
  return el(tag, { className: numeric ? "number" : null, scope: tag === "th" ? "col" : null }, cellText(value));
}

function table({ title, columns, rows }) {
  return el(
    "div",
    { className: "data-table-wrap", tabIndex: 0, role: "group", "aria-label": title || "Data table" },
    el(
      "table",
      { className: "data-table" },
      title ? el("caption", {}, title) : null,
      columns.length ? el("thead", {}, el("tr", {}, columns.map((column) => cell("th", column)))) : null,
      el(
        "tbody",
        {},
        rows.map((row) => el("tr", {}, row.map((value) => cell("td", value)))),
      ),
    ),
  );
}

/** Records as one table whose columns are the union of their keys, in order of appearance. */
function recordsTable(records, title) {
  const objects = records.filter(isRecord);
  if (objects.length !== records.length) {
    return table({ title, columns: ["value"], rows: records.map((record) => [record]) });
  }
  const columns = [...new Set(objects.flatMap((record) => Object.keys(record)))];
  return table({ title, columns, rows: objects.map((record) => columns.map((column) => record[column])) });
}

function givenTable(given, number) {
  if (!isRecord(given)) return recordsTable([given], `Table ${number}`);
  const title = typeof given.title === "string" ? given.title : "";
  const columns = Array.isArray(given.columns) ? given.columns : [];
  const rows = (Array.isArray(given.rows) ? given.rows : []).map((row) => (Array.isArray(row) ? row : [row]));
  return table({ title, columns, rows });
}

/** The tables of a document's `data` (an empty list when there is none). */
export function dataTables(data) {
  if (Array.isArray(data)) return data.length ? [recordsTable(data, "")] : [];
  if (!isRecord(data)) return [];
  if (Array.isArray(data.tables)) return data.tables.map((given, index) => givenTable(given, index + 1));
  if (Array.isArray(data.records)) return data.records.length ? [recordsTable(data.records, "")] : [];
  const entries = Object.entries(data);
  return entries.length ? [table({ title: "", columns: ["key", "value"], rows: entries })] : [];
}

/** The input panel's content: the source text, then the data tables. */
export function inputContent(doc) {
  const source = typeof doc.source === "string" ? doc.source : "";
  const tables = dataTables(doc.data);
  if (!source.trim() && !tables.length) return [el("p", { className: "empty" }, "No input is given for this output.")];
  return [source.trim() ? el("div", { className: "source-text" }, source) : null, ...tables];
}
