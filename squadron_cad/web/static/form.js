// The form, drawn from the kit's parameter model (GET /api/form): one input per dotted key.
// Nothing here knows a kit: labels, units, ranges and choices all come from the model.

const COLOURS = ["red", "blue", "green", "yellow", "orange", "purple", "black", "white",
  "grey", "brown", "pink", "cyan", "teal", "navy", "gold", "silver", "olive", "khaki", "maroon"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function rangeText(field) {
  const low = field.minimum, high = field.maximum;
  if (low === undefined && high === undefined) return "";
  const lo = low === undefined ? "" : (field.exclusive_minimum ? `> ${low}` : `${low}`);
  const hi = high === undefined ? "" : (field.exclusive_maximum ? `< ${high}` : `${high}`);
  if (lo && hi && !field.exclusive_minimum && !field.exclusive_maximum) return `${lo} to ${hi}`;
  return [lo, hi ? (hi.startsWith("<") ? hi : `≤ ${hi}`) : ""].filter(Boolean).join(", ");
}

function input(field, onChange) {
  const common = { name: field.key, id: `f-${field.key}`, "data-kind": field.kind };
  let node;
  switch (field.kind) {
    case "number":
    case "integer":
      node = el("input", { ...common, type: "text", inputmode: "decimal", spellcheck: "false" });
      break;
    case "boolean":
      node = el("input", { ...common, type: "checkbox" });
      break;
    case "choice":
      node = el("select", common);
      if (field.optional) node.append(el("option", { value: "", text: "(default)" }));
      for (const choice of field.choices) node.append(el("option", { value: choice, text: choice }));
      break;
    case "choices":
      node = el("fieldset", { ...common, class: "choices" });
      for (const choice of field.choices) {
        const box = el("input", { type: "checkbox", value: choice, name: field.key });
        node.append(el("label", {}, box, document.createTextNode(` ${choice}`)));
      }
      break;
    case "rows":
      node = el("div", { ...common, class: "rows" });
      break;
    case "colour":
      node = el("input", { ...common, type: "text", list: "colour-names", spellcheck: "false" });
      break;
    default:
      node = el("input", { ...common, type: "text", spellcheck: "false" });
  }
  node.addEventListener("input", () => onChange(field));
  node.addEventListener("change", () => onChange(field));
  return node;
}

export function fieldRow(field, onChange, onReset) {
  const unit = field.unit ? ` (${field.unit})` : "";
  const label = el("label", { for: `f-${field.key}`, class: "label", text: `${field.label}${unit}` });
  const control = input(field, onChange);
  const reset = el("button", { type: "button", class: "reset", title: "Back to the default",
    "aria-label": `Reset ${field.key}`, text: "↺" });
  reset.addEventListener("click", () => onReset(field));
  const range = rangeText(field);
  const meta = el("span", { class: "key", text: field.key + (range ? `  ·  ${range}` : "") });
  const error = el("div", { class: "error", role: "alert", id: `e-${field.key}`, hidden: true });
  const swatch = field.kind === "colour" ? el("span", { class: "swatch" }) : null;
  return el("div", { class: `field kind-${field.kind}`, "data-key": field.key },
    label, el("div", { class: "control" }, control, swatch, reset), meta, error);
}

export function buildForm(container, form, onChange, onReset) {
  container.replaceChildren();
  container.append(el("datalist", { id: "colour-names" },
    ...COLOURS.map((name) => el("option", { value: name }))));
  const featured = form.fields.filter((f) => f.featured);
  const top = el("div", { class: "group featured" }, el("h3", { text: "Your tin and the usual changes" }));
  for (const field of featured) top.append(fieldRow(field, onChange, onReset));
  container.append(top);
  for (const section of form.sections) {
    const fields = form.fields.filter((f) => !f.featured && f.section === section.name);
    if (!fields.length) continue;
    const summary = el("summary", { text: section.title });
    const box = el("details", { class: "group", "data-section": section.name }, summary);
    if (section.help) box.append(el("p", { class: "small", text: section.help }));
    for (const field of fields) box.append(fieldRow(field, onChange, onReset));
    container.append(box);
  }
}

// ---- values in and out: everything is text, as the address carries it ----

function rowsInputs(node, field, rows) {
  node.replaceChildren();
  rows.forEach((row, index) => {
    const line = el("div", { class: "row-item" }, el("span", { class: "small", text: `${index + 1}` }));
    for (const column of field.columns) {
      const key = `${field.key}.${index}.${column.key}`;
      let cell;
      if (column.kind === "choice") {
        cell = el("select", { name: key, "aria-label": key, title: column.label });
        if (column.optional) cell.append(el("option", { value: "", text: "(default)" }));
        for (const c of column.choices) cell.append(el("option", { value: c, text: c }));
      } else {
        cell = el("input", { name: key, "aria-label": key, title: column.label, type: "text",
          list: column.kind === "colour" ? "colour-names" : null, spellcheck: "false" });
      }
      cell.value = row[column.key] ?? "";
      cell.addEventListener("input", () => node.dispatchEvent(new Event("input")));
      cell.addEventListener("change", () => node.dispatchEvent(new Event("input")));
      line.append(cell);
    }
    node.append(line);
  });
}

export function setValue(container, field, text) {
  const row = container.querySelector(`.field[data-key="${CSS.escape(field.key)}"]`);
  if (!row) return;
  const node = row.querySelector(`#${CSS.escape(`f-${field.key}`)}`);
  if (field.kind === "boolean") node.checked = text === "true";
  else if (field.kind === "choices") {
    const chosen = new Set(text ? JSON.parse(text) : []);
    for (const box of node.querySelectorAll("input")) box.checked = chosen.has(box.value);
  } else if (field.kind === "rows") {
    if (!node.contains(document.activeElement)) rowsInputs(node, field, text ? JSON.parse(text) : []);
  } else if (document.activeElement !== node) node.value = text;
  const swatch = row.querySelector(".swatch");
  if (swatch) swatch.style.background = /^#[0-9a-f]{6}$/i.test(text) || COLOURS.includes(text) ? text : "transparent";
}

export function readValue(container, field) {
  const node = container.querySelector(`#${CSS.escape(`f-${field.key}`)}`);
  if (field.kind === "boolean") return node.checked ? "true" : "false";
  if (field.kind === "choices") {
    return JSON.stringify([...node.querySelectorAll("input")].filter((b) => b.checked).map((b) => b.value));
  }
  if (field.kind === "rows") {
    const rows = [...node.querySelectorAll(".row-item")].map((line) => {
      const item = {};
      line.querySelectorAll("[name]").forEach((cell, i) => {
        const column = field.columns[i];
        if (cell.value !== "" || !column.optional) item[column.key] = cell.value;
      });
      return item;
    });
    return JSON.stringify(rows);
  }
  return node.value.trim();
}

export function showErrors(container, keys, message) {
  for (const box of container.querySelectorAll(".error")) { box.hidden = true; box.textContent = ""; }
  for (const row of container.querySelectorAll(".field.refused")) row.classList.remove("refused");
  for (const key of keys) {
    const box = container.querySelector(`#${CSS.escape(`e-${key}`)}`);
    if (!box) continue;
    box.textContent = message;
    box.hidden = false;
    const row = box.closest(".field");
    row.classList.add("refused");
    const details = row.closest("details");
    if (details) details.open = true;
  }
}

export function markChanged(container, changes) {
  for (const row of container.querySelectorAll(".field")) {
    row.classList.toggle("changed", row.dataset.key in changes);
  }
}
