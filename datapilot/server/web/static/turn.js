// One question and its answer on screen, rendered live from the LMC chunks every front end gets:
// the understood question and window, the plan's steps ticking as calls finish, charts, tables,
// the summary (first sentence prominent), notes, citations, follow-ups, code cells with their
// confirmation, errors where they happened, and a retry when the stream broke.

import { api, el, t } from "./core.js";
import { blocks, inline } from "./markdown.js";
import { chart, citations, sandboxed, table } from "./widgets.js";

const MARKS = /^([✓✗])\s+(.*?)\s+\((\d+) ms\)(?::\s*(.*?))?(?:\s+—\s+(.*))?$/s;

export class Turn {
  /**
   * @param {HTMLElement} list where the turn goes
   * @param {string} question the user's words
   * @param {{assistant?: string, onFollowUp: (q: string) => void, onRetry: () => void,
   *          onConfirm?: (command: string, args?: object) => void}} options
   */
  constructor(list, question, options) {
    this.options = options;
    this.png = null;
    this.block = null; // the open streamed block: {kind, text, node}
    this.steps = [];
    this.answer = null;
    this.started = performance.now();
    this.status = el("p", { class: "status muted", "aria-live": "polite" }, t("thinking"));
    this.intent = el("div", { class: "intent" });
    this.plan = el("ol", { class: "plan", "aria-label": t("plan") });
    this.body = el("div", { class: "answer" });
    this.after = el("div", { class: "after" });
    const who = options.assistant ? el("span", { class: "who" }, options.assistant) : null;
    this.node = el(
      "li",
      { class: "turn", "aria-busy": "true" },
      el("div", { class: "question" }, el("span", { class: "sr" }, `${t("you")}: `), question),
      el("div", { class: "reply" }, who, this.status, this.intent, this.plan, this.body, this.after),
    );
    list.append(this.node);
    this.node.scrollIntoView({ block: "end" });
  }

  /** Render one LMC chunk. */
  chunk(chunk) {
    const { role, type, format, content } = chunk;
    if (chunk.start) return this.open(role, type, format);
    if (chunk.end) return this.close();
    if (this.block && content !== undefined && typeof content === "string" && this.block.matches(role, type, format)) {
      this.block.text += content;
      this.block.update?.();
      return;
    }
    const key = `${role}/${type}/${format ?? ""}`;
    switch (key) {
      case "computer/console/output":
        return this.console(String(content ?? ""));
      case "computer/image/base64.png":
        this.png = content;
        return;
      case "computer/code/plotly.json":
        this.body.append(chart(content, this.png));
        this.png = null;
        return;
      case "computer/table/json":
        return this.body.append(table(content));
      case "computer/code/html":
      case "computer/image/html":
        return this.body.append(sandboxed(String(content ?? "")));
      case "computer/confirmation/tool":
        return this.confirmation(content);
      case "computer/confirmation/execution":
      case "server/confirmation/execution":
        // The interpreter's code waiting for approval: {type: code, format, content}.
        return this.confirmation({ tool: content?.format ?? "code", arguments: { code: content?.content ?? "" } });
      case "server/status/execution":
        return this.execution(content ?? {});
      case "assistant/message/citations":
      case "server/citations/json":
        return this.body.append(citations(content ?? []));
      case "server/error/":
        return this.error(String(content ?? ""));
      case "server/answer/json":
        return this.finish(content);
      case "server/status/notice":
        // How the answer was made (e.g. without a model): a quiet badge, not part of the answer.
        return this.after.append(el("p", { class: "notice-badge muted small", role: "note" }, String(content ?? "")));
      case "server/status/":
        if (content === "complete") this.done();
        return;
      default:
        if (type === "code" && typeof content === "string") this.body.append(this.codeCell(format, content));
        else if (type === "message" && typeof content === "string") this.body.append(this.message(content));
    }
  }

  open(role, type, format) {
    const block = { role, type, format, text: "", matches: (r, ty, f) => r === role && ty === type && (f ?? null) === (format ?? null) };
    if (role === "assistant" && type === "message" && !format) {
      block.node = el("div", { class: "summary" });
      block.update = () => (block.node.textContent = block.text);
      this.body.append(block.node);
    } else if (role === "computer" && type === "console" && format === "output") {
      // The kernel's output as it prints, in one console box.
      block.node = el("pre", { class: "console" });
      block.update = () => (block.node.textContent = block.text);
      this.body.append(block.node);
    } else if (role === "computer" && (type === "image" || format === "html")) {
      // Whole only: shown at the block's end.
    } else if (type === "code" && format && format !== "json") {
      block.node = this.codeCell(format, "");
      block.update = () => (block.node.querySelector("code").textContent = block.text);
      this.body.append(block.node);
    }
    this.block = block;
  }

