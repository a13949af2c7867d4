// The sidebar's platform pieces, each shown only when the server has it (GET /api/v1/features):
// knowledge libraries (upload, list, delete), memories (list, delete), tool sources (add a plugin
// URL or an MCP server), usage. Errors show in the panel they happened in.

import { api, el, t } from "./core.js";

const $ = (id) => document.getElementById(id);

function panelError(panel, error) {
  const slot = panel.querySelector(".panel-error");
  if (slot) slot.textContent = error ? error.message ?? String(error) : "";
}

/** A two-step delete button: the first press asks, the second deletes. */
export function deleteButton(label, onDelete) {
  const button = el("button", { type: "button", class: "small danger", "aria-label": `${t("delete")} ${label}` }, t("delete"));
  let armed = false;
  button.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      button.textContent = t("confirm_delete");
      setTimeout(() => { armed = false; button.textContent = t("delete"); }, 4000);
      return;
    }
    await onDelete();
  });
  return button;
}

async function guarded(panel, work) {
  panelError(panel, null);
  try {
    return await work();
  } catch (error) {
    panelError(panel, error);
    return undefined;
  }
}

function base64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] ?? "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export async function loadLibraries() {
  const panel = $("panel-knowledge");
  const libraries = await guarded(panel, () => api("/api/v1/libraries"));
  if (!libraries) return;
  const picker = $("library");
  const chosen = picker.value;
  picker.replaceChildren(el("option", { value: "", "data-i18n": "no_library" }, t("no_library")), ...libraries.map((lib) => el("option", { value: lib.name }, lib.name)));
  picker.value = libraries.some((lib) => lib.name === chosen) ? chosen : "";
  picker.hidden = libraries.length === 0;
  const list = $("library-list");
  if (!libraries.length) return list.replaceChildren(el("li", { class: "muted" }, t("no_libraries")));
  list.replaceChildren(
    ...libraries.map((lib) => {
      const input = el("input", { type: "file", class: "sr", id: `upload-${lib.id}`, accept: ".pdf,.txt,.md,.html,.csv,.docx" });
      input.addEventListener("change", () =>
        guarded(panel, async () => {
          for (const file of input.files) {
            const body = { name: file.name, content_base64: await base64(file), mime: file.type || undefined };
            await api(`/api/v1/libraries/${encodeURIComponent(lib.id)}/documents`, { method: "POST", body });
          }
          await loadLibraries();
        }),
      );
      const count = Array.isArray(lib.documents) ? lib.documents.length : lib.documents ?? 0;
      return el(
        "li",
        { class: "row", dataset: { library: lib.name } },
        el("span", { class: "grow" }, lib.name, " ", el("span", { class: "muted small" }, count === 1 ? t("documents_one") : t("documents", { count }))),
        el("label", { for: input.id, class: "button small", tabindex: "0" }, t("upload")),
        input,
        deleteButton(lib.name, () => guarded(panel, async () => { await api(`/api/v1/libraries/${encodeURIComponent(lib.id)}`, { method: "DELETE" }); await loadLibraries(); })),
      );
    }),
  );
}

export async function loadMemories() {
  const panel = $("panel-memory");
  const memories = await guarded(panel, () => api("/api/v1/memories"));
  if (!memories) return;
  const list = $("memory-list");
  if (!memories.length) return list.replaceChildren(el("li", { class: "muted" }, t("no_memories")));
  list.replaceChildren(
    ...memories.map((memory) =>
      el("li", { class: "row" }, el("span", { class: "grow" }, memory.text),
        deleteButton(memory.text.slice(0, 40), () => guarded(panel, async () => { await api(`/api/v1/memories/${encodeURIComponent(memory.id)}`, { method: "DELETE" }); await loadMemories(); }))),
    ),
  );
}

