// couponledger admin console (docs/design.md §14): a page over the JSON API.
//
// The token (an operator's, or a sign-in JWT from the identity provider,
// pasted: docs/reference/single-sign-on.md) lives in this tab's
// sessionStorage only (gone with the browser session) and travels as the
// Authorization header: never in a URL, never in local storage. Every text
// from the API is set with textContent. The console shows what the
// caller's role may do (GET /v1/me); the server enforces it on every route.
"use strict";

const TOKEN_KEY = "couponledger.admin";
const PAGE = 20;
const main = document.getElementById("main");
let stopPolling = () => {};
// The open template page's refresh of its numbers and chart: a job that ends redraws them at once.
let refreshTemplate = () => {};
// Who signed in (GET /v1/me): name, role, permissions.
let me = null;

/** Whether the signed-in caller's role grants `permission`. */
function may(permission) { return !!me && me.permissions.includes(permission); }

// ---- small helpers -------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "on") for (const [ev, f] of Object.entries(v)) node.addEventListener(ev, f);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

function show(...nodes) {
  // A page that finished loading after a sign-out is not drawn over the sign-in form.
  if (!token() && !nodes.some((n) => n && n.id === "sign-in")) return;
  stopPolling();
  refreshTemplate = () => {};
  main.replaceChildren(...nodes.flat().filter((n) => n !== false && n !== null && n !== undefined));
  main.focus();
}

function token() { return sessionStorage.getItem(TOKEN_KEY); }

/** Calls the API; returns {status, body}. A 401 signs out. */
async function api(method, path, body) {
  const headers = { Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (r.status === 401 && path !== "/v1/me") { signOut(); }
  return { status: r.status, body: json };
}

function errorText(body) {
  return body && body.error ? `${body.error.message} (${body.error.code})` : "unexpected answer";
}

/** A table under its column heads, scrolling sideways when it is wider than the page. */
function table(heads, rows, attrs = {}) {
  return el("div", { class: "scroll" }, el("table", attrs,
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows)));
}

/** "← Newer · 1–20 of 45 · Older →"; `at(offset)` is the hash of each page. */
function pager(offset, total, at) {
  return el("nav", { class: "pager", "aria-label": "Pages" },
    el("a", { href: at(Math.max(0, offset - PAGE)), hidden: offset === 0 }, "← Newer"),
    el("span", {}, `${Math.min(total, offset + 1)}–${Math.min(total, offset + PAGE)} of ${total}`),
    el("a", { href: at(offset + PAGE), hidden: offset + PAGE >= total }, "Older →"));
}

/** A count or rate for people: whole, with thousands separated (16,139, not 16139.2735). */
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
function whole(n) { return WHOLE.format(Number(n) || 0); }

/** An amount as the API writes it ("400000.00"), its whole part grouped for people: 400,000.00. */
function money(v) {
  const [units, cents] = String(v).split(".");
  return `${units.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${cents === undefined ? "" : `.${cents}`}`;
}

/** A count short enough for a chart axis at any scale: 950, 20k, 1.25M, 3B. */
function compact(n) {
  for (const [size, unit] of [[1e9, "B"], [1e6, "M"], [1e3, "k"]]) {
    if (Math.abs(n) >= size) return `${+(n / size).toFixed(2)}${unit}`;
  }
  return String(+Number(n).toFixed(2));
}

/** A date and time, short enough for a table cell. */
function shortTime(iso) {
  return new Date(iso).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

/**
 * One button per status change in `allowed` ("activate", "stop", "void"),
 * each POSTing `${path}/${action}` and then calling `reload`. An action
 * named in `confirmations` asks first, with that question.
 */
/** The permission a change under `path` needs (the server's table: route_rules.rs). */
function writePermission(path) {
  const resource = path.split("/")[2];
  return { templates: "templates:write", packages: "packages:write", channels: "channels:write",
    "code-batches": "code_batches:write", coupons: "coupons:void", "issuance-jobs": "jobs:write" }[resource];
}

function statusButtons(path, name, allowed, reload, confirmations = {}) {
  if (!may(writePermission(path))) return [];
  return allowed.map((action) => el("button", { type: "button", class: action,
    "aria-label": `${action} ${name}`, on: { click: async () => {
      if (confirmations[action] && !confirm(confirmations[action])) return;
      const r = await api("POST", `${path}/${action}`, {});
      if (r.status !== 200) alert(errorText(r.body));
      reload();
    } } }, action));
}

// ---- sign in -------------------------------------------------------------

function signInPage(message) {
  document.getElementById("nav").hidden = true;
  const input = el("input", { id: "token", type: "password", autocomplete: "off", required: true });
  const error = el("p", { class: "error", role: "alert" }, message || "");
  const form = el("form", { id: "sign-in", class: "card", on: { submit: async (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    const r = await api("GET", "/v1/me");
    if (r.status === 200) { input.value = ""; me = r.body; route(); return; }
    sessionStorage.removeItem(TOKEN_KEY);
    error.textContent = [401, 403].includes(r.status)
      ? `That token is not the admin token. ${errorText(r.body)}` : errorText(r.body);
  } } },
    el("h1", {}, "Sign in"),
    el("label", { for: "token" }, "Admin token, an operator's token, or your sign-in token (JWT)"), input,
    el("button", { type: "submit" }, "Sign in"), error);
  show(form);
  input.focus();
}

function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  me = null;
  signInPage("Signed out.");
}

// ---- templates -----------------------------------------------------------

