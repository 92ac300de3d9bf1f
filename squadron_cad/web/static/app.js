// The customizer page: state in the address, live fit, builds streamed, downloads.
import { buildForm, markChanged, readValue, setValue, showErrors } from "./form.js";
import { startBuild, cancelBuild, showBuilt } from "./make.js";
import { $, pageQuery, pageState, postJSON, SERVER_GONE, setBuildable, state } from "./page.js";

const FIT_DELAY_MS = 60; // typing pauses this long before the layout is asked for

async function getJSON(url) {
  const answer = await fetch(url);
  if (!answer.ok) throw new Error((await answer.json()).error || answer.statusText);
  return answer.json();
}

// ---- the address: ?kit=...&tin=...&key=value for each changed value ----

function readAddress() {
  const query = new URLSearchParams(location.search);
  state.kit = query.get("kit") || "";
  state.tin = query.get("tin") || "";
  state.changes = {};
  for (const [key, value] of query) if (key !== "kit" && key !== "tin") state.changes[key] = value;
}

function writeAddress() {
  history.replaceState(null, "", `?${pageQuery()}`);
  $("params-link").href = `/params.yaml?${pageQuery()}`;
}

// ---- kit and tin pickers ----

// What the address named that this page does not know (a typo, a link made with other
// kits): left out, and said so, not dropped in silence. (An opened file: openParams.)
const leftOut = [];

function showLeftOut() {
  const note = $("address-note");
  note.textContent = leftOut.length ? `Left out of this page's address: ${leftOut.join("; ")}.` : "";
  note.hidden = !leftOut.length;
}

function sayNote(text) {
  leftOut.length = 0;
  $("address-note").textContent = text;
  $("address-note").hidden = false;
}

function loadKits({ kits, first }) {
  const picker = $("kit");
  picker.replaceChildren(...kits.map((k) => new Option(`${k.title}`, k.name)));
  const names = kits.map((k) => k.name);
  if (!names.includes(state.kit)) {
    if (state.kit) leftOut.push(`kit=${state.kit} (no such kit here: ${names.join(", ")})`);
    state.kit = first || names[0];
  }
  picker.value = state.kit;
  const kit = kits.find((k) => k.name === state.kit);
  if (state.tin && !kit.tins.includes(state.tin)) {
    const presets = kit.tins.length ? `its presets: ${kit.tins.join(", ")}` : "it has none";
    leftOut.push(`tin=${state.tin} (no such tin preset for ${kit.title}; ${presets})`);
    state.tin = "";
  }
}

function askForm(kit) {
  return getJSON(`/api/form?kit=${encodeURIComponent(kit)}`);
}

async function loadForm(asked = null) {
  state.form = (asked ? await asked : null) || await askForm(state.kit);
  state.kit = state.form.kit;
  state.fields = Object.fromEntries(state.form.fields.map((f) => [f.key, f]));
  for (const key of Object.keys(state.changes)) {
    if (key in state.fields) continue;
    leftOut.push(`${key} (no parameter of ${state.form.title})`);
    delete state.changes[key];
  }
  const tins = $("tin");
  tins.replaceChildren(new Option("my tin (the kit's default sizes)", ""),
    ...state.form.tins.map((t) => new Option(t, t)));
  if (!state.form.tins.includes(state.tin)) state.tin = "";
  $("kit-title").textContent = state.form.title;
  $("credit").textContent = state.form.credit;
  $("paper").hidden = !state.form.makes.paper;
  $("tolerance").hidden = !state.form.makes.tolerance;
  buildForm($("form"), state.form, onEdit, onReset);
  showChanges();
}

// The tin and the changed values in their fields (the others: the fit's values).
function showChanges() {
  $("tin").value = state.tin;
  for (const [key, text] of Object.entries(state.changes)) setValue($("form"), state.fields[key], text);
}

// ---- a parameter file opened: its kit, tin and values in the form ----

const MAX_FILE_BYTES = 60_000; // the server takes requests of up to 64 KB

function chosenFile() {
  const input = $("params-file");
  const file = input.files[0];
  input.value = ""; // the same file, opened again after an edit, opens again
  if (file) openParams(file);
}

// A file dropped anywhere on the page opens (the browser would otherwise leave the page
// for the file, and the maker's values with it).
function droppedFile(event) {
  if (!event.dataTransfer || !event.dataTransfer.types.includes("Files")) return;
  event.preventDefault();
  if (event.type === "drop" && event.dataTransfer.files.length) openParams(event.dataTransfer.files[0]);
}

async function openParams(file) {
  if (file.size > MAX_FILE_BYTES) {
    sayNote(`${file.name} is over ${MAX_FILE_BYTES / 1000} KB: a parameter file is a page of text.`);
    return;
  }
  let answer;
  try {
    const asked = { kit: state.kit, tin: state.tin, name: file.name, text: await file.text() };
    answer = await (await postJSON("/api/params", asked)).json();
  } catch {
    answer = { ok: false, error: SERVER_GONE };
  }
  if (!answer.ok) {
    sayNote(`Could not open it: ${answer.error}`);
    return;
  }
  const otherKit = answer.kit !== state.kit;
  Object.assign(state, { kit: answer.kit, tin: answer.tin, changes: answer.changes });
  if (otherKit) {
    $("kit").value = state.kit;
    await loadForm();
    showBuilt(state.kit);
  } else {
    showChanges();
  }
  const read = Object.keys(answer.values).length;
  const changes = Object.keys(answer.changes).length;
  const values = read === 1 ? "1 value" : `${read} values`;
  let said = `Opened ${file.name}: ${values}, ${changes} of them changed from the kit's and tin's defaults.`;
  if (answer.left_out.length) said += ` Left out: ${answer.left_out.join("; ")}.`;
  sayNote(said);
  changed(true);
}