  close() {
    const block = this.block;
    this.block = null;
    if (!block) return;
    if (block.role === "assistant" && block.type === "code" && block.format === "json") {
      try {
        this.structured(JSON.parse(block.text));
      } catch {
        /* a code block that is not JSON: show it as it is */
        this.body.append(this.codeCell("json", block.text));
      }
    } else if (block.role === "assistant" && block.type === "message" && !block.format) {
      block.node.replaceWith(this.message(block.text));
    } else if (block.role === "computer" && block.type === "image" && block.text) {
      // A figure from the kernel (PNG or JPEG, base64): an image, never markup.
      const mime = block.format === "base64.jpeg" ? "image/jpeg" : "image/png";
      this.body.append(el("figure", { class: "kernel-figure" }, el("img", { src: `data:${mime};base64,${block.text}`, alt: t("figure") })));
    } else if (block.role === "computer" && block.format === "html" && block.text) {
      this.body.append(sandboxed(block.text));
    }
  }

  /** The understood question (intent) or the plan, from their JSON blocks. */
  structured(value) {
    if (value && typeof value.rewritten === "string") {
      const chips = (value.entities ?? []).map((entity) => el("span", { class: "chip" }, (entity.label || entity.name) ? `${entity.label || entity.name} (${entity.id})` : entity.id));
      const window = value.start || value.end ? el("span", { class: "chip window", title: t("window") }, `${value.start ?? "…"} → ${value.end ?? "…"}`) : null;
      this.intent.replaceChildren(
        el("p", {}, el("strong", {}, `${t("understood")}: `), value.rewritten),
        el("p", { class: "chips" }, window, chips),
      );
    } else if (value && Array.isArray(value.steps)) {
      const calls = value.steps.flatMap((step) => step.calls ?? []);
      this.steps = calls.map((call) => {
        const label = call.description || call.interface;
        const node = el("li", { class: "step pending", tabindex: "0", title: call.interface }, el("span", { class: "mark", "aria-hidden": "true" }, "○"), " ", label);
        return { label, node };
      });
      this.plan.replaceChildren(...this.steps.map((step) => step.node));
      this.plan.before(el("h3", { class: "plan-title" }, t("plan")));
    } else {
      this.body.append(this.codeCell("json", JSON.stringify(value, null, 2)));
    }
  }

  console(text) {
    const line = text.trim();
    const found = MARKS.exec(line);
    if (found) {
      const [, mark, label, ms, failure, facts] = found;
      const step = this.steps.find((s) => s.label === label && s.node.classList.contains("pending"));
      if (step) {
        step.node.classList.replace("pending", mark === "✓" ? "ok" : "failed");
        step.node.querySelector(".mark").textContent = mark;
        step.node.title = [`${ms} ms`, failure, facts].filter(Boolean).join(" — ");
        step.node.dataset.ms = ms;
        return;
      }
    }
    this.status.textContent = line;
  }