export async function loadToolSources() {
  const panel = $("panel-tools");
  const sources = await guarded(panel, () => api("/api/v1/tools/sources"));
  if (!sources) return;
  const list = $("tool-list");
  if (!sources.length) return list.replaceChildren(el("li", { class: "muted" }, t("no_tools")));
  list.replaceChildren(
    ...sources.map((source) =>
      el("li", { class: "row" },
        el("span", { class: "grow" }, source.name, " ", el("span", { class: "muted small" }, `${source.kind} · ${t("tools_count", { count: source.tools?.length ?? 0 })}`),
          source.problems?.length ? el("span", { class: "error small", title: source.problems.join("\n") }, ` ${t("problems")}: ${source.problems.length}`) : null,
          // What could not be imported, in the source's own words (the rest imported).
          source.problems?.length ? el("ul", { class: "problems error small" }, source.problems.map((problem) => el("li", {}, problem))) : null),
        deleteButton(source.name, () => guarded(panel, async () => { await api(`/api/v1/tools/sources/${encodeURIComponent(source.id)}`, { method: "DELETE" }); await loadToolSources(); }))),
    ),
  );
}

export async function loadUsage() {
  const report = await guarded($("panel-usage"), () => api("/api/v1/usage"));
  if (!report) return;
  const total = report.total ?? {};
  $("usage-text").textContent = t("tokens", { total: total.total_tokens ?? 0, prompt: total.prompt_tokens ?? 0, completion: total.completion_tokens ?? 0 });
}

/** Show the panels of the features this server has, and wire their forms. */
export function setUpPanels(features, parts = {}) {
  const shown = { "panel-data": features.data_imports, "panel-knowledge": features.knowledge, "panel-memory": features.memory, "panel-tools": features.tool_sources, "panel-usage": features.usage };
  for (const [id, on] of Object.entries(shown)) $(id).hidden = !on;
  $("mode").hidden = !features.interpreter;
  // Code mode the host cannot isolate is hidden, and the page says why and what turns it on.
  const code = parts.interpreter;
  $("code-off").hidden = !code || code.available;
  if (code && !code.available) $("code-off").textContent = t("code_off", { reason: code.reason, fix: code.fix });
  if (features.data_imports) {
    // A file into the warehouse while the server runs; the next question sees it.
    $("data-form").onsubmit = (event) => {
      event.preventDefault();
      guarded($("panel-data"), async () => {
        const file = $("data-file").files[0];
        const body = { name: file.name, content_base64: await base64(file), kind: $("data-kind").value };
        if ($("data-id").value.trim()) body.entity_id = $("data-id").value.trim();
        if ($("data-name").value.trim()) body.display_name = $("data-name").value.trim();
        const done = await api("/api/v1/data/imports", { method: "POST", body });
        $("data-result").textContent = t("data_imported", { rows: done.rows, ids: done.ids.join(", ") });
        $("data-form").reset();
      });
    };
  }
  if (features.knowledge) {
    loadLibraries();
    $("library-form").onsubmit = (event) => {
      event.preventDefault();
      guarded($("panel-knowledge"), async () => {
        await api("/api/v1/libraries", { method: "POST", body: { name: $("library-name").value.trim() } });
        $("library-name").value = "";
        await loadLibraries();
      });
    };
  }
  if (features.memory) {
    loadMemories();
    $("forget-all").onclick = () => guarded($("panel-memory"), async () => { await api("/api/v1/memories", { method: "DELETE" }); await loadMemories(); });
  }
  if (features.tool_sources) {
    loadToolSources();
    $("tool-form").onsubmit = (event) => {
      event.preventDefault();
      guarded($("panel-tools"), async () => {
        const source = await api("/api/v1/tools/sources", { method: "POST", body: { url: $("tool-url").value.trim(), kind: $("tool-kind").value } });
        $("tool-url").value = "";
        if (source?.problems?.length) panelError($("panel-tools"), new Error(source.problems.join("; ")));
        await loadToolSources();
      });
    };
  }
  if (features.usage) loadUsage();
}