async function templatesPage(params) {
  const status = params.get("status") || "";
  const offset = Math.max(0, Number(params.get("offset") || 0));
  const query = new URLSearchParams({ offset, limit: PAGE });
  if (status) query.set("status", status);
  const r = await api("GET", `/v1/templates?${query}`);
  if (r.status !== 200) return show(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const filter = el("select", { id: "status-filter", on: { change: (e) => {
    location.hash = `#/templates?status=${e.target.value}`;
  } } }, ["", "draft", "active", "stopped", "void"].map((s) =>
    el("option", { value: s, selected: s === status }, s || "all")));
  const rows = r.body.templates.map((t) => el("tr", {},
    el("td", {}, el("a", { href: `#/templates/${t.sn}` }, t.name)),
    el("td", {}, el("code", {}, t.sn)),
    el("td", {}, el("span", { class: `status ${t.status}` }, t.status)),
    el("td", { class: "num" }, `${whole(t.issued)} / ${whole(t.total)}`),
    el("td", {}, actions(t, () => templatesPage(params)))));
  show(el("h1", {}, "Templates"),
    el("p", {}, el("label", { for: "status-filter" }, "Status "), filter, " ", el("a", { href: "#/new" }, "New template")),
    table(["Name", "SN", "Status", "Issued / total", "Actions"], rows),
    pager(offset, r.body.total, (at) => `#/templates?status=${status}&offset=${at}`));
}

/** A void template's coupons being voided: how many are left, refreshed
 *  until none is. */
function voiding(t, reload) {
  if (t.unused_left === undefined) return "";
  if (t.unused_left === 0) return el("p", { id: "voiding" }, "Every coupon of this template is void.");
  setTimeout(() => { if (location.hash.includes(t.sn)) reload(); }, 3000);
  return el("p", { id: "voiding", "aria-live": "polite" },
    `Voiding its coupons: ${t.unused_left} unused left (the scanner voids them in batches).`);
}

/** Activate / stop / void buttons allowed by the template's status. */
function actions(t, reload) {
  const allowed = { draft: ["activate", "void"], active: ["stop", "void"], stopped: ["activate", "void"], void: [] };
  return statusButtons(`/v1/templates/${t.sn}`, t.name, allowed[t.status] || [], reload,
    { void: `Void ${t.name}? Its coupons can no longer be used.` });
}

// ---- a template ----------------------------------------------------------

function termsInWords(t) {
  const d = t.discount || {};
  const money = (v) => `${v}`;
  const rule = {
    fixed_off: () => `满${money(d.threshold)}减${money(d.amount)}`,
    per_threshold_off: () => `每满${money(d.step)}减${money(d.amount)}${d.max_off ? `, at most ${d.max_off}` : ""}`,
    rate: () => `${d.rate_off} off${d.threshold ? ` over ${d.threshold}` : ""}${d.max_off ? `, at most ${d.max_off}` : ""}`,
    ladder: () => (d.tiers || []).map((x) => `满${x.threshold}减${x.amount}`).join(" / "),
  }[d.type];
  const scope = (t.use_scope || []).map((s) => `${s.kind.replace("_", " ")} ${s.values.join(" or ")}`);
  return [rule ? rule() : "discount", t.kind, ...scope].join(", ");
}

async function templatePage(sn) {
  const r = await api("GET", `/v1/templates/${encodeURIComponent(sn)}`);
  if (r.status !== 200) return show(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const t = r.body;
  const stats = el("dl", { class: "stats", id: "stats" });
  const chart = el("div", { class: "chart", id: "history", role: "img",
    "aria-label": "Coupons issued, and of those used, over time" });
  const summary = el("p", { id: "history-summary", "aria-live": "polite" });
  const changes = el("div", { id: "changes" });
  const bucket = bucketFor(t.created_at);
  show(el("h1", {}, t.name),
    el("p", { class: "terms" }, termsInWords(t)),
    campaignFacts(t),
    el("p", {}, el("span", { class: `status ${t.status}` }, t.status), " ", el("code", {}, t.sn), " ",
      actions(t, () => templatePage(sn)), " ", el("a", { href: `#/codes?template_sn=${t.sn}` }, "Code batches")),
    may("templates:write") && voiding(t, () => templatePage(sn)),
    el("h2", {}, "Live numbers"), stats,
    el("h2", {}, "Over time"), chart, summary,
    el("p", { class: "hint" }, `Coupons issued to date by ${bucket}, from the ledger's own records, and how many `,
      "of them are used by now; refreshed every 5 s while this page is open."),
    t.budget && [el("h2", {}, "Budget"), budgetSection(t, () => templatePage(sn))],
    may("templates:write") && [el("h2", {}, "Quota and reminders"), settingsForms(t),
      el("h2", {}, "Campaign"), campaignForm(t)],
    may("channels:read") && [el("h2", {}, "Channels"), channelsSection(t)],
    may("allow_lists:read") && [el("h2", {}, "Allow-list"), allowListSection(t)],
    may("jobs:write") && [el("h2", {}, "Bulk issuance"), uploadForm(t)],
    may("jobs:read") && [el("h2", {}, "Jobs"), jobsSection(t)],
    el("h2", {}, "Changes"), changes,
    el("p", { class: "hint" }, "The template's own events: who created, activated, stopped, changed it."));
  const history = historyChart(t, bucket, chart, summary);
  const sample = async () => {
    const s = await api("GET", `/v1/templates/${encodeURIComponent(sn)}/stats`);
    if (s.status !== 200) return;
    const b = s.body;
    const unused = (b.by_status && b.by_status.unused && b.by_status.unused.count) || 0;
    const counts = [["issued", b.issued], ["unused", unused], ["locked", b.locked], ["used", b.used],
      ["refunded", b.refunded], ["expired", b.expired], ["void", b.void]].map(([k, v]) => [k, whole(v)]);
    const budget = b.budget ? [["budget spent", money(b.budget.spent)], ["budget reserved", money(b.budget.reserved)],
      ["budget left", money(b.budget.left)]] : [];
    stats.replaceChildren(...[...counts, ["liability", money(b.liability)], ["cost", money(b.cost)], ...budget]
      .flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-stat": k }, String(v))]));
  };
  const changed = async () => {
    const e = await api("GET", `/v1/templates/${encodeURIComponent(sn)}/events`);
    if (e.status === 200) changes.replaceChildren(eventList(e.body, "template-events"));
  };
  await Promise.all([sample(), history(), changed()]);
  refreshTemplate = () => { sample(); history(); changed(); };
  const timer = setInterval(() => refreshTemplate(), 5000);
  stopPolling = () => clearInterval(timer);
}

/** The bucket a template's chart is drawn in: minutes through its first 23 hours, hours through 60 days, then
 *  days (each span well within the route's 1,500 buckets). */
function bucketFor(createdAt) {
  const age = Date.now() - new Date(createdAt).getTime();
  if (age < 23 * 3600e3) return "minute";
  return age < 60 * 86400e3 ? "hour" : "day";
}

/**
 * The template's chart from the ledger's history (GET .../history): coupons issued to date and, of those, used
 * by now, so that what happened before the page was opened shows too. Returns a refresh: after the first
 * answer it asks only from the last bucket on (that one may have grown).
 */
function historyChart(t, bucket, box, summary) {
  let buckets = [];
  let to = null;
  const plot = new uPlot(chartOptions(box), [[], [], []], box);
  return async () => {
    const q = new URLSearchParams({ bucket });
    if (buckets.length) q.set("from", buckets[buckets.length - 1].start);
    const r = await api("GET", `/v1/templates/${encodeURIComponent(t.sn)}/history?${q}`);
    if (r.status !== 200) { summary.textContent = errorText(r.body); return; }
    const fresh = r.body.buckets;
    const since = fresh.length ? Date.parse(fresh[0].start) : Infinity;
    buckets = buckets.filter((b) => Date.parse(b.start) < since).concat(fresh);
    to = r.body.to;
    drawHistory(plot, buckets, to, bucket, box, summary);
  };
}

const BUCKET_SECONDS = { minute: 60, hour: 3600, day: 86400 };

/**
 * Issued and used to date as steps: each bucket's coupons counted from its start. A zero before the first bucket
 * (nothing of the range was issued before it) reaches back at least 15 buckets, so that a young template's burst
 * reads as a jump, not as the whole chart. Then the totals and the busiest bucket in words.
 */
function drawHistory(plot, buckets, to, bucket, box, summary) {
  const width = BUCKET_SECONDS[bucket];
  const end = Date.parse(to) / 1000;
  const first = buckets.length ? Date.parse(buckets[0].start) / 1000 : end;
  const x = [Math.min(first - width, end - 15 * width)], issued = [0], used = [0];
  let sumIssued = 0, sumUsed = 0, busiest = null;
  for (const b of buckets) {
    sumIssued += b.issued; sumUsed += b.used;
    if (b.issued > 0 && (!busiest || b.issued > busiest.issued)) busiest = b;
    x.push(Date.parse(b.start) / 1000); issued.push(sumIssued); used.push(sumUsed);
  }
  x.push(end); issued.push(sumIssued); used.push(sumUsed);
  plot.setData([x, issued, used]);
  box.dataset.issued = String(sumIssued);
  box.dataset.used = String(sumUsed);
  const since = buckets.length ? shortTime(buckets[0].start) : "";
  summary.textContent = busiest
    ? `${whole(sumIssued)} issued since ${since}, ${whole(sumUsed)} of them used; busiest ${bucket}: `
      + `${shortTime(busiest.start)}, ${whole(busiest.issued)} issued.`
    : `Nothing issued since ${since}.`;
}

const steps = uPlot.paths.stepped({ align: 1 });

/** A chart of counts over time whose y-axis labels are short (20k, 1.2M) and whose axis is as wide as they are. */
function chartOptions(box) {
  const y = {
    values: (u, splits) => {
      const labels = splits.map(compact);
      box.dataset.yTicks = labels.join(" ");
      return labels;
    },
    size: fitLabels,
  };
  return {
    width: Math.max(280, Math.min(1060, main.clientWidth - 40)), height: 240,
    series: [{}, { label: "issued", stroke: "#2563eb", width: 2, paths: steps },
      { label: "used", stroke: "#16a34a", width: 2, paths: steps }],
    scales: { y: { range: (u, min, max) => [0, Math.max(10, (max || 0) * 1.1)] } },
    axes: [{}, y],
  };
}

/** An axis's width from its longest label (uPlot's own is fixed and clips wide numbers). */
function fitLabels(u, values, axisIdx, cycleNum) {
  const axis = u.axes[axisIdx];
  if (cycleNum > 1) return axis._size;
  const longest = (values || []).reduce((a, v) => (String(v).length > a.length ? String(v) : a), "");
  u.ctx.font = axis.font[0];
  const text = longest ? u.ctx.measureText(longest).width / devicePixelRatio : 0;
  return Math.ceil(axis.ticks.size + axis.gap + text + 8);
}

/** Who may claim it, the shop, the window, the limit and the validity of coupons issued now, and the
 *  description apps show. */
function campaignFacts(t) {
  const e = t.eligibility;
  const who = !e ? "anyone a listed channel names" : [
    e.user_tags && (e.user_tags.all ? `users tagged all of ${e.user_tags.all.join(", ")}`
      : `users tagged any of ${e.user_tags.any.join(", ")}`),
    e.regions && e.regions.length && `in ${e.regions.join(", ")}`,
    e.new_users_only && "new users only",
    e.allow_list && "on the allow-list",
  ].filter(Boolean).join("; ");
  const v = t.validity || {};
  const validity = v.type === "absolute" ? `valid ${shortTime(v.begin)} to ${shortTime(v.end)}`
    : `valid ${v.end_days} days after issue` + (v.begin_days ? ` (from day ${v.begin_days})` : "");
  const facts = [["Who may claim", who], ["Shop", t.shop_id || "the platform's"],
    ["Claims open", `${shortTime(t.issue_window.begin)} to ${shortTime(t.issue_window.end)}`],
    ["Per user", whole(t.per_user_limit)], ["Coupons issued now", validity]];
  return el("div", { id: "campaign" },
    t.description ? el("p", { class: "description" }, t.description) : "",
    el("dl", { class: "stats" }, ...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
}

/** What the template's coupons may cost: spent, reserved by open locks and left, in all and today; operators
 *  who may change templates raise it (it can only grow). */
function budgetSection(t, reload) {
  const b = t.budget;
  const facts = [["total", b.total], ["spent", b.spent], ["reserved", b.reserved], ["left", b.left]];
  if (b.today) facts.push(["daily cap", b.daily], [`spent on ${b.today.day}`, b.today.spent],
    [`reserved on ${b.today.day}`, b.today.reserved], [`left on ${b.today.day}`, b.today.left]);
  const list = el("dl", { class: "stats", id: "budget" },
    ...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-budget": k }, money(v))]));
  if (!may("templates:write")) return list;
  const total = el("input", { id: "budget-total", inputmode: "decimal", value: b.total, required: true });
  const daily = el("input", { id: "budget-daily", inputmode: "decimal", value: b.daily || "", disabled: !b.daily });
  const note = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "card inline", on: { submit: async (e) => {
    e.preventDefault();
    const budget = { total: total.value.trim() };
    if (b.daily) budget.daily = daily.value.trim();
    const r = await api("PATCH", `/v1/templates/${t.sn}`, { budget });
    if (r.status === 200) return reload();
    note.textContent = errorText(r.body);
  } } }, el("label", { for: "budget-total" }, "Budget in all (it can only grow)"), total,
    el("label", { for: "budget-daily" }, "Per day"), daily,
    el("button", { type: "submit" }, "Raise budget"), note);
  return [list, form];
}

/** A datetime-local input's value for an instant, in the browser's zone. */
function localInput(iso) {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60e3).toISOString().slice(0, 16);
}

/** Move the end of claims, raise the per-user limit, change how long coupons issued from now on are valid
 *  (a relative validity's days, or an absolute one's end). Only what changed is sent. */
function campaignForm(t) {
  const end = el("input", { id: "window-end", type: "datetime-local", value: localInput(t.issue_window.end) });
  const limit = el("input", { id: "per-user", type: "number", min: t.per_user_limit, step: 1,
    value: t.per_user_limit });
  const v = t.validity || {};
  const relative = v.type === "relative";
  const validity = relative
    ? el("input", { id: "valid-days", type: "number", min: 0, step: 1, value: v.end_days })
    : el("input", { id: "valid-until", type: "datetime-local", value: localInput(v.end) });
  const note = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "card wide", on: { submit: async (e) => {
    e.preventDefault();
    const change = {};
    if (end.value !== localInput(t.issue_window.end)) change.issue_window = { end: new Date(end.value).toISOString() };
    if (Number(limit.value) !== t.per_user_limit) change.per_user_limit = Number(limit.value);
    if (relative && Number(validity.value) !== v.end_days) {
      change.validity = { type: "relative", begin_days: v.begin_days, end_days: Number(validity.value) };
    } else if (!relative && validity.value !== localInput(v.end)) {
      change.validity = { type: "absolute", begin: v.begin, end: new Date(validity.value).toISOString() };
    }
    if (Object.keys(change).length === 0) { note.textContent = "Nothing changed."; return; }
    const r = await api("PATCH", `/v1/templates/${t.sn}`, change);
    if (r.status === 200) return templatePage(t.sn);
    note.textContent = errorText(r.body);
  } } },
    el("label", { for: "window-end" }, "Claims close at"), end,
    el("label", { for: "per-user" }, "Coupons per user (it can only grow)"), limit,
    el("label", { for: relative ? "valid-days" : "valid-until" },
      relative ? "Coupons issued from now on are valid for (days)" : "Coupons issued from now on are valid until"),
    validity,
    el("span", { class: "hint" }, "Coupons already issued keep their validity. A void template cannot change."),
    el("button", { type: "submit" }, "Save campaign"), note);
  return t.status === "void" ? el("p", {}, "A void template cannot change.") : form;
}

/** Raise the quota; change the reminder days (both answer the new template). */
function settingsForms(t) {
  const total = el("input", { id: "quota", type: "number", step: 1, value: t.total, required: true });
  const quotaNote = el("p", { class: "error", role: "alert" });
  const quota = el("form", { class: "card inline", on: { submit: async (e) => {
    e.preventDefault();
    const r = await api("POST", `/v1/templates/${t.sn}/quota`, { total: Number(total.value) });
    if (r.status === 200) return templatePage(t.sn);
    quotaNote.textContent = errorText(r.body);
  } } }, el("label", { for: "quota" }, `Quota (issued ${whole(t.issued)}; it can only grow)`), total,
    el("button", { type: "submit" }, "Raise quota"), quotaNote);
  const days = [].concat(t.remind_days_before ?? []);
  const remind = el("input", { id: "remind-days", value: days.join(", "), autocomplete: "off",
    "aria-describedby": "remind-hint" });
  const remindNote = el("p", { class: "error", role: "alert" });
  const reminders = el("form", { class: "card inline", on: { submit: async (e) => {
    e.preventDefault();
    const text = remind.value.trim();
    const parsed = text === "" ? null : text.split(/[\s,]+/).filter(Boolean).map(Number);
    if (parsed && parsed.some((d) => !Number.isInteger(d))) {
      remindNote.textContent = "Days are whole numbers, e.g. 1, 3.";
      return;
    }
    const r = await api("PATCH", `/v1/templates/${t.sn}`, { remind_days_before: parsed });
    if (r.status === 200) return templatePage(t.sn);
    remindNote.textContent = errorText(r.body);
  } } }, el("label", { for: "remind-days" }, "Remind days before expiry"), remind,
    el("span", { id: "remind-hint", class: "hint" }, "Comma-separated, empty for none; applies to coupons issued afterwards."),
    el("button", { type: "submit" }, "Save reminders"), remindNote);
  return el("div", { class: "cards" }, quota, reminders);
}

/** The channels allowed to issue the template, and a form to allow one more. */
function channelsSection(t) {
  const box = el("div", { id: "channels" }, el("p", {}, "Loading…"));
  (async () => {
    const r = await api("GET", "/v1/channels");
    if (r.status !== 200) return box.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(r.body)));
    const byId = new Map(r.body.channels.map((c) => [c.id, c]));
    const remove = (id, name) => el("button", { type: "button", class: "stop", "aria-label": `remove ${name}`,
      on: { click: async () => {
        if (!confirm(`Remove ${name} from this template? Its claims of it are refused from then on.`)) return;
        const a = await api("DELETE", `/v1/templates/${t.sn}/channels/${id}`);
        if (a.status !== 200) alert(errorText(a.body));
        templatePage(t.sn);
      } } }, "remove");
    const allowed = t.channels.map((id) => {
      const c = byId.get(id) || { name: "(unnamed)", status: "active" };
      const off = c.status === "disabled" ? [" ", el("span", { class: "status disabled" }, "disabled")] : [];
      return el("li", {}, c.name, " ", el("code", {}, id), ...off, " ", remove(id, c.name));
    });
    const others = r.body.channels.filter((c) => !t.channels.includes(c.id));
    const pick = el("select", { id: "allow-channel" }, others.map((c) => el("option", { value: c.id }, c.name)));
    const note = el("p", { class: "error", role: "alert" });
    const form = el("form", { class: "card inline", on: { submit: async (e) => {
      e.preventDefault();
      const a = await api("POST", `/v1/templates/${t.sn}/channels`, { channel_id: pick.value });
      if (a.status === 200) return templatePage(t.sn);
      note.textContent = errorText(a.body);
    } } }, el("label", { for: "allow-channel" }, "Allow a channel"), pick,
      el("button", { type: "submit" }, "Allow"), note);
    if (r.body.channels.length === 0) {
      return box.replaceChildren(el("p", {}, "No channel may issue it: there are no channels yet. ",
        "Once one is created (POST /v1/channels), it can be allowed here."));
    }
    // Only channels on the template's list may claim it; an empty list lets none.
    const more = others.length ? form
      : el("p", { class: "hint", id: "all-channels" },
        "Every existing channel may issue it. A channel created later must be allowed here first.");
    box.replaceChildren(allowed.length ? el("ul", {}, allowed) : el("p", {}, "No channel may issue it yet."), more);
  })();
  return box;
}

