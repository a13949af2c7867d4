// The watches' inbox: each report and alert of the user's watches, newest first, with the unread
// count on a badge (in the top bar and the panel). An event opens in a dialog with its answer and
// charts, and is then marked read. The list is read again every 20 s and when the page is shown.

import { api, el, lang, t } from "./core.js";
import { chart } from "./widgets.js";
import { setUpWatches } from "./watches.js";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 20_000;
let events = [];

function badge(node, count) {
  node.textContent = count > 99 ? "99+" : String(count);
  node.hidden = count === 0;
}

function showCount(unread) {
  badge($("inbox-badge"), unread);
  badge($("inbox-count"), unread);
  $("inbox-button").setAttribute("aria-label", t("inbox_unread", { count: unread }));
  $("inbox-read-all").disabled = unread === 0;
}

function when(event) {
  const moment = new Date(`${event.fired_at}${/[zZ+]/.test(event.fired_at.slice(19)) ? "" : "Z"}`);
  return moment.toLocaleString(lang === "zh" ? "zh-CN" : "en", { dateStyle: "medium", timeStyle: "short" });
}

function title(event) {
  const kind = event.kind === "alert" ? t("watch_alert") : t("watch_report");
  return `${kind} · ${event.text}`;
}

function row(event) {
  const open = el("button", { type: "button", class: "link grow inbox-open", dataset: { event: event.id } },
    el("span", { class: "inbox-title" }, title(event)),
    el("span", { class: "muted small inbox-when" }, ` ${when(event)}`),
    event.late ? el("span", { class: "chip small" }, t("watch_late")) : null);
  open.addEventListener("click", () => openEvent(event));
  return el("li", { class: `row inbox-item${event.read ? "" : " unread"}`, dataset: { event: event.id, status: event.status } }, open);
}

export async function loadInbox() {
  const panel = $("panel-inbox");
  const slot = panel.querySelector(".panel-error");
  try {
    const inbox = await api("/api/v1/watches/inbox?limit=50");
    slot.textContent = "";
    events = inbox.events;
    showCount(inbox.unread);
    const list = $("inbox-list");
    if (!events.length) return list.replaceChildren(el("li", { class: "muted small" }, t("inbox_empty")));
    list.replaceChildren(...events.map(row));
  } catch (error) {
    slot.textContent = error.message ?? String(error);
  }
}

async function openEvent(event) {
  const dialog = $("inbox-dialog");
  $("inbox-title").textContent = title(event);
  const status = event.status === "ok" ? "" : ` · ${t(`watch_status_${event.status}`)}`;
  $("inbox-meta").textContent = `${when(event)}${event.date ? ` · ${event.date}` : ""}${status}`;
  const body = $("inbox-body");
  body.replaceChildren(el("p", { class: "inbox-summary" }, event.summary || event.error || ""));
  if (!dialog.open) dialog.showModal();
  // Charts after the dialog opens: Plotly sizes a chart to its box.
  for (const figure of event.figures ?? []) body.append(chart(figure, null));
  const deliveries = (event.deliveries ?? []).filter((d) => d.channel !== "page");
  if (deliveries.length) {
    body.append(el("ul", { class: "muted small inbox-deliveries" },
      deliveries.map((d) => el("li", {}, `${t(`channel_${d.channel}`)}: ${t(`delivery_${d.state}`)}${d.error ? ` (${d.error})` : ""}`))));
  }
  if (!event.read) {
    try {
      const done = await api("/api/v1/watches/inbox/read", { method: "POST", body: { ids: [event.id] } });
      event.read = true;
      document.querySelector(`.inbox-item[data-event="${CSS.escape(event.id)}"]`)?.classList.remove("unread");
      showCount(done.unread);
    } catch (error) {
      $("panel-inbox").querySelector(".panel-error").textContent = error.message ?? String(error);
    }
  }
}

/** Wire the inbox once the server says it has watches. */
export function setUpInbox() {
  $("panel-inbox").hidden = false;
  $("inbox-button").hidden = false;
  $("inbox-button").addEventListener("click", () => {
    document.body.classList.add("menu-open");
    $("panel-inbox").scrollIntoView({ block: "nearest" });
    ($("inbox-list").querySelector("button") ?? $("inbox-read-all")).focus();
  });
  $("inbox-close").addEventListener("click", () => $("inbox-dialog").close());
  $("inbox-read-all").addEventListener("click", async () => {
    await api("/api/v1/watches/inbox/read", { method: "POST", body: {} });
    await loadInbox();
  });
  loadInbox();
  setUpWatches();
  setInterval(() => { if (!document.hidden) loadInbox(); }, REFRESH_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) loadInbox(); });
}
