// Builds from the page: POST /api/build streams the CLI's JSON Lines as server-sent events.
import { $, pageState, postJSON, SERVER_GONE, setBuildable, state } from "./page.js";

const STAGES = ["scad", "render", "kit checks", "slicer", "layout", "plates", "bom", "previews", "swap", "outputs",
  "picture", "slice"]; // the last two: the tolerance plate's
const FINAL = new Set(["done", "cached"]);
const WORDS = { rendering: "rendering", checking: "checking", cached: "unchanged (cache)",
  done: "rendered", running: "running", finished: "done" };

const NOUNS = { kit: "parts", paper: "steps", tolerance: "pieces" }; // what the bar counts
const LOST_MID_BUILD = "The server stopped answering during the build: its folder holds " +
  "the previous kit or the new one, whole (a build is all or nothing).";
const SHOWN = { error: "FAIL", warning: "warn" }; // the findings a build names, as the CLI does
let total = 0;
let finished = 0;
let noun = "parts";
let findings = []; // this build's failing checks and warnings, one line each

function step(name, status, isStage) {
  const list = $("steps");
  let row = list.querySelector(`li[data-step="${CSS.escape(name)}"]`);
  if (!row) {
    row = document.createElement("li");
    row.dataset.step = name;
    row.className = isStage ? "stage" : "part";
    row.innerHTML = "<span class='name'></span><span class='mini'><span class='fill'></span></span><span class='status'></span>";
    row.querySelector(".name").textContent = name.replaceAll("_", " ");
    list.append(row);
  }
  row.dataset.status = status;
  row.querySelector(".status").textContent = WORDS[status] || status;
  const share = { rendering: 0.4, checking: 0.8, running: 0.5 }[status] ?? (FINAL.has(status) || status === "finished" ? 1 : 0.1);
  row.querySelector(".fill").style.width = `${Math.round(share * 100)}%`;
}

function closeStagesBefore(name, status = "finished") {
  for (const row of $("steps").querySelectorAll("li.stage[data-status=running]")) {
    if (row.dataset.step !== name) step(row.dataset.step, status, true);
  }
}

function overall(text) {
  const share = total ? Math.min(finished / total, 1) : 0;
  $("overall-bar").style.width = `${Math.round(share * 100)}%`;
  $("progress-text").textContent = text;
}

function onEvent(event, what) {
  if (event.event === "start") {
    total = event.parts;
    document.body.dataset.total = String(total);
    overall(`0 of ${total} ${noun}`);
  }
  else if (event.event === "part") {
    const isStage = STAGES.includes(event.part);
    if (isStage && event.status === "running") closeStagesBefore(event.part);
    step(event.part, event.status, isStage);
    if (FINAL.has(event.status)) finished += 1;
    if (event.status === "finished") closeStagesBefore("");
    overall(`${finished} of ${total} ${noun} · ${event.part.replaceAll("_", " ")}: ${WORDS[event.status] || event.status}`);
    document.body.dataset.progress = String(finished);
  } else if (event.event === "finding") {
    const said = event.message || `measured ${event.measured}, expected ${event.expected}`;
    if (SHOWN[event.severity]) findings.push(`${SHOWN[event.severity]} ${event.part}: ${event.check}: ${said}`);
  } else if (event.event === "error") {
    // after the findings it speaks of ("see above"), else alone
    verdict([event.message], "bad", findings.length > 0);
  } else if (event.event === "built") {
    const good = event.committed && !event.failures;
    verdict([`${event.committed ? "Built" : "Not built"}: ${event.parts} parts in ${event.seconds} s, ` +
      `${event.failures} failing check(s), ${event.warnings} warning(s)`, ...findings], good ? "good" : "bad");
  } else if (event.event === "paper" || event.event === "tolerance") {
    if (event.message) verdict([event.message], "good", true);
    else verdict([`${what === "paper" ? "Paper edition" : "Done"}: ${(event.pdf || "").split("/").pop()}`], "good");
  } else if (event.event === "notice") {
    $("progress-text").textContent = event.message;
  }
}

function verdict(lines, tone, append = false) {
  const box = $("verdict");
  if (!append) box.replaceChildren();
  // lines added to a failed or stopped build's verdict (the kit the folder kept) leave it red
  if (!(append && box.classList.contains("bad"))) box.className = `verdict ${tone}`;
  for (const line of lines) {
    const p = document.createElement("p");
    p.textContent = line;
    box.append(p);
  }
  box.hidden = false;
}

function busy(on) {
  document.body.classList.toggle("building", on);
  $("cancel").disabled = !on;
  setBuildable(state.ok);
}

