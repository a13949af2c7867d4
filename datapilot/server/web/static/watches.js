// The user's watches beside the inbox: the list (pause or resume, delete) and a "New watch"
// form. A sentence is checked first (a dry run of POST /api/v1/watches) and shows what it was
// understood as, in the sentence's language; Save then makes exactly that watch. Words the
// reader did not read come back as the error, and nothing is saved.

import { api, el, t } from "./core.js";
import { deleteButton } from "./panels.js";

const $ = (id) => document.getElementById(id);
let checked = null; // the sentence the understood lines belong to

function problem(error) {
  $("watch-problem").textContent = error ? (error.message ?? String(error)) : "";
}

function row(watch) {
  const paused = watch.status === "paused";
  const toggle = el("button", { type: "button", class: "small watch-toggle" }, t(paused ? "watch_resume" : "watch_pause"));
  toggle.addEventListener("click", () => act(() => api(`/api/v1/watches/${encodeURIComponent(watch.id)}`, { method: "PATCH", body: { status: paused ? "active" : "paused" } })));
  const remove = deleteButton(watch.text, () => act(() => api(`/api/v1/watches/${encodeURIComponent(watch.id)}`, { method: "DELETE" })));
  return el("li", { class: "row watch-item", dataset: { watch: watch.id, status: watch.status } },
    el("span", { class: "grow watch-text", title: watch.understood }, watch.text),
    el("span", { class: "chip small" }, t(paused ? "watch_paused" : "watch_active")),
    toggle, remove);
}

async function act(work) {
  problem(null);
  try {
    await work();
  } catch (error) {
    problem(error);
  }
  await loadWatches();
}

/** The user's watches, newest first as the server lists them. */
export async function loadWatches() {
  try {
    const found = await api("/api/v1/watches");
    const list = $("watch-list");
    if (!found.length) return list.replaceChildren(el("li", { class: "muted small" }, t("watch_none")));
    list.replaceChildren(...found.map(row));
  } catch (error) {
    problem(error);
  }
}

function forget() {
  checked = null;
  $("watch-understood").hidden = true;
  $("watch-save").hidden = true;
}

async function check(event) {
  event.preventDefault();
  const text = $("watch-text").value.trim();
  forget();
  problem(null);
  $("watch-saved").textContent = "";
  if (!text) return;
  try {
    const seen = await api("/api/v1/watches", { method: "POST", body: { text, dry_run: true } });
    checked = text;
    $("watch-understood").replaceChildren(
      el("li", { class: "muted" }, t("watch_understood")),
      ...seen.described.map((line) => el("li", {}, line)));
    $("watch-understood").hidden = false;
    $("watch-save").hidden = false;
  } catch (error) {
    problem(error);
  }
}

async function save() {
  if (checked === null) return;
  const text = checked;
  try {
    await api("/api/v1/watches", { method: "POST", body: { text } });
  } catch (error) {
    return problem(error);
  }
  forget();
  $("watch-text").value = "";
  $("watch-saved").textContent = t("watch_saved", { text });
  await loadWatches();
}

/** Wire the form and load the list (once, with the inbox). */
export function setUpWatches() {
  $("watch-form").addEventListener("submit", check);
  $("watch-save").addEventListener("click", save);
  // A changed sentence is checked again before it can be saved.
  $("watch-text").addEventListener("input", () => { if (checked !== null && $("watch-text").value.trim() !== checked) forget(); });
  loadWatches();
}