/** The template's bulk-issuance jobs, newest first. */
function jobsSection(t) {
  const box = el("div", { id: "jobs" }, el("p", {}, "Loading…"));
  (async () => {
    const r = await api("GET", `/v1/issuance-jobs?template=${encodeURIComponent(t.sn)}&limit=20`);
    if (r.status !== 200) return box.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(r.body)));
    if (r.body.jobs.length === 0) return box.replaceChildren(el("p", {}, "No jobs yet."));
    const rows = r.body.jobs.map((j) => el("tr", {},
      el("td", {}, new Date(j.created_at).toLocaleString()),
      el("td", {}, el("span", { class: `status ${j.status}` }, j.status)),
      el("td", { class: "num" }, `${whole(j.issued)} / ${whole(j.valid)}`),
      el("td", { class: "num" }, whole(j.over_limit + j.sold_out + j.cancelled + j.invalid + j.not_eligible)),
      el("td", {}, el("button", { type: "button", "aria-label": `Report of job ${j.job_id}`,
        on: { click: () => downloadReport(j.job_id) } }, "Report"))));
    box.replaceChildren(table(["Created", "Status", "Issued / valid", "Not issued", ""], rows));
  })();
  return box;
}

// ---- allow-list ----------------------------------------------------------

/** The template's allow-list: its size and files, a user looked up, a file uploaded (add or remove). */
function allowListSection(t) {
  const base = `/v1/templates/${encodeURIComponent(t.sn)}/allow-list`;
  const summary = el("p", { id: "allow-list-summary", "aria-live": "polite" }, "Loading…");
  const files = el("div", { id: "allow-list-files" });
  const load = async () => {
    const r = await api("GET", base);
    if (r.status !== 200) return summary.replaceChildren(el("span", { class: "error", role: "alert" }, errorText(r.body)));
    const l = r.body;
    summary.textContent = `${whole(l.members)} users on the list; `
      + (l.enforced ? "claims, codes, packages and bulk issuance admit only them." : "not applied (eligibility.allow_list is off).");
    files.replaceChildren(l.files.length === 0 ? el("p", {}, "No file yet.") : table(
      ["Uploaded", "By", "Mode", "Status", "Lines", "Changed", "Invalid"],
      l.files.map((f) => el("tr", {},
        el("td", {}, new Date(f.created_at).toLocaleString()), el("td", {}, f.operator || ""),
        el("td", {}, f.mode), el("td", {}, el("span", { class: `status ${f.status}` }, f.status)),
        el("td", { class: "num" }, whole(f.lines_read)), el("td", { class: "num" }, whole(f.changed)),
        el("td", { class: "num" }, whole(f.invalid))))));
  };
  const who = el("input", { id: "allow-list-user", name: "user_id", placeholder: "user id" });
  const found = el("span", { id: "allow-list-found", "aria-live": "polite" });
  const lookup = el("form", { class: "inline", on: { submit: async (e) => {
    e.preventDefault();
    const r = await api("GET", `${base}?user_id=${encodeURIComponent(who.value)}`);
    found.textContent = r.status !== 200 ? errorText(r.body) : (r.body.contains ? "on the list" : "not on the list");
  } } }, el("label", { for: "allow-list-user" }, "Is a user on it? "), who, el("button", { type: "submit" }, "Look up"), " ", found);
  const file = el("input", { id: "allow-list-file", type: "file", accept: ".txt,.csv,.gz,text/plain,text/csv" });
  const mode = el("select", { id: "allow-list-mode" }, el("option", { value: "add" }, "add these users"),
    el("option", { value: "remove" }, "remove these users"));
  const result = el("p", { id: "allow-list-result", "aria-live": "polite" });
  const form = el("form", { class: "card wide", on: { submit: async (e) => {
    e.preventDefault();
    const f = file.files[0];
    if (!f) return;
    result.textContent = "Uploading…";
    const headers = { Authorization: `Bearer ${token()}`, "Content-Type": f.name.endsWith(".csv") ? "text/csv" : "text/plain" };
    if (f.name.endsWith(".gz")) headers["Content-Encoding"] = "gzip";
    const r = await fetch(`${base}?mode=${mode.value}`, { method: "POST", headers, body: f });
    const body = await r.json().catch(() => null);
    if (r.status !== 201) { result.replaceChildren(el("span", { class: "error", role: "alert" }, errorText(body))); return; }
    const errs = (body.errors || []).slice(0, 5).map((x) => `line ${x.line}: ${x.reason}`).join("; ");
    result.textContent = `${whole(body.changed)} changed of ${whole(body.valid)} valid lines`
      + `, ${whole(body.blank)} blank, ${whole(body.invalid)} invalid${errs ? ` (${errs})` : ""}.`;
    load();
  } } }, el("label", { for: "allow-list-file" }, "File of user ids (one per line, or CSV with user_id)"), file,
    mode, el("button", { type: "submit" }, "Apply to the list"), result);
  load();
  return el("div", { id: "allow-list" }, summary, lookup, files, form);
}