// ---- edits and the live fit ----

let timer = null;

function onEdit(field) {
  const text = readValue($("form"), field);
  if (state.changes[field.key] === text) return; // a change event after its input events
  state.changes[field.key] = text;
  state.editedAt = performance.now();
  changed();
}

function onReset(field) {
  delete state.changes[field.key];
  changed(true);
}

let pending = null; // the fit asked for the latest edit, until it has answered

function changed(now = false) {
  writeAddress();
  markChanged($("form"), state.changes);
  clearTimeout(timer);
  pending = new Promise((done) => { timer = setTimeout(() => fit().then(done), now ? 0 : FIT_DELAY_MS); });
}

async function buildWhenFitted(what) {
  // Build clicked while an edit's fit is on its way: build only what that fit accepts.
  if (pending) await pending;
  if (state.ok) startBuild(what);
}

// The page's first fit, asked with the form before the form has come: used when the form
// left the address's state as it was (a kit, tin and keys it knows).
let early = null;

function askFit() {
  return { query: pageQuery(), answer: postJSON("/api/fit", pageState()) };
}

export async function fit() {
  const seq = ++state.seq;
  const asked = performance.now();
  const ask = early && early.query === pageQuery() ? early : askFit();
  early = null;
  let answer;
  try {
    answer = await (await ask.answer).json();
  } catch {
    answer = { ok: false, error: SERVER_GONE, keys: [] }; // shown as a refusal: Build waits
  }
  if (seq !== state.seq) return; // a later edit is on its way
  if (answer.values) {
    for (const [key, text] of Object.entries(answer.values)) {
      if (!(key in state.changes) && state.fields[key]) setValue($("form"), state.fields[key], text);
    }
  }
  if (answer.command) $("command").textContent = answer.command;
  const refusal = $("refusal");
  if (answer.ok) {
    showErrors($("form"), [], "");
    refusal.hidden = true;
    $("layout").innerHTML = answer.svg || "<p class='small'>This kit has no box.</p>";
    $("layout").classList.remove("stale");
    $("fit-text").textContent = answer.lines.join("\n");
  } else {
    showErrors($("form"), answer.keys, answer.error);
    refusal.textContent = answer.error;
    refusal.hidden = false;
    $("layout").classList.add("stale");
    $("fit-text").textContent = "";
  }
  setBuildable(Boolean(answer.ok));
  await new Promise((drawn) => requestAnimationFrame(() => drawn())); // painted, not just set
  if (state.editedAt) document.body.dataset.editMs = String(Math.round(performance.now() - state.editedAt));
  document.body.dataset.fitSeq = String(seq);
  document.body.dataset.fitMs = String(Math.round(performance.now() - asked));
  document.body.dataset.ready = "1";
}

// ---- tabs ----

function showTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  }
  for (const panel of document.querySelectorAll(".tab")) panel.hidden = panel.id !== `tab-${name}`;
  if (name === "view3d") import("./viewer.js").then((v) => v.open(state.kit));
}

function wire() {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => showTab(tab.dataset.tab));
  }
  $("kit").addEventListener("change", async () => {
    leftOut.length = 0; // about the address's kit
    showLeftOut();
    state.kit = $("kit").value;
    state.tin = "";
    state.changes = {};
    await loadForm();
    changed(true);
    showBuilt(state.kit);
  });
  $("tin").addEventListener("change", () => {
    state.tin = $("tin").value;
    for (const key of Object.keys(state.changes)) if (key.startsWith("tin.")) delete state.changes[key];
    changed(true);
  });
  $("reset").addEventListener("click", () => {
    state.changes = {};
    leftOut.length = 0; // a clean slate: what an address or a file brought is gone too
    showLeftOut();
    changed(true);
  });
  $("open-params").addEventListener("click", () => $("params-file").click());
  $("params-file").addEventListener("change", chosenFile);
  window.addEventListener("dragover", droppedFile);
  window.addEventListener("drop", droppedFile);
  const build = () => { showTab("make"); buildWhenFitted("kit"); };
  $("build").addEventListener("click", build);
  $("build2").addEventListener("click", build);
  $("paper").addEventListener("click", () => buildWhenFitted("paper"));
  $("tolerance").addEventListener("click", () => buildWhenFitted("tolerance"));
  $("cancel").addEventListener("click", cancelBuild);
}

async function main() {
  readAddress();
  wire();
  // the kits first (the address checked against them), then the kit's form and its fit at
  // once: one round trip, not two
  loadKits(await getJSON("/api/kits"));
  const form = askForm(state.kit);
  early = askFit();
  await loadForm(form);
  showLeftOut();
  writeAddress();
  markChanged($("form"), state.changes);
  await fit();
  showBuilt(state.kit);
}

main();
