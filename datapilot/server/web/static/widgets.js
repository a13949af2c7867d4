// The outputs of an answer: interactive charts (Plotly), paginated sortable tables with CSV,
// citations that open their source, and HTML from code in a sandboxed frame.

import { download, el, fileName, t } from "./core.js";

const PAGE_ROWS = 10;
let plotly = null;

/** Plotly.js, loaded once (served from the installed plotly package, never a CDN). */
export function loadPlotly() {
  plotly ??= new Promise((resolve, reject) => {
    if (window.Plotly) return resolve(window.Plotly);
    const script = el("script", { src: "/web/vendor/plotly.min.js", async: true });
    script.addEventListener("load", () => resolve(window.Plotly));
    script.addEventListener("error", () => {
      plotly = null;
      reject(new Error("Plotly.js could not be loaded"));
    });
    document.head.append(script);
  });
  return plotly;
}

/** A chart from a Plotly figure; `png` is the server's PNG (base64) when it sent one. */
export function chart(figure, png) {
  const title = figure.layout?.title?.text ?? figure.layout?.title ?? "";
  const plot = el("div", { class: "plot", role: "img", "aria-label": String(title || "chart") });
  const pngButton = el("button", { type: "button", class: "small" }, t("download_png"));
  const figureEl = el("figure", { class: "chart" }, plot, el("div", { class: "tools" }, pngButton));
  pngButton.addEventListener("click", async () => {
    if (png) {
      const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
      download(new Blob([bytes], { type: "image/png" }), fileName(String(title), "png"));
      return;
    }
    const Plotly = await loadPlotly();
    const url = await Plotly.toImage(plot, { format: "png", width: 1000, height: 500 });
    download(await (await fetch(url)).blob(), fileName(String(title), "png"));
  });
  const dark = document.documentElement.dataset.theme === "dark";
  // The figure's own size would overflow its box: Plotly fits the box instead.
  const { width: _width, height: _height, ...given } = figure.layout ?? {};
  const narrow = window.innerWidth < 600;
  const axis = (name) => ({ ...(given[name] ?? {}), gridcolor: dark ? "rgba(255,255,255,0.12)" : "rgba(0,0,0,0.08)" });
  const layout = {
    ...given,
    autosize: true,
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { ...(given.font ?? {}), color: dark ? "#e5e7eb" : "#1f2937", size: narrow ? 11 : 12 },
    xaxis: axis("xaxis"),
    yaxis: axis("yaxis"),
    ...(narrow ? phoneLayout(given, figure.data ?? [], plot) : {}),
  };
  // On a phone the toolbar would sit on the title; the PNG button below the chart stays.
  const config = { responsive: true, displaylogo: false, ...(narrow ? { displayModeBar: false } : {}) };
  loadPlotly()
    .then((Plotly) => Plotly.newPlot(plot, figure.data, layout, config))
    .catch((error) => plot.replaceWith(el("p", { class: "error", role: "alert" }, error.message)));
  return figureEl;
}

/**
 * A chart's layout at phone width, where titles would cover one another: stacked panels get the
 * height they need (each y-axis title fits beside its panel, a long one on two lines), and the
 * legend goes to the bottom edge, below the x-axis title, with the room its rows take.
 */
function phoneLayout(given, data, plot) {
  const yAxes = Object.keys(given).filter((key) => /^yaxis\d*$/.test(key));
  const out = {};
  if (yAxes.length > 1) {
    plot.style.height = `${260 + 150 * (yAxes.length - 1)}px`;
    for (const key of yAxes) {
      const title = given[key]?.title;
      const text = typeof title === "string" ? title : title?.text;
      if (text && text.length > 12 && text.includes(" (")) {
        out[key] = { ...given[key], title: { ...(typeof title === "object" ? title : {}), text: text.replace(" (", "<br>(") } };
      }
    }
  }
  const names = data.filter((trace) => trace.showlegend !== false && trace.name).map((trace) => String(trace.name));
  const width = names.reduce((sum, name) => sum + 40 + 6.5 * name.length, 0);
  const rows = names.length > 1 ? Math.ceil(width / Math.max(200, (plot.clientWidth || 360) - 20)) : 0;
  return {
    ...out,
    margin: { l: 52, r: 8, t: 48, b: 56 + 20 * rows },
    legend: { ...(given.legend ?? {}), orientation: "h", x: 0, xanchor: "left", yref: "container", y: 0, yanchor: "bottom" },
  };
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toLocaleString(undefined, { maximumFractionDigits: 4 });
  return String(value);
}

function csvOf(columns, rows) {
  const quote = (value) => {
    const text = value === null || value === undefined ? "" : String(value);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns, ...rows].map((row) => row.map(quote).join(",")).join("\r\n") + "\r\n";
}

/** The header of each column: the answer's display names (with units, in its language) when it
 * gives them, else the column with its unit. */
function headerNames(columns, units, headers) {
  if (Array.isArray(headers) && headers.length === columns.length) return headers;
  return columns.map((name) => (units?.[name] ? `${name} (${units[name]})` : name));
}

/** A table `{title, columns, rows, units, headers}`: pages of 10 rows, sortable columns, CSV
 * download (the CSV keeps the machine names of the columns). */