// ---- bulk issuance -------------------------------------------------------

/** Choose a file of user ids, upload it (bar in bytes), then follow the job. */
function uploadForm(t) {
  const file = el("input", { id: "user-file", type: "file", accept: ".txt,.csv,.gz,text/plain,text/csv" });
  const sent = el("progress", { id: "upload-progress", max: 1, value: 0, "aria-label": "Upload" });
  const box = el("div", { class: "job", "aria-live": "polite" });
  const notify = el("input", { id: "notify-users", type: "checkbox" });
  const form = el("form", { class: "card wide", on: { submit: (e) => {
    e.preventDefault();
    if (!file.files[0]) return;
    upload(t.sn, file.files[0], sent, box, notify.checked);
  } } },
    el("label", { for: "user-file" }, "File of user ids (one per line, or CSV with user_id)"), file,
    el("label", { for: "notify-users" }, notify, " Tell each user (one CouponsGranted message once the job ends)"),
    el("button", { type: "submit" }, "Upload"), el("div", {}, sent), box);
  return form;
}

function upload(sn, f, bar, box, notify) {
  const xhr = new XMLHttpRequest();
  xhr.open("POST", `/v1/issuance-jobs?template=${encodeURIComponent(sn)}${notify ? "&notify=true" : ""}`);
  xhr.setRequestHeader("Authorization", `Bearer ${token()}`);
  xhr.setRequestHeader("Content-Type", f.name.endsWith(".csv") ? "text/csv" : "text/plain");
  if (f.name.endsWith(".gz")) xhr.setRequestHeader("Content-Encoding", "gzip");
  bar.max = f.size || 1;
  xhr.upload.onprogress = (e) => { bar.value = e.loaded; };
  xhr.onload = () => {
    let body = null;
    try { body = JSON.parse(xhr.responseText); } catch { body = null; }
    if (xhr.status !== 202) { box.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(body))); return; }
    bar.value = bar.max;
    followJob(body.job_id, box);
  };
  xhr.send(f);
}

/** Polls the job every second until it ends; a bar of lines done. */
function followJob(id, box) {
  const bar = el("progress", { id: "job-progress", max: 1, value: 0, "aria-label": "Issuance" });
  const line = el("p", { id: "job-line" });
  const cancel = el("button", { type: "button", class: "stop", on: { click: async () => {
    const r = await api("POST", `/v1/issuance-jobs/${id}/cancel`, {});
    if (r.status !== 200) alert(errorText(r.body));
  } } }, "Cancel job");
  box.replaceChildren(el("p", {}, "Job ", el("code", {}, id)), bar, line, cancel);
  const tick = async () => {
    const r = await api("GET", `/v1/issuance-jobs/${id}`);
    if (r.status !== 200) return;
    const j = r.body;
    const done = j.issued + j.over_limit + j.sold_out + j.cancelled + j.not_eligible;
    const total = Math.max(j.valid, 1);
    bar.max = total; bar.value = Math.min(done, total);
    const pct = Math.floor((100 * Math.min(done, total)) / total);
    const rate = j.lines_per_second ? `${whole(j.lines_per_second)} lines/s` : "";
    const eta = j.lines_per_second && done < total ? `, about ${Math.ceil((total - done) / j.lines_per_second)} s left` : "";
    line.textContent = `${j.status}: ${whole(done)} of ${whole(j.valid)} lines (${pct} %) ${rate}${eta}`;
    if (["done", "cancelled", "failed"].includes(j.status)) {
      clearInterval(timer);
      cancel.remove();
      refreshTemplate();
      box.append(el("p", { id: "job-outcome" },
        `issued ${whole(j.issued)}, over the limit ${whole(j.over_limit)}, sold out ${whole(j.sold_out)}, `
        + `cancelled ${whole(j.cancelled)}, not eligible ${whole(j.not_eligible)}, invalid ${whole(j.invalid)}`),
      el("button", { type: "button", on: { click: () => downloadReport(id) } }, "Download report (CSV)"));
    }
  };
  const timer = setInterval(tick, 1000);
  const previous = stopPolling;
  stopPolling = () => { previous(); clearInterval(timer); };
  tick();
}

/** Downloads need the token: fetched, then saved from a blob. */
async function download(path, name) {
  const r = await fetch(path, { headers: { Authorization: `Bearer ${token()}` } });
  if (!r.ok) { alert(`${name}: ${r.status}`); return; }
  const url = URL.createObjectURL(await r.blob());
  const a = el("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function downloadReport(id) { return download(`/v1/issuance-jobs/${id}/report`, `job-${id}-report.csv`); }

// ---- coupon lookup -------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function couponsPage(params) {
  const q = (params.get("q") || "").trim();
  const input = el("input", { id: "lookup", value: q, required: true, autocomplete: "off" });
  const form = el("form", { class: "card", role: "search", on: { submit: (e) => {
    e.preventDefault();
    location.hash = `#/coupons?q=${encodeURIComponent(input.value.trim())}`;
  } } }, el("label", { for: "lookup" }, "Coupon id or user id"), input, el("button", { type: "submit" }, "Look up"));
  if (!q) return show(el("h1", {}, "Coupons"), form);
  if (UUID.test(q)) return timelinePage(q, form);
  // Operators look up everything, archived coupons too (docs/design.md §16).
  const r = await api("GET", `/v1/users/${encodeURIComponent(q)}/coupons?limit=200&include_archived=true`);
  if (r.status !== 200) return show(el("h1", {}, "Coupons"), form, el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const rows = r.body.coupons.map((c) => el("tr", {},
    el("td", {}, el("a", { href: `#/coupons?q=${c.id}` }, el("code", {}, c.id))),
    el("td", {}, el("a", { href: `#/templates/${c.template_sn}` }, c.template_sn)),
    el("td", {}, el("span", { class: `status ${c.status}` }, c.status)),
    el("td", {}, new Date(c.expires_at).toLocaleString())));
  show(el("h1", {}, "Coupons"), form,
    el("h2", {}, `${q}: ${r.body.total} coupon(s)`),
    table(["Coupon", "Template", "Status", "Expires"], rows));
}

/** A coupon's events, oldest first, as a timeline. */
async function timelinePage(id, form) {
  const [coupon, events] = await Promise.all([api("GET", `/v1/coupons/${id}`), api("GET", `/v1/coupons/${id}/events`)]);
  if (coupon.status === 404 && events.status === 200) {
    // A purged coupon: its row is gone, its events stay.
    return show(el("h1", {}, "Coupon"), form,
      el("p", {}, el("code", {}, id), " ", el("span", { class: "hint" }, "row purged (cold storage); its events:")),
      el("h2", {}, "Timeline"), eventList(events.body, "timeline"));
  }
  if (coupon.status !== 200) return show(el("h1", {}, "Coupons"), form, el("p", { class: "error", role: "alert" }, errorText(coupon.body)));
  const c = coupon.body;
  show(el("h1", {}, "Coupon"), form,
    el("p", {}, el("code", {}, c.id), " ", el("span", { class: `status ${c.status}` }, c.status)),
    el("p", {}, "Template ", el("a", { href: `#/templates/${c.template_sn}` }, c.template_sn), ", user ",
      el("a", { href: `#/coupons?q=${encodeURIComponent(c.user_id)}` }, c.user_id)),
    el("h2", {}, "Timeline"), eventList(events.body, "timeline"));
}

/** Who made a change: the operator, for an admin's (docs/design.md §7 "Operators"), else the actor. */
function madeBy(metadata) {
  const m = metadata || {};
  return m.operator || m.actor || "?";
}

/** A stream's events (a coupon's, a template's), oldest first, each with when, what and who. */
function eventList(events, id) {
  const items = (events || []).map((e) => el("li", {},
    el("time", { datetime: e.occurred_at }, new Date(e.occurred_at).toLocaleString()), " ",
    el("strong", {}, e.event_type), " ",
    el("span", { class: "hint" }, "by ", el("span", { class: "operator" }, madeBy(e.metadata)), ` · position ${e.position}`)));
  return el("ol", { class: "timeline", id }, items);
}

// ---- finance -------------------------------------------------------------

/** The liability report as of a date (the end of that business day) or now. */
async function financePage(params) {
  const asOf = params.get("as_of") || "";
  const by = params.get("by") || "template";
  const date = el("input", { id: "as-of", type: "date", value: /^\d{4}-\d{2}-\d{2}$/.test(asOf) ? asOf : "",
    "aria-describedby": "as-of-hint" });
  const group = el("select", { id: "by" }, ["template", "channel", "day", "shop"].map((b) =>
    el("option", { value: b, selected: b === by }, b)));
  const form = el("form", { class: "card", on: { submit: (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ as_of: date.value || "now", by: group.value });
    location.hash = `#/finance?${q}`;
  } } }, el("label", { for: "as-of" }, "As of the end of"), date,
    el("span", { id: "as-of-hint", class: "hint" }, "A business day (LEDGER_TZ); empty for now."),
    el("label", { for: "by" }, "By"), group, el("button", { type: "submit" }, "Run report"));
  const report = el("div", { id: "liability" });
  const audit = el("div", { id: "audit" }, el("p", {}, "Loading…"));
  show(el("h1", {}, "Finance"), form, report, el("h2", {}, "Audit"), audit);
  auditStatus(audit);
  if (asOf) await liabilityReport(report, asOf, by);
}