  message(text) {
    // Markdown (a model's lists, bold, tables), built as nodes: nothing in the text is markup.
    const lead = (paragraph) => {
      // The first sentence stands out: it is the answer; the rest explains it.
      // A sentence ends at .!? before a capital or a digit (so "Inc. returned" and "1.5"
      // do not end one), or at a Chinese full stop.
      const cut = paragraph.search(/(?<=[.!?])\s+(?=[A-Z0-9"'(“*])|(?<=[。！？])/u);
      const first = cut > 0 ? paragraph.slice(0, cut) : paragraph;
      const rest = cut > 0 ? paragraph.slice(cut).replace(/^\s+/, " ") : "";
      return el("p", {}, el("strong", { class: "lead" }, inline(first.replace(/^\*\*(.*)\*\*$/, "$1"))), inline(rest));
    };
    return el("div", { class: "summary" }, blocks(text, lead));
  }

  /** Code in a cell, collapsed unless `open`: the code reproducing an answer would push its
   * chart off-screen; code waiting for the user's Run shows open. */
  codeCell(format, code, open = false) {
    return el("details", { class: "code-cell", open }, el("summary", { class: "muted small" }, `${t("code_cell")} · ${format}`), el("pre", {}, el("code", {}, code)));
  }

  /** A call waiting for the user's go: Run, Edit (the arguments), or Cancel. */
  confirmation(content) {
    const args = JSON.stringify(content?.arguments ?? {}, null, 2);
    const editor = el("textarea", { class: "code", rows: String(Math.min(12, args.split("\n").length + 1)), hidden: true, "aria-label": t("edit") }, args);
    const problem = el("p", { class: "error", role: "alert" });
    const buttons = el("div", { class: "tools" });
    const run = el("button", { type: "button", class: "primary" }, t("run"));
    const edit = el("button", { type: "button" }, t("edit"));
    const cancel = el("button", { type: "button" }, t("cancel"));
    buttons.append(run, edit, cancel);
    const code = content?.arguments?.code;
    // The code shows in its own cell: the message's fenced copy of it would say it twice.
    const said = typeof code === "string" ? String(content?.message ?? "").replace(/```[\s\S]*?```/g, "").trim() : content?.message;
    this.pending = true;
    const card = el(
      "section",
      { class: "confirm", role: "group", "aria-label": t("confirm_run") },
      el("p", {}, el("strong", {}, content?.tool ?? ""), " — ", said || t("confirm_run")),
      typeof code === "string" ? this.codeCell("python", code, true) : el("pre", {}, args),
      editor,
      problem,
      buttons,
    );
    edit.addEventListener("click", () => {
      editor.hidden = !editor.hidden;
      if (!editor.hidden) editor.focus();
    });
    run.addEventListener("click", () => {
      let edited;
      if (!editor.hidden) {
        try {
          edited = JSON.parse(editor.value);
        } catch (error) {
          problem.textContent = error.message;
          return;
        }
      }
      buttons.remove();
      this.options.onConfirm?.("run", edited);
    });
    cancel.addEventListener("click", () => {
      buttons.replaceWith(el("p", { class: "muted" }, t("declined")));
      this.options.onConfirm?.("cancel");
    });
    this.body.append(card);
    run.focus();
  }

  /** The interpreter's run report: how the sandbox fenced the code in, and what it noted. */
  execution(report) {
    const fence = report.isolation;
    const lines = [];
    if (fence) {
      lines.push(el("p", {}, t("sandbox_note", { level: fence.level, network: fence.network, filesystem: fence.filesystem, ms: Math.round(report.elapsed_ms ?? 0) })));
      const limits = fence.limits;
      if (limits) lines.push(el("p", {}, t("sandbox_limits", { cpu: limits.cpu_s, memory: limits.memory_mb, wall: limits.wall_s })));
    }
    for (const note of report.notes ?? []) lines.push(el("p", {}, note));
    if (lines.length) this.after.append(el("section", { class: "sandbox-note muted small", dataset: { status: report.status ?? "" } }, lines));
    if (report.status && report.status !== "ok") this.error(report.status);
  }

  error(message) {
    this.body.append(el("p", { class: "error", role: "alert" }, `${t("error")}: ${message}`));
  }

  /** The whole Answer: notes, sources, quotes; then follow-up questions. */
  finish(answer) {
    this.answer = answer;
    // A note the summary already says is not repeated.
    const said = this.body.textContent;
    const notes = (answer.notes ?? []).filter((note) => !said.includes(note.trim()));
    if (notes.length) this.after.append(el("section", { class: "notes" }, el("h3", {}, t("notes")), el("ul", {}, notes.map((n) => el("li", {}, n)))));
    const quotes = answer.citations ?? answer.quotes ?? [];
    if (quotes.length && !this.node.querySelector(".citations-box")) this.after.append(citations(quotes));
    if (answer.sources?.length) this.after.append(el("p", { class: "muted small sources" }, `${t("sources")}: ${answer.sources.join(", ")}`));
    this.followUps(answer);
  }

  async followUps(answer) {
    if (this.pending) return; // a call waits for Run or Cancel: that is the next step
    try {
      const { suggestions, title } = await api("/api/v1/follow-ups", { method: "POST", body: answer });
      this.options.onTitle?.(title);
      if (!suggestions.length) return;
      const buttons = suggestions.map((q) => el("button", { type: "button", class: "suggestion", onclick: () => this.options.onFollowUp(q) }, q));
      this.after.append(el("section", { class: "suggestions", "aria-label": t("suggestions") }, buttons));
    } catch {
      /* suggestions are a nicety: an answer stands without them */
    }
  }

  done() {
    if (this.block) this.close();
    this.status.remove();
    this.node.removeAttribute("aria-busy");
    this.node.classList.add("complete");
  }

  /** The stream broke: say so where it happened and offer to ask again. */
  broken(reason) {
    if (this.block) this.close();
    this.node.removeAttribute("aria-busy");
    this.status.remove();
    const retry = el("button", { type: "button", class: "primary retry" }, t("retry"));
    retry.addEventListener("click", () => this.options.onRetry());
    this.after.append(el("div", { class: "broken", role: "alert" }, el("p", {}, t("stream_broken", { reason })), retry));
    retry.focus();
  }
}
