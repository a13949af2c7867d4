// The page: signing in, the assistant picker, the chat list (rename, delete, continue), the
// question box, and each question's live answer. Optional pieces appear when the server has them.

import { api, ApiError, el, hooks, key, lang, setLang, STARTERS, streamPost, t } from "./core.js";
import { setUpPanels, deleteButton, loadUsage, loadMemories } from "./panels.js";
import { loadPlotly } from "./widgets.js";
import { loadInbox, setUpInbox } from "./inbox.js";
import { Turn } from "./turn.js";

const $ = (id) => document.getElementById(id);
const state = { chatId: null, features: {}, assistants: [], busy: false, interpreter: [], inbox: false };
// Figures the browser tests read, per question (performance.now() times): submitted, sent (the
// answer's request leaves), firstBytes (its first bytes arrive), shown (its first event is on
// screen), complete; chatMs is the time spent creating a new chat first.
const timings = (window.datapilotTimings = { asks: [] });

// ---- language, theme, phone menu ---------------------------------------------------------------

function showExamples() {
  $("examples").replaceChildren(
    ...STARTERS[lang].map((q) => el("button", { type: "button", class: "example", dataset: { question: q } }, q)),
  );
}

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem("datapilot.theme", theme);
  const button = $("theme-switch");
  const dark = theme === "dark";
  button.setAttribute("aria-pressed", String(dark));
  button.dataset.i18n = dark ? "light" : "dark";
  button.textContent = t(button.dataset.i18n);
}

function setUpChrome() {
  setTheme(localStorage.getItem("datapilot.theme") || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  $("theme-switch").addEventListener("click", () => setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark"));
  if (localStorage.getItem("datapilot.lang")) {
    setLang(lang);
    showExamples();
  }
  $("lang-switch").addEventListener("click", () => {
    setLang(lang === "zh" ? "en" : "zh");
    showExamples();
    setTheme(document.documentElement.dataset.theme);
    renderChats();
  });
  const menu = $("menu");
  menu.addEventListener("click", () => {
    const open = document.body.classList.toggle("menu-open");
    menu.setAttribute("aria-expanded", String(open));
    if (open) $("new-chat").focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("menu-open")) {
      document.body.classList.remove("menu-open");
      menu.setAttribute("aria-expanded", "false");
      menu.focus();
    }
  });
}

// ---- signing in --------------------------------------------------------------------------------

function askForKey(message) {
  const dialog = $("key-dialog");
  $("key-error").textContent = message || "";
  $("sign-out").hidden = !key.get();
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
}

function setUpKey() {
  // The server's 401 speaks to API clients (headers); the page says what to do here.
  hooks.unauthorized = () => askForKey(key.get() ? t("key_refused") : t("key_needed"));
  $("sign-in").addEventListener("click", () => askForKey(""));
  $("key-cancel").addEventListener("click", () => $("key-dialog").close());
  $("sign-out").addEventListener("click", () => {
    key.set("");
    $("key-dialog").close();
    location.reload();
  });
  $("key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const previous = key.get();
    key.set($("key-input").value.trim());
    try {
      await api("/api/v1/features");
    } catch (error) {
      key.set(previous);
      $("sign-out").hidden = !previous;
      $("key-error").textContent = error.status === 401 ? t("key_refused") : t("key_invalid", { message: error.message });
      return;
    }
    $("key-input").value = "";
    $("key-dialog").close();
    await start();
  });
}

function showSignedIn() {
  $("sign-in").textContent = key.get() ? t("signed_in") : t("sign_in");
  $("sign-in").dataset.i18n = key.get() ? "signed_in" : "sign_in";
}

// ---- assistants and chats ----------------------------------------------------------------------

async function loadAssistants() {
  state.assistants = await api("/api/v1/assistants");
  const picker = $("assistant");
  const chosen = picker.value;
  picker.replaceChildren(
    el("option", { value: "", "data-i18n": "default_assistant" }, t("default_assistant")),
    ...state.assistants.map((a) => el("option", { value: a.id }, a.name)),
  );
  picker.value = state.assistants.some((a) => a.id === chosen) ? chosen : "";
}

let chats = [];

async function loadChats() {
  const panel = $("panel-chats");
  try {
    const listed = await api("/api/v1/chats");
    // A question asked while this list was on its way made a chat the list cannot hold yet:
    // keep it rather than lose the current chat from the panel.
    const made = chats.filter((c) => c.id === state.chatId && !listed.some((l) => l.id === c.id));
    chats = [...made, ...listed];
    panel.querySelector(".panel-error").textContent = "";
  } catch (error) {
    panel.querySelector(".panel-error").textContent = error.message;
  }
  renderChats();
}

function renderChats() {
  const list = $("chat-list");
  if (!chats.length) return list.replaceChildren(el("li", { class: "muted" }, t("no_chats")));
  list.replaceChildren(...chats.map(chatRow));
}