async function liabilityReport(box, asOf, by) {
  const q = new URLSearchParams({ as_of: asOf, by });
  box.replaceChildren(el("p", {}, "Running…"));
  const r = await api("GET", `/v1/reports/liability?${q}`);
  if (r.status !== 200) return box.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const counts = ["issued", "unused", "locked", "used", "refunded", "expired", "void"];
  const heads = [{ template: "Template", channel: "Channel", day: "Day", shop: "Shop" }[by] || by,
    "Issued", "Unused", "Locked", "Used", "Refunded", "Expired", "Void", "Outstanding", "Cost"];
  const rows = r.body.rows.map((row) => el("tr", { class: row.group === "total" ? "total" : undefined },
    el("th", { scope: "row" }, groupCell(row, by)),
    counts.map((c) => el("td", { class: "num" }, whole(row[c]))),
    [row.face_value_outstanding, row.cost].map((v) => el("td", { class: "num" }, money(v)))));
  const csv = el("button", { type: "button", on: { click: () =>
    download(`/v1/reports/liability?${q}&format=csv`, `liability-${asOf}-by-${by}.csv`) } }, "Download CSV");
  box.replaceChildren(
    el("h2", {}, `Liability as of ${new Date(r.body.as_of).toLocaleString()}`),
    table(heads, rows, { id: "liability-table" }),
    el("p", { class: "hint" }, r.body.from_snapshot
      ? `From checkpoint ${r.body.from_snapshot}'s snapshot and ${whole(r.body.events_folded)} events after it.`
      : `Folded ${whole(r.body.events_folded)} events from the start.`),
    csv);
}

/** A report row's group for people: a template's or channel's name above its id, "no channel", "platform (no shop)", "Total". */
function groupCell(row, by) {
  if (row.group === "total") return "Total";
  if (by === "channel" && row.group === "none") return "no channel";
  if (by === "shop" && row.group === "(platform)") return "platform (no shop)";
  if (!row.name) return row.group;
  const name = by === "template" ? el("a", { href: `#/templates/${row.group}` }, row.name) : row.name;
  return [name, el("br"), el("code", { class: "hint" }, row.group)];
}

async function auditStatus(box) {
  const r = await api("GET", "/v1/audit/status");
  if (r.status !== 200) return box.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const a = r.body;
  const c = a.last_checkpoint;
  const v = a.last_verify;
  box.replaceChildren(el("dl", { class: "facts" },
    el("dt", {}, "Events sealed"), el("dd", {}, whole(a.sealed_events)),
    el("dt", {}, "Last checkpoint"), el("dd", {}, c
      ? [`${c.id} at ${new Date(c.created_at).toLocaleString()}, events ${c.first_seq}–${c.last_seq}`, el("br"),
         el("code", { class: "wrap" }, c.line)]
      : "none yet"),
    el("dt", {}, "Last verify"), el("dd", { id: "last-verify" }, v
      ? [el("span", { class: `status ${v.intact ? "active" : "void"}` }, v.intact ? "intact" : "TAMPERED"),
         ` ${new Date(v.finished_at).toLocaleString()}, ${v.events} events${v.expected_head ? ", head checked" : ""}`,
         v.finding ? el("p", { class: "error" }, v.finding) : ""]
      : "never: run ledger audit verify")));
}

// ---- workers -------------------------------------------------------------

/** Which member of each cluster serves the API (docs/design.md §17). */
function clusterList(c) {
  const nodes = (c.rabbitmq_nodes || []).map((n) => `${n.name}${n.running ? "" : " (down)"}`).join(", ") || "?";
  const leaders = (c.queue_leaders || []).map((q) => el("li", {}, el("code", {}, q.queue), ` led by ${q.leader || "?"} (${(q.members || []).length} members)`));
  const lag = c.replica_lag_ms == null ? "no replica answering" : `replica ${c.replica_lag_ms} ms behind${c.reads_on_replica ? ", serving reads" : ", reads on the primary"}`;
  return el("dl", { id: "cluster" },
    el("dt", {}, "Postgres primary"), el("dd", {}, c.postgres_primary || "?", " · ", lag),
    el("dt", {}, "RabbitMQ nodes"), el("dd", {}, nodes),
    el("dt", {}, "Queue leaders"), el("dd", {}, leaders.length ? el("ul", {}, leaders) : "?"),
    el("dt", {}, "Redis primary"), el("dd", {}, c.redis_primary || "?"));
}

async function workersPage() {
  const box = el("div", { id: "workers" }, el("p", {}, "Loading…"));
  show(el("h1", {}, "Workers"), box, el("p", { class: "hint" }, "Refreshed every 5 s while this page is open."));
  const tick = async () => {
    const r = await api("GET", "/v1/ops/workers");
    if (r.status !== 200) return box.replaceChildren(el("p", { class: "error", role: "alert" }, errorText(r.body)));
    const w = r.body;
    const lag = w.consumers.map((c) => el("tr", {}, el("th", { scope: "row" }, c.consumer),
      el("td", { class: "num" }, whole(c.events_behind)), el("td", { class: "num" }, c.seconds_behind.toFixed(1))));
    const queues = (w.queues || []).map((q) => el("tr", {}, el("th", { scope: "row" }, q.queue),
      ...[q.messages, q.ready, q.unacknowledged, q.consumers].map((n) => el("td", { class: "num" }, whole(n))),
      el("td", { class: "num" }, `${((100 * q.messages) / q.max_length).toFixed(2)} %`)));
    const dead = (w.queues || []).find((q) => q.queue === "coupon.dead.letters");
    const letters = w.dead_letters.map((d) => el("li", {},
      el("strong", {}, d.consumer || "?"), ` from ${d.original_queue || "?"} after ${d.attempts ?? "?"} attempts: `,
      el("code", { class: "wrap" }, d.error || "")));
    box.replaceChildren(
      el("h2", {}, `Relay and projections (head at position ${w.head_position})`),
      table(["Consumer", "Events behind", "Seconds behind"], lag, { id: "lag-table" }),
      el("h2", {}, "Queues"),
      w.broker_error ? el("p", { class: "error", role: "alert" }, `RabbitMQ's management API: ${w.broker_error}`) :
        table(["Queue", "Messages", "Ready", "Unacked", "Consumers", "Of bound"], queues, { id: "queue-table" }),
      el("h2", {}, `Dead letters${dead ? `: ${dead.messages}` : ""}`),
      letters.length ? el("ol", { id: "dead-letters" }, letters) : el("p", {}, "None waiting."),
      el("h2", {}, "Cluster"), clusterList(w.cluster));
  };
  await tick();
  const timer = setInterval(tick, 5000);
  stopPolling = () => clearInterval(timer);
}

// ---- channels ------------------------------------------------------------

/** Every channel: its status, the age of its secret, disable/enable, and a rotation that shows the new secret once. */
async function channelsPage() {
  const r = await api("GET", "/v1/channels");
  if (r.status !== 200) return show(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const shown = el("div", { id: "new-secret", "aria-live": "polite" });
  const reload = () => channelsPage();
  const allowed = { active: ["disable"], disabled: ["enable"] };
  const rows = r.body.channels.map((c) => el("tr", {},
    el("td", {}, c.name, el("br"), el("code", { class: "hint", title: c.id }, c.id.slice(0, 8))),
    el("td", {}, el("span", { class: `status ${c.status}` }, c.status)),
    el("td", {}, shortTime(c.secret_created_at)),
    el("td", {}, c.previous_secret_valid_until ? shortTime(c.previous_secret_valid_until) : "—"),
    el("td", {}, statusButtons(`/v1/channels/${c.id}`, c.name, allowed[c.status] || [], reload,
      { disable: `Disable ${c.name}? Its signed claims and redemptions are refused (every server within 5 s).` }),
      may("channels:write") && rotateForm(c, shown))));
  show(el("h1", {}, "Channels"), shown,
    rows.length ? table(["Channel", "Status", "Secret made", "Old secret valid until", ""], rows, { id: "channel-table" })
      : el("p", {}, "No channels yet (POST /v1/channels)."),
    el("p", { class: "hint" }, "A rotated channel's old secret keeps working for the overlap asked for; " +
      "only the latest old secret does. The new secret is shown once."));
}

/** Rotates the channel's secret with an overlap (seconds, a day by default); the answer's secret goes in `shown`, once. */
function rotateForm(c, shown) {
  const id = `overlap-${c.id}`;
  const overlap = el("input", { id, type: "number", min: 0, max: 2592000, value: 86400, class: "short" });
  return el("form", { class: "rotate", on: { submit: async (e) => {
    e.preventDefault();
    if (!confirm(`Rotate the secret of ${c.name}? The old one keeps working for ${overlap.value} s.`)) return;
    const a = await api("POST", `/v1/channels/${c.id}/secret`, { overlap_secs: Number(overlap.value) });
    if (a.status !== 200) return alert(errorText(a.body));
    await channelsPage();
    document.getElementById("new-secret").replaceChildren(el("div", { class: "card", role: "status" },
      el("p", {}, `New secret of ${c.name}, shown only this once: copy it now.`),
      el("code", { class: "wrap", id: "rotated-secret" }, a.body.secret),
      el("p", { class: "hint" }, `The old secret works until ${shortTime(a.body.previous_secret_valid_until)}.`)));
  } } }, el("label", { for: id }, "Overlap (s)"), overlap, el("button", { type: "submit" }, "Rotate secret"));
}

// ---- packages ------------------------------------------------------------

/** Packages, newest first, with their status buttons; then a form for a new one. */
async function packagesPage(params) {
  const offset = Math.max(0, Number(params.get("offset") || 0));
  const r = await api("GET", `/v1/packages?${new URLSearchParams({ offset, limit: PAGE })}`);
  if (r.status !== 200) return show(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const ch = await api("GET", "/v1/channels");
  const names = new Map(ch.status === 200 ? ch.body.channels.map((c) => [c.id, c.name]) : []);
  const reload = () => packagesPage(params);
  const allowed = { draft: ["activate"], active: ["stop"], stopped: ["activate"] };
  const rows = r.body.packages.map((p) => el("tr", {},
    el("td", {}, p.name, el("br"), el("code", { class: "hint" }, p.sn)),
    el("td", {}, el("span", { class: `status ${p.status}` }, p.status)),
    el("td", { class: "num" }, `${p.claimed} / ${p.total}`),
    el("td", {}, p.items.map((i) => el("div", {}, `${i.count} × `, el("a", { href: `#/templates/${i.template_sn}` }, i.template_sn)))),
    el("td", { class: "num" }, String(p.per_user_limit)),
    el("td", {}, packageChannels(p, names, reload)),
    el("td", {}, shortTime(p.issue_window.begin), el("br"), `to ${shortTime(p.issue_window.end)}`),
    el("td", {}, statusButtons(`/v1/packages/${p.sn}`, p.name, allowed[p.status] || [], reload,
      { stop: `Stop ${p.name}? Claims and its codes are refused from then on.` }),
      el("a", { href: `#/codes?package_sn=${p.sn}` }, "Codes"))));
  show(el("h1", {}, "Packages"),
    rows.length ? table(["Package", "Status", "Claimed / total", "Items", "Per user", "Channels", "Claims open", "Actions"], rows,
      { id: "packages" }) : el("p", {}, "No packages yet."),
    pager(offset, r.body.total, (at) => `#/packages?offset=${at}`),
    may("packages:write") && [el("h2", {}, "New package"),
      newPackageForm(() => packagesPage(new URLSearchParams()))]);
}

/** The channels that may claim the package (an empty list lets none, as for a template), and a picker to allow one more. */
function packageChannels(p, names, reload) {
  const listed = p.channels.map((id) => el("div", {}, names.get(id) || "(unnamed)", " ", el("code", { class: "hint" }, id.slice(0, 8))));
  const shown = listed.length ? listed : [el("div", { class: "hint" }, "No channel may claim it")];
  const others = [...names].filter(([id]) => !p.channels.includes(id));
  if (!others.length) return el("div", {}, shown);
  const pick = el("select", { "aria-label": `Channel to allow for ${p.name}` }, others.map(([id, name]) => el("option", { value: id }, name)));
  const note = el("p", { class: "error", role: "alert" });
  const allow = el("button", { type: "button", on: { click: async () => {
    const a = await api("POST", `/v1/packages/${p.sn}/channels`, { channel_id: pick.value });
    if (a.status === 200) return reload();
    note.textContent = errorText(a.body);
  } } }, "Allow");
  return el("div", {}, shown, pick, " ", allow, note);
}

/** Name, items (template sn and count, rows added and removed), quota, per-user limit, window. */
function newPackageForm(created) {
  const now = new Date();
  const items = itemRows();
  const form = el("form", { class: "card wide", novalidate: true },
    field("name", "Name", el("input", { required: true, autocomplete: "off" })),
    items.node,
    field("total", "Claims in all", el("input", { value: "1000", inputmode: "numeric" })),
    field("per_user_limit", "Claims per user", el("input", { value: "1", inputmode: "numeric" })),
    field("issue_window.begin", "Claims open", el("input", { type: "datetime-local", value: local(now) })),
    field("issue_window.end", "Claims close", el("input", { type: "datetime-local", value: local(new Date(now.getTime() + 30 * 86400000)) })),
    el("p", { class: "error", role: "alert", id: "form-error" }),
    el("button", { type: "submit" }, "Create package"));
  const value = (name) => form.querySelector(`[data-field="${name}"]`).value.trim();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submitForm(form, "/v1/packages", {
      name: value("name"),
      items: items.values(),
      total: Number(value("total")),
      per_user_limit: Number(value("per_user_limit")),
      issue_window: { begin: new Date(value("issue_window.begin")).toISOString(),
        end: new Date(value("issue_window.end")).toISOString() },
    }, created);
  });
  return form;
}

