// Markdown in an answer's text (a model's lists, bold, tables, code), rendered safely: the
// renderer builds DOM nodes and sets only text, so nothing in the text can become markup, a
// script or a handler; links keep http(s) addresses only and open in a new tab without referrer.
// Covered: paragraphs, headings, bullet and numbered lists, block quotes, fenced code, pipe
// tables, **bold**, *italic*, `code` and [links](https://…).

import { el } from "./core.js";

const INLINE = /(\*\*|__)(.+?)\1|(?<![\w*])([*_])(?!\s)(.+?)(?<!\s)\3(?![\w*])|`([^`]+)`|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/gu;

/** The inline marks of `text` as nodes: strong, em, code and links; everything else is text. */
export function inline(text) {
  const nodes = [];
  let at = 0;
  for (const found of text.matchAll(INLINE)) {
    if (found.index > at) nodes.push(text.slice(at, found.index));
    const [, , bold, , italic, code, label, href] = found;
    if (bold !== undefined) nodes.push(el("strong", {}, inline(bold)));
    else if (italic !== undefined) nodes.push(el("em", {}, inline(italic)));
    else if (code !== undefined) nodes.push(el("code", {}, code));
    else nodes.push(el("a", { href, target: "_blank", rel: "noopener noreferrer" }, label));
    at = found.index + found[0].length;
  }
  if (at < text.length) nodes.push(text.slice(at));
  return nodes;
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function cells(line) {
  return line.trim().replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim());
}

/** Whether `line` starts a block of its own (a fence, heading, list item or table row). */
function startsBlock(line) {
  return /^\s*```/.test(line) || HEADING.test(line) || BULLET.test(line) || NUMBERED.test(line) || line.trimStart().startsWith("|");
}

/** Block-level Markdown as a list of nodes: `lead(paragraph)` renders the first paragraph. */
export function blocks(text, lead = null) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let paragraph = [];
  const flush = () => {
    if (!paragraph.length) return;
    const joined = paragraph.join(" ").trim();
    paragraph = [];
    if (!joined) return;
    out.push(lead && !out.length ? lead(joined) : el("p", {}, inline(joined)));
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (!line.trim()) {
      flush();
      continue;
    }
    if (/^\s*```/.test(line)) {
      flush();
      const code = [];
      for (i += 1; i < lines.length && !/^\s*```/.test(lines[i]); i += 1) code.push(lines[i]);
      out.push(el("pre", {}, el("code", {}, code.join("\n"))));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      // Headings inside an answer stay below the page's own (h3 at most).
      out.push(el(`h${Math.min(6, heading[1].length + 2)}`, {}, inline(heading[2])));
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && RULE.test(lines[i + 1])) {
      flush();
      const head = el("tr", {}, cells(line).map((cell) => el("th", { scope: "col" }, inline(cell))));
      const rows = [];
      for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i += 1) {
        rows.push(el("tr", {}, cells(lines[i]).map((cell) => el("td", {}, inline(cell)))));
      }
      i -= 1;
      out.push(el("div", { class: "scroll" }, el("table", { class: "md-table" }, el("thead", {}, head), el("tbody", {}, rows))));
      continue;
    }
    const list = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : null;
    if (list) {
      flush();
      const items = [];
      for (; i < lines.length && list.test(lines[i]); i += 1) items.push(el("li", {}, inline(list.exec(lines[i])[1])));
      i -= 1;
      out.push(el(list === BULLET ? "ul" : "ol", {}, items));
      continue;
    }
    if (/^>\s?/.test(line)) {
      flush();
      const quoted = [];
      // A quoted passage keeps its source's hard line breaks as lines without ">": they stay
      // in the quote (Markdown's lazy continuation) until a blank line or another block.
      const continues = (next) => /^>\s?/.test(next) || (next.trim() && !startsBlock(next));
      for (; i < lines.length && continues(lines[i]); i += 1) quoted.push(lines[i].replace(/^>\s?/, ""));
      i -= 1;
      out.push(el("blockquote", {}, inline(quoted.join(" "))));
      continue;
    }
    paragraph.push(line);
  }
  flush();
  return out;
}