export function table({ title, columns, rows, units, headers: shown }) {
  const names = headerNames(columns, units, shown);
  let page = 0;
  let order = rows.map((_, index) => index);
  let sorted = { column: -1, ascending: true };
  const pages = () => Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
  const body = el("tbody");
  const status = el("span", { class: "page-status", "aria-live": "polite" });
  const previous = el("button", { type: "button", class: "small" }, t("previous"));
  const next = el("button", { type: "button", class: "small" }, t("next"));
  const headers = names.map((name, index) => {
    const button = el("button", { type: "button", class: "sort", title: t("sort_by", { column: name }) }, name);
    const th = el("th", { scope: "col", "aria-sort": "none" }, button);
    button.addEventListener("click", () => sortBy(index, th));
    return th;
  });
  const draw = () => {
    body.replaceChildren(
      ...order.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS).map((index) =>
        el("tr", {}, rows[index].map((value) => el("td", { class: typeof value === "number" ? "num" : "" }, cellText(value)))),
      ),
    );
    status.textContent = t("page_of", { page: page + 1, pages: pages() });
    previous.disabled = page === 0;
    next.disabled = page >= pages() - 1;
  };
  const sortBy = (column, th) => {
    const ascending = sorted.column === column ? !sorted.ascending : true;
    sorted = { column, ascending };
    const sign = ascending ? 1 : -1;
    order = [...order].sort((a, b) => {
      const x = rows[a][column];
      const y = rows[b][column];
      if (x === y) return a - b;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * sign;
    });
    for (const header of headers) header.setAttribute("aria-sort", "none");
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    page = 0;
    draw();
  };
  previous.addEventListener("click", () => { page -= 1; draw(); });
  next.addEventListener("click", () => { page += 1; draw(); });
  const csv = el("button", { type: "button", class: "small" }, t("download_csv"));
  csv.addEventListener("click", () =>
    download(new Blob([csvOf(columns, order.map((index) => rows[index]))], { type: "text/csv" }), fileName(title, "csv")),
  );
  draw();
  const bars = groupedBars(title, columns, rows, names);
  return el(
    "figure",
    { class: "table" },
    el("figcaption", {}, title || "", " ", el("span", { class: "muted small" }, t("rows_count", { count: rows.length }))),
    el("div", { class: "scroll", tabindex: "0" }, el("table", {}, el("thead", {}, el("tr", {}, headers)), body)),
    el("div", { class: "tools" }, previous, status, next, el("span", { class: "grow" }), csv),
    bars ? chart(bars, null) : null,
  );
}

const MAX_BAR_ROWS = 30;
const DATE_LIKE = /^\d{4}-\d{2}(-\d{2})?/;

/**
 * A table comparing a few named rows on several numbers (`AAPL: revenue, net income`) is easier
 * to read as grouped bars: one bar per number, grouped by the row's name. A Plotly figure, or
 * null for tables that are not like that (dates down the side are a series: a line chart's).
 */
function groupedBars(title, columns, rows, names) {
  // One row is one group of bars, which the table already says; a column with no number (a
  // blank recovery date) has no bar.
  if (rows.length < 2 || rows.length > MAX_BAR_ROWS) return null;
  const label = columns.findIndex((_, i) => rows.every((row) => typeof row[i] === "string"));
  if (label < 0 || rows.some((row) => DATE_LIKE.test(row[label]))) return null;
  const numeric = columns.map((_, i) => i).filter((i) => i !== label
    && rows.every((row) => typeof row[i] === "number" || row[i] === null)
    && rows.some((row) => typeof row[i] === "number"));
  if (numeric.length < 2) return null;
  const x = rows.map((row) => row[label]);
  const data = numeric.map((i) => ({
    type: "bar",
    name: names[i],
    x,
    y: rows.map((row) => row[i]),
  }));
  return { data, layout: { title: { text: title || "" }, barmode: "group", xaxis: { type: "category" }, legend: { orientation: "h" } } };
}

/**
 * Citations `{source, page?, start?, end?, text, url?, widget_uuid?}` as a list; each opens its
 * source: a link when it has an address, else the passage itself shown in place.
 */
export function citations(items) {
  const list = el("ol", { class: "citations" });
  for (const item of items) {
    const where = [item.source, item.page ? t("page", { page: item.page }) : ""].filter(Boolean).join(", ");
    const quote = el("blockquote", { hidden: true }, item.text || "");
    const opener = item.url && /^https?:|^\//.test(item.url)
      ? el("a", { href: item.url, target: "_blank", rel: "noopener noreferrer" }, where)
      : el("button", { type: "button", class: "link", "aria-expanded": "false" }, where);
    if (opener.tagName === "BUTTON") {
      opener.addEventListener("click", () => {
        quote.hidden = !quote.hidden;
        opener.setAttribute("aria-expanded", String(!quote.hidden));
      });
    }
    list.append(el("li", {}, opener, quote));
  }
  return el("section", { class: "citations-box" }, el("h3", {}, t("citations")), list);
}

/** HTML from code or an artifact: in a sandboxed frame (scripts run, but on no origin). */
export function sandboxed(html) {
  return el("iframe", { class: "sandboxed", sandbox: "allow-scripts", srcdoc: html, title: "output" });
}