/** The package's items: one row (template sn, count) each, numbered as the API numbers them. */
function itemRows() {
  const rows = [];
  const legend = el("legend", {}, "Items");
  const node = el("fieldset", { class: "items" }, legend);
  const add = el("button", { type: "button", on: { click: () => { addRow(); draw(); } } }, "Add item");
  const addRow = () => rows.push({
    sn: el("input", { autocomplete: "off", spellcheck: "false" }),
    count: el("input", { value: "1", inputmode: "numeric" }),
  });
  // Redrawn after each change, so that row i's fields are items[i].template_sn and items[i].count.
  const draw = () => node.replaceChildren(legend, ...rows.map((row, i) => el("div", { class: "item" },
    field(`items[${i}].template_sn`, `Item ${i + 1}: template sn`, row.sn),
    field(`items[${i}].count`, "Count", row.count),
    el("button", { type: "button", class: "stop", "aria-label": `Remove item ${i + 1}`, disabled: rows.length === 1,
      on: { click: () => { rows.splice(i, 1); draw(); } } }, "Remove"))), add);
  addRow();
  draw();
  return { node, values: () => rows.map((r) => ({ template_sn: r.sn.value.trim(), count: Number(r.count.value) })) };
}

// ---- redemption codes ----------------------------------------------------

/** Open, expired (open but past its end) or stopped. */
function batchState(b) {
  if (b.status === "stopped") return "stopped";
  return b.expires_at && new Date(b.expires_at) <= new Date() ? "expired" : "open";
}

/** What a batch's codes give: a template's coupon or a package's coupons. */
function batchGives(b) {
  return b.template_sn
    ? ["template ", el("a", { href: `#/templates/${b.template_sn}` }, b.template_sn)]
    : ["package ", el("code", {}, b.package_sn)];
}

/** Code batches, newest first (of one template or package when the query names it); then a form for a new one. */
async function codesPage(params) {
  const offset = Math.max(0, Number(params.get("offset") || 0));
  const target = ["template_sn", "package_sn"].find((k) => params.get(k));
  const sn = target ? params.get(target) : "";
  const query = new URLSearchParams({ offset, limit: PAGE });
  if (target) query.set(target, sn);
  const r = await api("GET", `/v1/code-batches?${query}`);
  if (r.status !== 200) return show(el("h1", {}, "Codes"), el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const rows = r.body.batches.map((b) => el("tr", {},
    el("td", {}, el("a", { href: `#/codes/${b.id}` }, shortTime(b.created_at))),
    el("td", {}, el("span", { class: `status ${batchState(b)}` }, batchState(b))),
    el("td", {}, batchGives(b)),
    el("td", { class: "num" }, String(b.count)),
    el("td", { class: "num" }, String(b.uses_per_code)),
    el("td", { class: "num" }, String(b.per_user)),
    el("td", { class: "num" }, String(b.redeemed)),
    el("td", {}, b.expires_at ? shortTime(b.expires_at) : "never")));
  const at = (o) => `#/codes?${target ? `${target}=${encodeURIComponent(sn)}&` : ""}offset=${o}`;
  show(el("h1", {}, "Codes"),
    target ? el("p", {}, `Batches of ${target.replace("_sn", "")} ${sn}. `, el("a", { href: "#/codes" }, "All batches")) : "",
    rows.length ? table(["Created", "Status", "Gives", "Codes", "Uses per code", "Per user", "Redeemed", "Expires"], rows,
      { id: "batches" }) : el("p", {}, "No code batches yet."),
    pager(offset, r.body.total, at),
    may("code_batches:write") && [el("h2", {}, "New batch"), newBatchForm(target || "template_sn", sn)]);
}

/** A batch for a template or a package (`target`: template_sn or package_sn, preset to `sn`); on success, its page. */
function newBatchForm(target, sn) {
  const gives = el("select", {}, el("option", { value: "template_sn", selected: target === "template_sn" }, "a template's coupon"),
    el("option", { value: "package_sn", selected: target === "package_sn" }, "a package's coupons"));
  const form = el("form", { class: "card wide", novalidate: true },
    field("gives", "Each code gives", gives),
    field("template_sn", "Template sn", el("input", { autocomplete: "off", spellcheck: "false", value: target === "template_sn" ? sn : "" })),
    field("package_sn", "Package sn", el("input", { autocomplete: "off", spellcheck: "false", value: target === "package_sn" ? sn : "" })),
    field("count", "Number of codes", el("input", { value: "100", inputmode: "numeric" }), "1 to 100,000,000"),
    field("uses_per_code", "Uses per code", el("input", { value: "1", inputmode: "numeric" }),
      "1: one-use codes; more: a shared code, once per user"),
    field("per_user", "Codes one user may redeem", el("input", { value: "1", inputmode: "numeric" })),
    field("expires_at", "Expires", el("input", { type: "datetime-local" }), "empty: never"),
    el("p", { class: "error", role: "alert", id: "form-error" }),
    el("button", { type: "submit" }, "Create batch"));
  const input = (name) => form.querySelector(`[data-field="${name}"]`);
  // Only the sn field of what the codes give is shown.
  const drawTarget = () => {
    input("template_sn").parentElement.hidden = gives.value !== "template_sn";
    input("package_sn").parentElement.hidden = gives.value !== "package_sn";
  };
  gives.addEventListener("change", drawTarget);
  drawTarget();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const expires = input("expires_at").value;
    submitForm(form, "/v1/code-batches", {
      [gives.value]: input(gives.value).value.trim(),
      count: Number(input("count").value),
      uses_per_code: Number(input("uses_per_code").value),
      per_user: Number(input("per_user").value),
      ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
    }, (b) => { location.hash = `#/codes/${b.id}`; });
  });
  return form;
}