export async function startBuild(what) {
  total = 0;
  finished = 0;
  findings = [];
  noun = NOUNS[what] || "parts";
  $("steps").replaceChildren();
  delete document.body.dataset.progress;
  delete document.body.dataset.total;
  $("progress").hidden = false;
  $("verdict").hidden = true;
  overall(`starting the ${what === "kit" ? "build" : what}...`);
  // the command this build runs, as the maker would type it (the fit shows the kit's)
  $("command").textContent = $("command").textContent.replace(/^squadron-cad \w+/, `squadron-cad ${what === "kit" ? "build" : what}`);
  const keep = what === "kit" && $("keep-failed").checked;
  if (keep && !$("command").textContent.includes("--keep-failed")) $("command").textContent += " --keep-failed";
  busy(true);
  document.body.dataset.buildState = "running";
  const clicked = performance.now();
  let first = true;
  let ended = null;
  try {
    const answer = await postJSON("/api/build", { ...pageState(), what, keep_failed: keep });
    if (!answer.ok) {
      verdict([(await answer.json()).error], "bad");
      return;
    }
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const chunk = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (!chunk.startsWith("data: ")) continue;
        const event = JSON.parse(chunk.slice(6));
        if (event.event === "heartbeat") continue;
        if (first) { document.body.dataset.firstEventMs = String(Math.round(performance.now() - clicked)); first = false; }
        if (event.event === "ended") ended = event;
        else onEvent(event, what);
      }
    }
    if (!ended) throw new Error("the stream closed before the build's end");
  } catch {
    // the server stopped (or was stopped) before the build's end reached the page
    verdict(first ? [SERVER_GONE] : [LOST_MID_BUILD, SERVER_GONE], "bad");
  } finally {
    busy(false);
    await finishedBuild(ended, what);
  }
}

async function finishedBuild(ended, what) {
  // the last stage says no "finished" of its own (the swap, the plate, the paper): the
  // process's end closes it, or says where a stop left it
  if (ended) closeStagesBefore("", ended.stopped ? "stopped" : "finished");
  if (ended && ended.stopped) {
    verdict([`Stopped (${ended.stopped}).`], "bad", true);
  } else if (ended && ended.exit_code === 0) {
    finished = total;
    overall(`${total} of ${total} ${noun}: done`);
  } else if (ended && ended.exit_code !== 0 && $("verdict").hidden) {
    verdict(ended.stderr.length ? ended.stderr : [`the build ended with exit code ${ended.exit_code}`], "bad");
  }
  // the state last: whoever waits on it finds the downloads already listed
  try {
    await showBuilt(state.kit);
  } finally {
    document.body.dataset.buildState = ended ? (ended.stopped ? "cancelled" : `exit-${ended.exit_code}`) : "lost";
  }
}

export async function cancelBuild() {
  $("cancel").disabled = true;
  $("progress-text").textContent = "cancelling...";
  await postJSON("/api/cancel", {});
}

// ---- what is built: verdict and downloads ----

function link(kit, rel, label) {
  const a = document.createElement("a");
  a.href = `/files/${encodeURIComponent(kit)}/${rel.split("/").map(encodeURIComponent).join("/")}`;
  a.download = rel.split("/").pop();
  a.textContent = label || rel;
  return a;
}

function list(title, items) {
  const box = document.createElement("div");
  box.className = "download-group";
  const h = document.createElement("h4");
  h.textContent = title;
  const ul = document.createElement("ul");
  for (const item of items) { const li = document.createElement("li"); li.append(...item); ul.append(li); }
  box.append(h, ul);
  return box;
}

export async function showBuilt(kit) {
  let built;
  try {
    built = await (await fetch(`/api/built?kit=${encodeURIComponent(kit)}`)).json();
  } catch {
    return; // no server: the list stays as it was (the fit or the build says why)
  }
  if (kit !== state.kit) return; // another kit was picked meanwhile: its own list is coming
  const box = $("downloads");
  box.replaceChildren();
  window.dispatchEvent(new CustomEvent("built", { detail: built }));
  if (built.built) showKit(kit, built, box);
  // a paper edition or tolerance plate may be there without the kit: each its own list
  for (const extra of ["paper", "tolerance"]) {
    const depth = (f) => f.split("/").length; // the PDF or the plate first, then its folders
    const mine = built.files.filter((f) => f.startsWith(`${extra}/`) && !f.endsWith(".json"))
      .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
    if (mine.length) box.append(list(extra === "paper" ? "Paper edition" : "Tolerance plate", mine.map((f) => [link(kit, f)])));
  }
  if (!box.childElementCount) box.innerHTML = "<p class='small'>Nothing built yet for this kit.</p>";
}

function showKit(kit, built, box) {
  if (!document.body.classList.contains("building") && $("verdict").hidden) {
    const lines = [`The kit in the server's folder: ${built.parts.length} parts, ${built.checks} checks, ` +
      `${built.failures} failing.`, ...built.summary];
    verdict(lines, built.failures ? "bad" : "good");
  } else if (built.summary.length) {
    // after a failed or stopped build, the summary is the kit the folder kept: said so
    const kept = $("verdict").classList.contains("bad") ? ["The kit the server's folder keeps:"] : [];
    verdict([...kept, ...built.summary], built.failures ? "bad" : "good", true);
  }
  const files = new Set(built.files);
  const zip = document.createElement("a");
  zip.href = `/zip/${encodeURIComponent(kit)}.zip`;
  zip.download = `${kit}.zip`;
  zip.textContent = `${kit}.zip (the whole kit)`;
  const main = [[zip]];
  for (const rel of ["bom.md", "bom.csv", "layout.json", "manifest.json"]) if (files.has(rel)) main.push([link(kit, rel)]);
  box.append(list("The kit", main));
  box.append(list("Plates (3MF in colour)", built.plates.map((p) =>
    [link(kit, p.file, `${p.plate}.3mf`), document.createTextNode(` ${p.pieces} pieces`)])));
  box.append(list("Parts (STL)", built.parts.map((p) =>
    [link(kit, p.file, p.file.split("/").pop()), document.createTextNode(` × ${p.count}`)])));
}
