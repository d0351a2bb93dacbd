/**
 * Building DOM from data. Everything a study or a worker wrote reaches the
 * page through textContent here, never through innerHTML, so a segment that
 * says "<script>" shows those characters and runs nothing.
 */

/** el("li", {className: "row", dataset: {id}}, "text", childNode, null) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "style") Object.assign(node.style, value);
    else if (name in node && !name.startsWith("aria")) node[name] = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace all children of `node` (strings become text nodes). */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

const rowKeys = new WeakMap(); // a row node built by fillRows -> the key it was built for

/**
 * Like fill, for a list drawn from data and drawn again after every save's answer: a row
 * whose key (a string of everything the row shows) is unchanged keeps its node, and a node
 * already in place is not touched. A worker's click takes about a tenth of a second from
 * press to release; were the pressed button's node replaced in between, the release would
 * land on another node and the browser would send no click. The focus stays put too.
 */
export function fillRows(node, items, keyOf, build) {
  const unused = new Map();
  for (const child of node.children) {
    const key = rowKeys.get(child);
    if (key !== undefined && !unused.has(key)) unused.set(key, child);
  }
  const rows = items.map((item) => {
    const key = keyOf(item);
    const kept = unused.get(key);
    if (kept) {
      unused.delete(key);
      return kept;
    }
    const made = build(item);
    rowKeys.set(made, key);
    return made;
  });
  rows.forEach((row, index) => {
    if (node.childNodes[index] !== row) node.insertBefore(row, node.childNodes[index] ?? null);
  });
  while (node.childNodes.length > rows.length) node.lastChild.remove();
  return node;
}

// Colours come from the taxonomy (validated as #rrggbb by the server); a
// value of any other shape never reaches a style property.
export function safeColor(color, fallback = "#ffe08a") {
  return /^#[0-9a-f]{6}$/i.test(color || "") ? color : fallback;
}

/** Only http(s) links: a researcher's typo must not become a javascript: URL. */
export function safeHttpUrl(url) {
  try {
    const parsed = new URL(url, window.location.href);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}