/** A batch: its terms, its codes as CSV, and Stop. */
async function batchPage(id) {
  const r = await api("GET", `/v1/code-batches/${encodeURIComponent(id)}`);
  if (r.status !== 200) return show(el("h1", {}, "Code batch"), el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const b = r.body;
  const state = batchState(b);
  const stop = statusButtons(`/v1/code-batches/${b.id}`, "batch", b.status === "active" ? ["stop"] : [],
    () => batchPage(id), { stop: `Stop this batch? Its ${b.count} codes are refused from then on.` });
  const csv = el("button", { type: "button", on: { click: () =>
    download(`/v1/code-batches/${b.id}/codes?format=csv`, `codes-${b.id}.csv`) } }, "Download codes (CSV)");
  const fact = (term, value) => [el("dt", {}, term), el("dd", {}, value)];
  show(el("h1", {}, "Code batch"),
    el("p", {}, el("span", { class: `status ${state}`, id: "batch-status" }, state), " ", el("code", {}, b.id), " ", stop),
    el("dl", { class: "facts" },
      fact("Each code gives", batchGives(b)),
      fact("Codes", String(b.count)),
      fact("Uses per code", String(b.uses_per_code)),
      fact("Per user", `${b.per_user} code(s) of this batch`),
      fact("Redeemed", `${b.redeemed} of ${b.count * b.uses_per_code} uses`),
      fact("Expires", b.expires_at ? new Date(b.expires_at).toLocaleString() : "never"),
      fact("Created", new Date(b.created_at).toLocaleString()),
      fact("Key", `${b.key_id}, serials ${b.first_serial}–${b.first_serial + b.count - 1}`)),
    el("h2", {}, "Codes"),
    el("p", { class: "hint" }, "CSV of serial,code, computed from the key as it downloads. ",
      "For millions of codes, ", el("code", {}, "ledger codes export"), " writes the file without a browser."),
    csv,
    el("p", {}, el("a", { href: "#/codes" }, "All batches")));
}

// ---- new template --------------------------------------------------------

const RULE_FIELDS = {
  fixed_off: ["threshold", "amount"],
  per_threshold_off: ["step", "amount", "max_off"],
  rate: ["rate_off", "threshold", "max_off"],
  ladder: ["tiers"],
};

/** A labelled input named after the API's field (`discount.amount`, `items[0].count`), with room for its error. */
function field(name, label, input, hint) {
  input.id = `f-${name.replace(/[^a-z0-9_]+/gi, "-")}`;
  input.dataset.field = name;
  return el("div", { class: "field" }, el("label", { for: input.id }, label), input,
    hint ? el("small", {}, hint) : "", el("span", { class: "field-error", role: "alert", "data-error-for": name }));
}

function newTemplatePage() {
  const now = new Date();
  const later = new Date(now.getTime() + 30 * 86400000);
  const input = (attrs) => el("input", attrs);
  const ruleType = el("select", {}, Object.keys(RULE_FIELDS).map((k) => el("option", { value: k }, k)));
  const ruleBox = el("div", { class: "rule" });
  const drawRule = () => ruleBox.replaceChildren(...RULE_FIELDS[ruleType.value].map((f) => f === "tiers"
    ? field("discount.tiers", "Tiers (threshold:amount, one per line)", el("textarea", { rows: 3 }), "e.g. 199:20")
    : field(`discount.${f}`, f.replace("_", " "), input({ inputmode: "decimal" }))));
  ruleType.addEventListener("change", drawRule);
  const validityType = el("select", {}, el("option", { value: "relative" }, "relative (days after issue)"),
    el("option", { value: "absolute" }, "absolute (dates)"));
  const form = el("form", { class: "card wide", novalidate: true },
    el("h1", {}, "New template"),
    field("name", "Name", input({ required: true })),
    field("kind", "Kind", el("select", {}, el("option", {}, "goods"), el("option", {}, "shipping"))),
    field("currency", "Currency", input({ value: "CNY" })),
    field("discount.type", "Rule", ruleType), ruleBox,
    field("validity.type", "Validity", validityType),
    field("validity.begin_days", "Valid from day", input({ value: "0", inputmode: "numeric" })),
    field("validity.end_days", "Valid until day", input({ value: "7", inputmode: "numeric" })),
    field("validity.begin", "Valid from (absolute)", input({ type: "datetime-local" })),
    field("validity.end", "Valid until (absolute)", input({ type: "datetime-local" })),
    field("issue_window.begin", "Claims open", input({ type: "datetime-local", value: local(now) })),
    field("issue_window.end", "Claims close", input({ type: "datetime-local", value: local(later) })),
    field("total", "Quota", input({ value: "1000", inputmode: "numeric" })),
    field("per_user_limit", "Per user", input({ value: "1", inputmode: "numeric" })),
    field("budget.total", "Budget (empty: no cap)", input({ inputmode: "decimal" }), "what its coupons may cost in all, e.g. 1000.00"),
    field("budget.daily", "Budget per day", input({ inputmode: "decimal" }), "optional: the most per business day"),
    field("use_scope", "Scope (kind: values, one per line)", el("textarea", { rows: 2 }), "e.g. category: c-9, c-10"),
    field("stacking", "Stacking", el("select", {}, el("option", {}, "stackable"), el("option", {}, "exclusive"))),
    field("refund_policy", "On refund", el("select", {}, el("option", {}, "restore"), el("option", {}, "reissue"))),
    field("remind_days_before", "Remind days before expiry", input({ value: "1" }), "a number, a list like 7,3,1, or empty"),
    field("description", "Description (what apps show)", el("textarea", { rows: 2 })),
    field("shop_id", "Shop (empty: the platform's)", input({})),
    field("eligibility.user_tags", "Who may claim: user tags", input({}), "all: vip, gold — or any: vip, gold; empty for anyone"),
    field("eligibility.regions", "Who may claim: regions", input({}), "comma-separated; empty for any region"),
    field("eligibility.new_users_only", "New users only", el("select", {}, el("option", { value: "" }, "no"),
      el("option", { value: "true" }, "yes"))),
    field("eligibility.allow_list", "Only users on its allow-list", el("select", {}, el("option", { value: "" }, "no"),
      el("option", { value: "true" }, "yes")), "upload the list on the template's page"),
    el("p", { class: "error", role: "alert", id: "form-error" }),
    el("button", { type: "submit" }, "Create"));
  drawRule();
  // Only the validity fields of the chosen type are shown.
  const drawValidity = () => {
    const relative = validityType.value === "relative";
    for (const [name, shown] of [["validity.begin_days", relative], ["validity.end_days", relative],
      ["validity.begin", !relative], ["validity.end", !relative]]) {
      form.querySelector(`[data-field="${name}"]`).parentElement.hidden = !shown;
    }
  };
  validityType.addEventListener("change", drawValidity);
  drawValidity();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submitForm(form, "/v1/templates", templateBody(form, ruleType.value, validityType.value),
      (t) => { location.hash = `#/templates/${t.sn}`; });
  });
  show(form);
}

