// Shared by the page's modules: words in two languages, element building, the API client
// (the key from session storage as a header, never in a URL) and the LMC event-stream reader.

const data = document.getElementById("page-data").dataset;
const STRINGS = JSON.parse(data.strings);
export const STARTERS = JSON.parse(data.starters);
const KEY = "datapilot.key";
const LANG = "datapilot.lang";

export let lang = localStorage.getItem(LANG) || (document.documentElement.lang.startsWith("zh") ? "zh" : "en");

/** The word for `key` in the page's language, with `{name}` placeholders filled. */
export function t(key, values = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** Switch the page's words to `code` ("en" or "zh") and remember the choice. */
export function setLang(code) {
  lang = code;
  localStorage.setItem(LANG, code);
  document.documentElement.lang = code === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of document.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
}

/** A new element: `el("button", {class: "x", onclick: f}, "text", child)`. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const key = {
  get: () => sessionStorage.getItem(KEY) || "",
  set: (value) => (value ? sessionStorage.setItem(KEY, value) : sessionStorage.removeItem(KEY)),
};

/** Raised for a non-2xx answer: `status` and the server's own words in `message`. */
export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// The page sets this: called on a 401 so the user can sign in.
export const hooks = { unauthorized: () => {} };

function headers(extra = {}) {
  const found = key.get();
  return { ...(found ? { Authorization: `Bearer ${found}` } : {}), ...extra };
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  let code;
  try {
    const body = await response.json();
    code = body.code;
    const detail = body.message ?? body.detail;
    if (typeof detail === "string") message = detail;
    else if (Array.isArray(detail)) message = detail.map((d) => d.msg ?? JSON.stringify(d)).join("; ");
  } catch {
    /* not JSON: keep the status line */
  }
  if (response.status === 401) hooks.unauthorized(message);
  return new ApiError(response.status, message, code);
}

/** Call the API; JSON in and out. Throws ApiError with the server's explanation. */
export async function api(path, { method = "GET", body } = {}) {
  const response = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  return response.status === 204 ? null : response.json();
}

/**
 * POST `body` to `path` and call `onChunk` with each LMC chunk of the server-sent events as it
 * arrives. Resolves with whether the stream said `complete`; a stream that ends without it is
 * broken, and the caller says so.
 */
export async function streamPost(path, body, onChunk, onFirstBytes) {
  const response = await fetch(path, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let complete = false;
  const deliver = (block) => {
    const lines = block.split("\n").filter((line) => line.startsWith("data:"));
    if (!lines.length) return;
    const chunk = JSON.parse(lines.map((line) => line.slice(5).replace(/^ /, "")).join("\n"));
    if (chunk.role === "server" && chunk.type === "status" && chunk.content === "complete") complete = true;
    onChunk(chunk);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (onFirstBytes) {
      onFirstBytes();
      onFirstBytes = null;
    }
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      deliver(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
    }
  }
  if (buffer.trim()) deliver(buffer);
  return complete;
}

/** Save `blob` as a file named `name`. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A short file name from a title. */
export function fileName(title, extension) {
  const base = (title || "datapilot").replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "").slice(0, 60);
  return `${base || "datapilot"}.${extension}`;
}