function chatRow(chat) {
  const current = chat.id === state.chatId;
  const open = el("button", { type: "button", class: "link grow chat-name", "aria-current": current ? "true" : undefined }, chat.name || chat.id.slice(0, 8));
  open.addEventListener("click", () => continueChat(chat));
  const rename = el("button", { type: "button", class: "small", "aria-label": `${t("rename")} ${chat.name}` }, t("rename"));
  const row = el("li", { class: `row${current ? " current" : ""}`, dataset: { chat: chat.id } }, open, rename);
  rename.addEventListener("click", () => {
    const input = el("input", { value: chat.name, maxlength: "200", "aria-label": t("rename") });
    const save = el("button", { type: "button", class: "small primary" }, t("save"));
    const commit = async () => {
      try {
        await api(`/api/v1/chats/${chat.id}`, { method: "PATCH", body: { name: input.value.trim() } });
        if (state.unnamed === chat.id) state.unnamed = null; // the user's name wins
        await loadChats();
      } catch (error) {
        $("panel-chats").querySelector(".panel-error").textContent = error.message;
      }
    };
    save.addEventListener("click", commit);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") commit();
      if (event.key === "Escape") renderChats();
    });
    row.replaceChildren(input, save);
    input.focus();
    input.select();
  });
  row.append(
    deleteButton(chat.name, async () => {
      try {
        await api(`/api/v1/chats/${chat.id}`, { method: "DELETE" });
        if (state.chatId === chat.id) newChat();
        await loadChats();
      } catch (error) {
        $("panel-chats").querySelector(".panel-error").textContent = error.message;
      }
    }),
  );
  return row;
}

function newChat() {
  state.chatId = null;
  state.interpreter = [];
  $("conversation").replaceChildren();
  $("examples").hidden = false;
  renderChats();
  $("question").focus();
}

async function continueChat(chat) {
  state.chatId = chat.id;
  $("assistant").value = chat.assistant_id ?? "";
  renderChats();
  const list = $("conversation");
  list.replaceChildren(el("li", { class: "muted" }, t("loading")));
  try {
    const messages = await api(`/api/v1/chats/${chat.id}/messages`);
    list.replaceChildren();
    let turn = null;
    for (const message of messages) {
      if (message.hidden) continue;
      if (message.role === "human") {
        turn?.done();
        turn = new Turn(list, message.content, turnOptions(message.content));
      } else if (message.role === "assistant" && turn && message.content) {
        turn.body.append(turn.message(message.content));
      }
    }
    turn?.done();
    $("examples").hidden = messages.length > 0;
    $("notice").textContent = t("chat_loaded");
  } catch (error) {
    list.replaceChildren(el("li", { class: "error", role: "alert" }, error.message));
  }
  document.body.classList.remove("menu-open");
  $("question").focus();
}

// ---- asking ------------------------------------------------------------------------------------

function turnOptions(question) {
  const picked = state.assistants.find((a) => a.id === $("assistant").value);
  return {
    assistant: picked?.name,
    onFollowUp: (q) => ask(q),
    onRetry: () => ask(question),
    onConfirm: (command, args) => confirmCall(command, args),
    onTitle: (title) => nameChat(title),
  };
}

/** A new chat takes the name of its first answer's intent (entities, measure, window), once;
 * a name the user gave it stays. */
async function nameChat(title) {
  const id = state.chatId;
  if (!title || !id || state.unnamed !== id) return;
  state.unnamed = null;
  try {
    const chat = await api(`/api/v1/chats/${id}`, { method: "PATCH", body: { name: title } });
    chats = chats.map((c) => (c.id === id ? chat : c));
    renderChats();
  } catch {
    /* the question stays the name */
  }
}

/** The interpreter's reply as LMC messages, for the next request's history. */
function recorder(messages) {
  let open = null;
  return (chunk) => {
    // Server chunks and running-line marks are not messages of the history.
    if (chunk.role === "server" || chunk.format === "active_line") return;
    if (chunk.start) open = { role: chunk.role, type: chunk.type, format: chunk.format, content: "" };
    else if (chunk.end && open) {
      messages.push(open);
      open = null;
    } else if (open && typeof chunk.content === "string") open.content += chunk.content;
    else if (chunk.content !== undefined) messages.push({ ...chunk });
  };
}

/** Run one stream into `turn`; a failure says where and offers retry. */
async function run(turn, path, body, record, measure = { submitted: performance.now(), chatMs: 0 }) {
  state.busy = true;
  $("send").disabled = true;
  timings.asks.push(measure);
  measure.sent = performance.now();
  let first = true;
  try {
    const complete = await streamPost(path, body, (chunk) => {
      if (chunk.role === "server" && chunk.type === "status" && chunk.format === "message") {
        return;
      }
      record?.(chunk);
      const scroller = $("scroller");
      const following = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
      turn.chunk(chunk);
      // Follow the answer as it grows, unless the user scrolled up to read.
      if (following) scroller.scrollTop = scroller.scrollHeight;
      if (first) {
        first = false;
        measure.shown = performance.now();
      }
    }, () => (measure.firstBytes = performance.now()));
    measure.complete = performance.now();
    if (!complete) turn.broken(t("stream_ended"));
  } catch (error) {
    if (error instanceof ApiError) {
      turn.error(error.message);
      turn.done();
    } else turn.broken(error.message);
  } finally {
    state.busy = false;
    $("send").disabled = false;
    if (state.features.usage) loadUsage();
    if (state.features.memory) loadMemories();
  }
}