function local(d) {
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

function templateBody(form, rule, validity) {
  const v = (name) => { const n = form.querySelector(`[data-field="${name}"]`); return n ? n.value.trim() : ""; };
  const iso = (s) => (s ? new Date(s).toISOString() : s);
  const discount = { type: rule };
  for (const f of RULE_FIELDS[rule]) {
    if (f === "tiers") {
      discount.tiers = v("discount.tiers").split("\n").filter(Boolean).map((line) => {
        const [threshold, amount] = line.split(":").map((x) => x.trim());
        return { threshold, amount };
      });
    } else if (v(`discount.${f}`) !== "") discount[f] = v(`discount.${f}`);
  }
  const body = {
    name: v("name"), kind: v("kind"), currency: v("currency"), discount,
    issue_window: { begin: iso(v("issue_window.begin")), end: iso(v("issue_window.end")) },
    validity: validity === "relative"
      ? { type: "relative", begin_days: Number(v("validity.begin_days")), end_days: Number(v("validity.end_days")) }
      : { type: "absolute", begin: iso(v("validity.begin")), end: iso(v("validity.end")) },
    total: Number(v("total")), per_user_limit: Number(v("per_user_limit")),
    stacking: v("stacking"), refund_policy: v("refund_policy"),
  };
  const scope = v("use_scope").split("\n").filter(Boolean).map((line) => {
    const [kind, values] = line.split(":");
    return { kind: kind.trim(), values: (values || "").split(",").map((x) => x.trim()).filter(Boolean) };
  });
  if (scope.length) body.use_scope = scope;
  const remind = v("remind_days_before");
  if (remind) body.remind_days_before = remind.includes(",") ? remind.split(",").map(Number) : Number(remind);
  if (v("description")) body.description = v("description");
  if (v("shop_id")) body.shop_id = v("shop_id");
  if (v("budget.total") || v("budget.daily")) {
    body.budget = { total: v("budget.total") };
    if (v("budget.daily")) body.budget.daily = v("budget.daily");
  }
  const eligibility = eligibilityOf(v);
  if (Object.keys(eligibility).length) body.eligibility = eligibility;
  return body;
}

/** The form's "who may claim" fields as an eligibility; `{}` restricts no one. */
function eligibilityOf(v) {
  const list = (s) => s.split(",").map((x) => x.trim()).filter(Boolean);
  const e = {};
  const tags = v("eligibility.user_tags").match(/^(all|any)\s*:\s*(.*)$/i);
  if (tags) e.user_tags = { [tags[1].toLowerCase()]: list(tags[2]) };
  else if (v("eligibility.user_tags")) e.user_tags = { all: list(v("eligibility.user_tags")) };
  if (v("eligibility.regions")) e.regions = list(v("eligibility.regions"));
  if (v("eligibility.new_users_only")) e.new_users_only = true;
  if (v("eligibility.allow_list")) e.allow_list = true;
  return e;
}

/**
 * POSTs a form's body. On 201 calls `created` with the answer; otherwise
 * shows the API's error next to the field it names (or at #form-error).
 */
async function submitForm(form, path, body, created) {
  form.querySelectorAll("[data-error-for]").forEach((n) => { n.textContent = ""; });
  form.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
  form.querySelector("#form-error").textContent = "";
  const r = await api("POST", path, body);
  if (r.status === 201) return created(r.body);
  showFieldError(form, r.body);
}

/** Puts the API's message next to the field it names ("discount.amount: ...", "items[1].count: ..."). */
function showFieldError(form, body) {
  const message = body && body.error ? body.error.message : "unexpected answer";
  const m = message.match(/^(?:invalid JSON at )?([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+)?)/);
  const named = m && [...form.querySelectorAll("[data-error-for]")].find((n) =>
    m[1] === n.dataset.errorFor || m[1].startsWith(`${n.dataset.errorFor}.`) || n.dataset.errorFor.startsWith(`${m[1]}.`));
  if (named) {
    named.textContent = message;
    const input = form.querySelector(`[data-field="${named.dataset.errorFor}"]`);
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  } else form.querySelector("#form-error").textContent = errorText(body);
}

// ---- app keys -------------------------------------------------------------

const SCOPES = ["orders", "wallets:read", "redemptions", "reports:read"];

/** App keys (admin): make one (the key shown once), rotate with an overlap, revoke. */
async function keysPage() {
  const r = await api("GET", "/v1/api-keys");
  if (r.status !== 200) return show(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const shown = el("div", { id: "new-key", "aria-live": "polite" });
  const rows = r.body.keys.map((k) => el("tr", {},
    el("td", {}, k.name, el("br"), el("code", { class: "hint", title: k.id }, k.id.slice(0, 8))),
    el("td", {}, k.scopes.join(", ")),
    el("td", {}, shortTime(k.created_at)),
    el("td", {}, k.last_used_at ? shortTime(k.last_used_at) : "—"),
    el("td", {}, k.revoked_at ? el("span", { class: "status void" }, `revoked ${shortTime(k.revoked_at)}`)
      : el("span", {}, keyRotateForm(k, shown), revokeButton(k)))));
  show(el("h1", {}, "App keys"), shown, newKeyForm(shown),
    rows.length ? table(["Key", "Scopes", "Made", "Last used", ""], rows, { id: "key-table" })
      : el("p", {}, "No app keys yet."),
    el("p", { class: "hint" }, "A key is shown once, when it is made or rotated. A revoked key is " +
      "refused by every server within 5 s; a rotated one keeps working for the overlap asked for."));
}

function showKey(shown, what, key) {
  shown.replaceChildren(el("div", { class: "card", role: "status" },
    el("p", {}, `${what}, shown only this once: copy it now.`), el("code", { class: "wrap", id: "shown-key" }, key)));
}

function newKeyForm(shown) {
  const name = el("input", { id: "key-name", required: true, maxlength: 64, pattern: "[A-Za-z0-9._-]+" });
  const boxes = SCOPES.map((s) => el("input", { type: "checkbox", id: `scope-${s}`, value: s }));
  return el("form", { class: "card", on: { submit: async (e) => {
    e.preventDefault();
    const scopes = boxes.filter((b) => b.checked).map((b) => b.value);
    const a = await api("POST", "/v1/api-keys", { name: name.value, scopes });
    if (a.status !== 201) return alert(errorText(a.body));
    await keysPage();
    showKey(document.getElementById("new-key"), `The key of ${a.body.name}`, a.body.key);
  } } }, el("h2", {}, "New key"), el("label", { for: "key-name" }, "App name"), name,
    el("fieldset", { class: "scopes" }, el("legend", {}, "Scopes"),
      SCOPES.map((s, i) => el("label", { for: `scope-${s}` }, boxes[i], ` ${s}`))),
    el("button", { type: "submit" }, "Make key"));
}

function keyRotateForm(k, shown) {
  const id = `key-overlap-${k.id}`;
  const overlap = el("input", { id, type: "number", min: 0, max: 604800, value: 3600, class: "short" });
  return el("form", { class: "rotate", on: { submit: async (e) => {
    e.preventDefault();
    if (!confirm(`Rotate the key of ${k.name}? The old key keeps working for ${overlap.value} s.`)) return;
    const a = await api("POST", `/v1/api-keys/${k.id}/rotate`, { overlap_secs: Number(overlap.value) });
    if (a.status !== 200) return alert(errorText(a.body));
    await keysPage();
    showKey(document.getElementById("new-key"), `The new key of ${k.name}`, a.body.key);
  } } }, el("label", { for: id }, "Overlap (s)"), overlap, el("button", { type: "submit" }, "Rotate"));
}

function revokeButton(k) {
  return el("button", { type: "button", class: "void", "aria-label": `revoke ${k.name}`, on: { click: async () => {
    if (!confirm(`Revoke the key of ${k.name}? Every server refuses it within 5 s.`)) return;
    const a = await api("POST", `/v1/api-keys/${k.id}/revoke`, {});
    if (a.status !== 200) alert(errorText(a.body));
    keysPage();
  } } }, "Revoke");
}

// ---- webhooks -------------------------------------------------------------

/** Webhooks (admin): endpoints with their delivery counts, one's latest deliveries; make, disable, replay. */
async function webhooksPage(params) {
  const r = await api("GET", "/v1/webhooks");
  if (r.status !== 200) return show(el("p", { class: "error", role: "alert" }, errorText(r.body)));
  const shown = el("div", { id: "new-key", "aria-live": "polite" });
  const rows = r.body.webhooks.map((w) => el("tr", {},
    el("td", {}, el("a", { href: `#/webhooks?id=${w.id}` }, w.url), el("br"),
      el("span", { class: "hint" }, w.description || "")),
    el("td", {}, w.event_types.join(", ")),
    el("td", {}, el("span", { class: `status ${w.enabled ? "active" : "void"}` }, w.enabled ? "enabled" : "disabled")),
    el("td", { class: "num" }, String(w.deliveries.pending)),
    el("td", { class: "num" }, String(w.deliveries.delivered)),
    el("td", { class: "num" }, String(w.deliveries.failed)),
    el("td", {}, webhookToggle(w))));
  const chosen = params.get("id");
  show(el("h1", {}, "Webhooks"), shown, newWebhookForm(shown),
    rows.length ? table(["Endpoint", "Events", "State", "Pending", "Delivered", "Failed", ""], rows, { id: "webhook-table" })
      : el("p", {}, "No webhooks yet."),
    el("p", { class: "hint" }, "Deliveries are signed (Ledger-Signature), retried with backoff for the " +
      "endpoint's retry window, and sent per stream in order; receivers deduplicate by Ledger-Event-Id."),
    chosen ? await deliveriesSection(chosen) : "");
}

function newWebhookForm(shown) {
  const url = el("input", { id: "webhook-url", type: "url", required: true, maxlength: 2048, placeholder: "your receiver's HTTPS URL" });
  const types = el("input", { id: "webhook-types", value: "*", required: true });
  const about = el("input", { id: "webhook-description", maxlength: 500 });
  return el("form", { class: "card", on: { submit: async (e) => {
    e.preventDefault();
    const event_types = types.value.split(",").map((t) => t.trim()).filter(Boolean);
    const body = { url: url.value, event_types, description: about.value || undefined };
    const a = await api("POST", "/v1/webhooks", body);
    if (a.status !== 201) return alert(errorText(a.body));
    await webhooksPage(new URLSearchParams());
    showKey(document.getElementById("new-key"), "The endpoint's signing secret", a.body.secret);
  } } }, el("h2", {}, "New webhook"), el("label", { for: "webhook-url" }, "URL"), url,
    el("label", { for: "webhook-types" }, "Event types (comma-separated, * for all)"), types,
    el("label", { for: "webhook-description" }, "Description"), about,
    el("button", { type: "submit" }, "Make webhook"));
}

function webhookToggle(w) {
  const action = w.enabled ? "disable" : "enable";
  return el("button", { type: "button", class: w.enabled ? "void" : "", on: { click: async () => {
    if (w.enabled && !confirm(`Disable ${w.url}? Events meanwhile are not queued for it.`)) return;
    const a = await api("POST", `/v1/webhooks/${w.id}/${action}`, {});
    if (a.status !== 200) alert(errorText(a.body));
    webhooksPage(new URLSearchParams(location.hash.split("?")[1] || ""));
  } } }, action[0].toUpperCase() + action.slice(1));
}

async function deliveriesSection(id) {
  const r = await api("GET", `/v1/webhooks/${id}/deliveries?limit=100`);
  if (r.status !== 200) return el("p", { class: "error", role: "alert" }, errorText(r.body));
  const rows = r.body.deliveries.map((d) => el("tr", {},
    el("td", { class: "num" }, String(d.position)), el("td", {}, d.event_type),
    el("td", {}, el("span", { class: `status ${d.status === "delivered" ? "active" : d.status === "failed" ? "void" : ""}` }, d.status)),
    el("td", { class: "num" }, String(d.attempts)),
    el("td", {}, d.last_status ? String(d.last_status) : "—"),
    el("td", {}, d.last_error || "")));
  const from = el("input", { id: "replay-from", type: "number", min: 0, value: 0, class: "short" });
  const replay = el("form", { class: "rotate", on: { submit: async (e) => {
    e.preventDefault();
    const a = await api("POST", `/v1/webhooks/${id}/replay`, { from_position: Number(from.value) });
    alert(a.status === 202 ? `Replaying positions ${a.body.from_position} to ${a.body.until_position}` : errorText(a.body));
  } } }, el("label", { for: "replay-from" }, "Replay from position"), from, el("button", { type: "submit" }, "Replay"));
  return el("section", {}, el("h2", {}, "Latest deliveries"), replay,
    rows.length ? table(["Position", "Event", "State", "Attempts", "Answer", "Error"], rows, { id: "delivery-table" })
      : el("p", {}, "No deliveries yet."));
}

// ---- routing -------------------------------------------------------------

/** The sections the caller may open, and who is signed in. */
function showNav() {
  const nav = document.getElementById("nav");
  nav.hidden = false;
  for (const a of nav.querySelectorAll("a[data-needs]")) a.hidden = !may(a.dataset.needs);
  const who = document.getElementById("who");
  who.textContent = me.role ? `${me.name} (${me.role})` : me.name;
}

async function route() {
  if (!token()) return signInPage();
  if (!me) {
    const r = await api("GET", "/v1/me");
    if (r.status !== 200) return signInPage(errorText(r.body));
    me = r.body;
  }
  showNav();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  if (parts[0] === "new") return newTemplatePage();
  if (parts[0] === "coupons") return couponsPage(params);
  if (parts[0] === "finance") return financePage(params);
  if (parts[0] === "workers") return workersPage();
  if (parts[0] === "packages") return packagesPage(params);
  if (parts[0] === "channels") return channelsPage();
  if (parts[0] === "keys") return keysPage();
  if (parts[0] === "webhooks") return webhooksPage(params);
  if (parts[0] === "codes" && parts[1]) return batchPage(decodeURIComponent(parts[1]));
  if (parts[0] === "codes") return codesPage(params);
  if (parts[0] === "templates" && parts[1]) return templatePage(decodeURIComponent(parts[1]));
  return templatesPage(params);
}

document.getElementById("sign-out").addEventListener("click", signOut);
window.addEventListener("hashchange", route);
route();
