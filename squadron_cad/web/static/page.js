// What the page's modules share: its state, the address's query, and the Build buttons.
export const $ = (id) => document.getElementById(id);

export const state = { kit: "", tin: "", changes: {}, form: null, fields: {}, ok: false, seq: 0 };

// What the page says when the server does not answer (stopped with Ctrl-C, say).
export const SERVER_GONE = "The customizer's server is not answering: start it again " +
  "(make serve, or squadron-cad serve), then reload this page.";

export async function postJSON(url, body) {
  return fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) });
}

export function pageQuery() {
  const query = new URLSearchParams({ kit: state.kit });
  if (state.tin) query.set("tin", state.tin);
  for (const [key, value] of Object.entries(state.changes)) query.set(key, value);
  return query.toString();
}

export function pageState() {
  return { kit: state.kit, tin: state.tin || null, changes: state.changes };
}

export function setBuildable(ok) {
  state.ok = ok;
  const idle = !document.body.classList.contains("building");
  $("build").disabled = !(ok && idle);
  $("build2").disabled = !(ok && idle);
  $("paper").disabled = !(ok && idle);
  $("tolerance").disabled = !(ok && idle);
}
