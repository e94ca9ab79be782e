// settings.js: the Settings card (docs/WEB.md "Settings", "Backup"). Every value shown is the
// daemon's (`settings` op): its value, where it comes from (default, the config file, this
// page) and what the parser accepts. An edit is one `settings_set`; a refusal shows the
// parser's own message beside its field. Backup is `settings_export` saved as a file; restore
// sends a chosen file's text to `settings_import`, which takes all of it or nothing; a backup
// may carry the running activities too (the checkbox), which a restore puts in place of the
// running ones. A read-only page shows the values, every field disabled, without reset or backup.
(() => {
const W = ISLET_WORDS, $ = (id) => document.getElementById(id);
// The card's body, put in place when this script first runs (the card's first open), so a
// closed card costs a first load nothing. Its elements' English is read back from them, as the
// page's own is (the build leaves those words out of the page's script).
$("settings-open").insertAdjacentHTML("beforeend", [
  '<p class="hint" data-w="s_where">Kept on the display, over its config file. Reset gives back the file’s value.</p>',
  '<form id="settings-form" autocomplete="off" novalidate>',
  '<div id="settings-fields"></div>',
  '</form>',
  '<p class="hint"><span data-w="s_file_only">Only the config file sets these</span>: <span id="settings-file-only" dir="ltr"></span></p>',
  '<div class="tools">',
  '<label><input type="checkbox" id="settings-activities"> <span data-w="s_with_activities">Include running activities</span></label>',
  '<button type="button" id="settings-backup" data-w="s_backup">Download backup</button>',
  '<button type="button" id="settings-restore-btn" data-w="s_restore">Restore a backup</button>',
  '<input type="file" id="settings-restore" accept="application/json,.json" class="vh" tabindex="-1" aria-hidden="true">',
  '<a id="settings-download" download="islet-settings.json" href="#" hidden>backup</a>',
  '</div>',
  '<p id="settings-result" role="status" aria-live="polite" dir="auto"></p>',
  '<template id="set-row">',
  '<div class="set-row">',
  '<label class="set-label"></label>',
  '<div class="set-line"><span class="set-input"></span><button type="button" class="set-reset" data-w="s_reset">Use the file’s</button></div>',
  '<p class="hint set-info"><span class="set-source"></span> <span class="set-accepts" dir="auto"></span></p>',
  '<p class="err set-error" role="alert" dir="auto"></p>',
  '</div>',
  '</template>'
].join(""));
W.harvest($("settings-open"));
// A chosen file is read only up to this; the daemon's own bound is 16 KiB (it names it).
// A backup's bound (SettingsDocument.maximumBackupBytes), as isletctl's.
const MAX_UPLOAD = 16 * 1024;
let report = null, loading = false, again = false;
const rows = new Map(), errors = new Map();

function lang() {
  const l = document.documentElement.lang;
  return W.langs.includes(l) ? l : "en";
}
// `key`'s words in the page's language with each {name} filled in; the key itself if unknown.
function t(key, vals) {
  let s = key;
  if (Object.hasOwn(W.t, key)) {
    const e = W.t[key].split("|");
    s = e[W.langs.indexOf(lang())] || e[0];
  }
  if (vals) s = s.replace(/\{(\w+)\}/g, (m, k) => (Object.hasOwn(vals, k) ? String(vals[k]) : m));
  return s;
}
function setText(el, s) { if (el.textContent !== s) el.textContent = s; }

// One control-socket request through the page's API, its JSON answer (or a made-up refusal).
async function ask(req) {
  let res, j = null;
  try {
    res = await fetch("/api/request", {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: {"Content-Type": "application/json", Accept: "application/json"}, body: JSON.stringify(req)});
  } catch (e) {
    return {ok: false, error: {code: "network", message: t("e_network")}};
  }
  try { j = await res.json(); } catch (e) { j = null; }
  if (!j || typeof j !== "object" || Array.isArray(j)) j = {ok: false, error: {code: "internal", message: "HTTP " + res.status}};
  return j;
}

function readOnly() { return document.body.classList.contains("ro"); }
function labelOf(key) { return t("s_" + key.replace(/\./g, "_")); }

function newRow(e) {
  const row = $("set-row").content.firstElementChild.cloneNode(true), id = "set-" + e.key.replace(/\./g, "-");
  let input;
  if (Array.isArray(e.choices)) {
    input = document.createElement("select");
    for (const c of e.choices) {
      const o = document.createElement("option");
      o.value = String(c);
      o.textContent = String(c);
      input.append(o);
    }
  } else {
    input = document.createElement("input");
    input.type = "text";
    input.spellcheck = false;
    input.autocapitalize = "off";
    input.maxLength = 256;
  }
  input.id = id;
  input.name = e.key;
  input.dir = "auto";
  input.setAttribute("aria-describedby", id + "-info " + id + "-err");
  row.dataset.key = e.key;
  row.querySelector(".set-label").htmlFor = id;
  row.querySelector(".set-input").replaceWith(input);
  row.querySelector(".set-info").id = id + "-info";
  row.querySelector(".set-error").id = id + "-err";
  input.addEventListener("change", () => setValue(e.key, input.value.trim()));
  row.querySelector(".set-reset").addEventListener("click", () => reset(e.key));
  $("settings-fields").append(row);
  return row;
}

function render() {
  if (!report) return;
  for (const e of report.keys || []) {
    if (typeof e.key !== "string") continue;
    const row = rows.get(e.key) || newRow(e);
    rows.set(e.key, row);
    const input = row.querySelector("input, select"), label = labelOf(e.key), err = errors.get(e.key) || "";
    input.disabled = readOnly();
    setText(row.querySelector(".set-label"), label);
    // A field being typed in keeps what the person typed; a refused one too, beside its message.
    if (document.activeElement !== input && !err) input.value = String(e.value);
    row.dataset.source = e.source;
    setText(row.querySelector(".set-source"), e.source === "page" ? t("s_src_page", {file: e.file_value}) : t("s_src_" + e.source));
    setText(row.querySelector(".set-accepts"), e.accepts || "");
    // A choice the page has words for (countdown, stopwatch) in the page's language; the rest as the file writes it.
    if (input.tagName === "SELECT") for (const o of input.options) setText(o, t(o.value));
    const rb = row.querySelector(".set-reset");
    setText(rb, t("s_reset"));
    rb.hidden = e.source !== "page" || readOnly();
    rb.setAttribute("aria-label", t("s_reset_of", {name: label}));
    setText(row.querySelector(".set-error"), err);
    if (err) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
  }
  setText($("settings-file-only"), (report.file_only || []).join(", "));
}

function result(text, ok) {
  const el = $("settings-result");
  el.dataset.ok = ok ? "true" : "false";
  setText(el, text);
}

function took(r, key) {
  if (r.ok && r.settings) {
    report = r.settings;
    if (key) errors.delete(key);
    return true;
  }
  const m = (r.error && (r.error.message || r.error.code)) || "refused";
  if (key) errors.set(key, m); else result(m, false);
  return false;
}

async function load() {
  // A notice during a read: that read may be older than the change, so read once more after it.
  if (loading) { again = true; return; }
  loading = true;
  const r = await ask({op: "settings"});
  loading = false;
  if (took(r)) render();
  if (again) { again = false; load(); }
}

async function setValue(key, value) {
  const r = await ask({op: "settings_set", key: key, value: value});
  if (took(r, key)) result(labelOf(key) + ": " + t("s_saved"), true); else result("", false);
  render();
}

async function reset(key) {
  errors.delete(key);
  const r = await ask({op: "settings_reset", key: key});
  if (took(r, key)) result(labelOf(key) + ": " + t("s_saved"), true);
  render();
}

async function backup() {
  const r = await ask({op: "settings_export", activities: $("settings-activities").checked});
  if (!r.ok || !r.settings || typeof r.settings.backup !== "string") return took(r);
  // A data: URL (the backup is at most 16 KiB): the page's CSP (default-src 'self') reads no blob:.
  const a = $("settings-download");
  a.href = "data:application/json;charset=utf-8," + encodeURIComponent(r.settings.backup);
  a.click();
  result(t("s_backup") + ": islet-settings.json", true);
}

// A backup sent compacted: whitespace would count twice against the request's 16 KiB (a newline
// is \n in it). Only whitespace outside strings goes (not JSON.stringify, which would drop a key
// given twice that the daemon must refuse); text that is not JSON goes as is.
function compact(text) {
  try { JSON.parse(text); } catch (e) { return text; }
  let out = "", inString = false, escaped = false;
  for (const c of text) {
    if (inString) { out += c; if (escaped) escaped = false; else if (c === "\\") escaped = true; else if (c === "\"") inString = false; }
    else if (c === "\"") { inString = true; out += c; }
    else if (!" \t\n\r".includes(c)) out += c;
  }
  return out;
}

async function restore(file) {
  if (!file) return;
  if (file.size > MAX_UPLOAD) return result(file.name + ": " + file.size + " bytes; a backup is at most " + MAX_UPLOAD + " bytes", false);
  let text;
  try { text = await file.text(); } catch (e) { return result(String(e), false); }
  const r = await ask({op: "settings_import", backup: compact(text)});
  if (took(r)) {
    errors.clear();
    const n = (report.keys || []).filter((e) => e.source === "page").length;
    let a = null;
    try { a = JSON.parse(text).activities; } catch (e) { a = null; }
    result(t("s_restored", {n: n}) + (Array.isArray(a) ? " · " + t("s_restored_activities", {n: a.length}) : ""), true);
    render();
  }
}

$("settings-open").querySelectorAll("[data-w]").forEach((e) => setText(e, t(e.dataset.w)));
// Each field is sent on its own change; the form is never submitted.
$("settings-form").addEventListener("submit", (ev) => ev.preventDefault());
$("settings-open").addEventListener("toggle", () => { if ($("settings-open").open) load(); });
$("settings-backup").addEventListener("click", backup);
$("settings-restore-btn").addEventListener("click", () => $("settings-restore").click());
$("settings-restore").addEventListener("change", (ev) => {
  const input = ev.currentTarget, file = input.files && input.files[0];
  restore(file).finally(() => { input.value = ""; });
});
$("lang").addEventListener("change", render);
// A notice on the events stream: a setting changed elsewhere (isletctl, another tab, a reload).
document.addEventListener("islet:settings", () => { if ($("settings-open").open) load(); });
// The session became (or stopped being) read only: the fields follow.
document.addEventListener("islet:session", render);
// Back on the tab: what a shell or another page changed meanwhile.
document.addEventListener("visibilitychange", () => { if (!document.hidden && $("settings-open").open) load(); });
})();