async function ensureChat(question) {
  if (state.chatId) return state.chatId;
  const assistant = $("assistant").value || null;
  const chat = await api("/api/v1/chats", { method: "POST", body: { name: question.slice(0, 60), assistant_id: assistant } });
  state.chatId = chat.id;
  state.unnamed = chat.id; // named after its first answer (see nameChat)
  chats = [chat, ...chats.filter((c) => c.id !== chat.id)];
  renderChats();
  return chat.id;
}

async function ask(question) {
  question = question.trim();
  if (!question || state.busy) return;
  $("examples").hidden = true;
  $("notice").textContent = "";
  const turn = new Turn($("conversation"), question, turnOptions(question));
  const library = $("library").hidden ? "" : $("library").value;
  if (!$("mode").hidden && $("mode").value === "code") {
    // The box holds code here: it waits for Run (the server sends its confirmation).
    state.interpreter.push({ role: "user", type: "code", format: "python", content: question });
    return run(turn, "/api/v1/interpreter", state.interpreter, recorder(state.interpreter));
  }
  if (library) {
    return run(turn, "/api/v1/ask", { question, stream: true, library });
  }
  const measure = { submitted: performance.now(), chatMs: 0 };
  let chatId;
  try {
    chatId = await ensureChat(question);
  } catch (error) {
    turn.error(error.message);
    return turn.done();
  }
  measure.chatMs = performance.now() - measure.submitted;
  const body = { content: question };
  if ($("assistant").value) body.assistant = $("assistant").value;
  return run(turn, `/api/v1/chats/${chatId}/messages`, body, undefined, measure);
}

/** The user's answer to a pending call: the chat (or the interpreter) continues. */
async function confirmCall(command, args) {
  if (!$("mode").hidden && $("mode").value === "code") {
    // The interpreter keeps no pending state: Cancel just never sends `run`; edited code is a
    // new code message, which `run` then approves.
    if (command !== "run") return;
    if (typeof args?.code === "string") state.interpreter.push({ role: "user", type: "code", format: "python", content: args.code });
    const turn = new Turn($("conversation"), t("run"), turnOptions(""));
    state.interpreter.push({ role: "user", type: "command", content: "run" });
    return run(turn, "/api/v1/interpreter", state.interpreter, recorder(state.interpreter));
  }
  const turn = new Turn($("conversation"), command === "run" ? t("run") : t("cancel"), turnOptions(""));
  const body = { command };
  if (args !== undefined) body.arguments = args;
  return run(turn, `/api/v1/chats/${state.chatId}/messages`, body);
}

function setUpComposer() {
  const box = $("question");
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = box.value;
    box.value = "";
    ask(question);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("examples").addEventListener("click", (event) => {
    const button = event.target.closest("button.example");
    if (button) ask(button.dataset.question);
  });
  $("mode").addEventListener("change", () => {
    // Code mode: the box holds Python, which waits for Run before it runs.
    const code = $("mode").value === "code";
    box.classList.toggle("code", code);
    box.dataset.i18nPlaceholder = code ? "placeholder_code" : "placeholder";
    box.placeholder = t(box.dataset.i18nPlaceholder);
    $("examples").hidden = code || $("conversation").children.length > 0;
  });
  $("new-chat").addEventListener("click", newChat);
  document.querySelector(".skip").addEventListener("click", (event) => {
    event.preventDefault();
    box.focus();
  });
}

// ---- start -------------------------------------------------------------------------------------

/** A server without keys answers anyone on its machine: no "Sign in" to offer then (a key
 * already given stays visible, so that it can be removed). */
async function offerSignIn() {
  const discovery = await fetch("/.well-known/mcp.json").then((r) => (r.ok ? r.json() : null)).catch(() => null);
  $("sign-in").hidden = !key.get() && discovery?.authentication?.required === false;
}

async function start() {
  showSignedIn();
  offerSignIn();
  let found;
  try {
    found = await api("/api/v1/features");
  } catch (error) {
    if (error.status !== 401) $("notice").textContent = t("request_failed", { what: "GET /api/v1/features", message: error.message });
    return;
  }
  state.features = found.features;
  setUpPanels(state.features, found.parts);
  if (state.features.watches) {
    if (state.inbox) loadInbox();
    else setUpInbox();
    state.inbox = true;
  }
  await Promise.all([loadAssistants().catch(() => {}), loadChats()]);
}

setUpChrome();
setUpKey();
setUpComposer();
start();
// Fetch Plotly.js once the page is idle, so the first chart does not wait for it.
(window.requestIdleCallback ?? ((f) => setTimeout(f, 200)))(() => loadPlotly().catch(() => {}));
