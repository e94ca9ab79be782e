(() => {
const W = ISLET_WORDS, P = ISLET_PARTS, $ = (id) => document.getElementById(id);
const {match, clock, shownAfter, untilChange, verbs} = P;
// Codes that share a sentence; DETAIL's add the daemon's message.
const SAME = {not_due: "not_applicable", too_many_clients: "busy", request_timeout: "busy"};
const BAD = "invalid_json invalid_request missing_field invalid_field unknown_op unknown_field line_too_long unknown_button not_supported invalid_attributes";
const DETAIL = ["bad_request", "internal", "store_failed"];
let lang = "en", sess = {password: false, read_only: false}, started = false;
let model = null, modelAt = 0, stat = null, statAt = 0;
let es = null, live = false, backoff = 1, msg = null, msgTimer = 0, loginErr = null, statusTimer = 0, soonTimer = 0, tickTimer = 0;
const rows = new Map(), busy = new Set();
let audio = null, said = "", quick = [];
const ROW_ERR_MS = 4000;

// Words
// The English of a key the page's own elements say is not repeated in the script (the build
// leaves it out of words.js as served, Words.swift): read back from them, before any is needed.
// A script that brings its own markup (settings.js) reads it back the same way, when it brings it.
function harvest(root) {
  root.querySelectorAll("[data-w]").forEach((e) => { if (!W.t[e.dataset.w]) W.t[e.dataset.w] = e.textContent; else english(e.dataset.w, e.textContent); });
  root.querySelectorAll("template").forEach((x) => harvest(x.content));
}
// The English part of `k`, where a language's words came before it (a key only a later script's
// markup says: its words file may have come first).
function english(k, s) {
  const e = W.t[k].split("|");
  if (!e[0]) { e[0] = s; W.t[k] = e.join("|"); }
}
W.harvest = harvest;
harvest(document);
function load(k) { try { return localStorage.getItem(k); } catch (e) { return null; } }
function save(k, v) { try { localStorage.setItem(k, v); } catch (e) { /* private mode */ } }
function pickLang() {
  const q = match(new URLSearchParams(location.search).get("lang"));
  if (q) { save("islet.lang", q); return q; }
  for (const c of [load("islet.lang"), ...(navigator.languages || [navigator.language])]) {
    const m = match(c);
    if (m) return m;
  }
  return "en";
}
// `key`'s words in the page's language (else English), or `other` for no key.
function t(key, other) {
  if (!Object.hasOwn(W.t, key)) return other === undefined ? key : other;
  const e = W.t[key].split("|");
  return e[W.langs.indexOf(lang)] || e[0];
}
// A language's words, from the file the build made for it (islet-page-gen splits words.js):
// each key's part for that language put at its place, the rest English (t's fallback). English
// too, from a script loaded later with the words only it uses (settings.js: served.txt's
// `words.js:s_`): a key the page has no English for yet is kept, its English comes after.
W.add = (l, words) => {
  const i = W.langs.indexOf(l);
  if (i < 0) return;
  for (const k of Object.keys(words)) {
    if (typeof words[k] !== "string") continue;
    const e = (Object.hasOwn(W.t, k) ? W.t[k] : "").split("|");
    e[i] = words[k];
    W.t[k] = Array.from(e, (x) => x || "").join("|");
  }
};
// A script of this origin (the CSP's 'self'), then `done(true)`, or `done(false)` when it fails
// or takes more than 5 s; `done` runs once.
function addScript(src, done) {
  let over = false;
  const end = (ok) => { if (!over) { over = true; clearTimeout(timer); done(ok); } };
  const timer = setTimeout(() => end(false), 5000);
  const el = document.createElement("script");
  el.src = src;
  el.onload = () => end(true);
  el.onerror = () => { el.remove(); end(false); };
  document.head.appendChild(el);
}
// `l`'s words, asked once (English is in this script; a file that does not come leaves English,
// and is asked again on the next choice of that language), then `then(fresh)`, fresh when they
// just came.
const wordsAsked = new Set();
function withWords(l, then) {
  const at = W.files && W.files[l];
  if (!at || wordsAsked.has(l)) return then(false);
  wordsAsked.add(l);
  addScript(at, (ok) => { if (!ok) wordsAsked.delete(l); then(ok); });
}
function setText(el, s) { if (el.textContent !== s) el.textContent = s; }
// A left-to-right island for a number or name among words of either direction.
function ltr(s) {
  const b = document.createElement("bdi");
  b.dir = "ltr";
  b.textContent = String(s);
  return b;
}
// The words of `key` with each {name} replaced by its value, isolated left to right.
function fill(key, vals) {
  return t(key).split(/(\{\w+\})/).filter((s) => s).map((s) => {
    const m = /^\{(\w+)\}$/.exec(s);
    return m ? ltr(vals[m[1]]) : s;
  });
}
function translate(root) {
  root.querySelectorAll("[data-w]").forEach((e) => setText(e, t(e.dataset.w)));
  root.querySelectorAll("[data-wp]").forEach((e) => { e.placeholder = t(e.dataset.wp); });
  root.querySelectorAll("[data-wl]").forEach((e) => e.setAttribute("aria-label", t(e.dataset.wl)));
}
function applyLang() {
  const root = document.documentElement;
  root.lang = lang;
  root.dir = W.rtl.includes(lang) ? "rtl" : "ltr";
  $("lang").value = lang;
  translate(document);
  render();
  renderStatus();
  renderAlerts();
  renderQuick();
  paintMessage();
  rows.forEach((li) => { const p = li.querySelector(".row-err"); if (p._err) setText(p, describe(p._err)); });
  setText($("login-error"), loginErr ? describe(loginErr) : "");
}
function describe(err) {
  const code = (err && err.code) || "internal", key = BAD.split(" ").includes(code) ? "bad_request" : SAME[code] || code;
  let s = t("e_" + key, (err && err.message) || code);
  if (DETAIL.includes(key) && err.message) s += " (" + err.message + ")";
  return s;
}

// Messages
function showMessage(err) {
  msg = err;
  clearTimeout(msgTimer);
  if (err) msgTimer = setTimeout(() => showMessage(null), 5000);
  paintMessage();
}
// A row's refusal stays by its row, briefly; nothing else is covered.
function rowError(li, err) {
  const p = li && li.querySelector(".row-err");
  if (!p) return showMessage(err);
  clearTimeout(p._timer);
  p._err = err;
  setText(p, err ? describe(err) : "");
  if (err) p._timer = setTimeout(() => rowError(li, null), ROW_ERR_MS);
}
function paintMessage() {
  const el = $("message");
  el.dataset.code = msg ? msg.code || "" : "";
  el.title = (msg && msg.message) || "";
  setText(el, msg ? describe(msg) : "");
}

// Requests
async function api(path, body) {
  const init = {credentials: "same-origin", cache: "no-store", headers: {Accept: "application/json"}};
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res, j = null;
  try { res = await fetch(path, init); } catch (e) { return {ok: false, error: {code: "network"}, http: 0}; }
  try { j = await res.json(); } catch (e) { j = null; }
  if (!j || typeof j !== "object" || Array.isArray(j)) {
    const code = {401: "login_required", 403: "read_only", 429: "rate_limited", 503: "busy"}[res.status] || "internal";
    j = res.ok ? {ok: true} : {ok: false, error: {code: code}};
  }
  j.http = res.status;
  if (res.status === 401 && path !== "/api/login") needLogin();
  if (res.status === 403 && j.error && j.error.code === "read_only") { sess.read_only = true; applySession(); }
  return j;
}
// The button stays disabled until the answer: a double tap cannot start twice.
async function send(req, btn) {
  const li = btn.closest("#list > li");
  const fail = (e) => (li ? rowError(li, e) : showMessage(e));
  if (sess.read_only) { fail({code: "read_only"}); return null; }
  busy.add(btn);
  btn.disabled = true;
  const r = await api("/api/request", req);
  busy.delete(btn);
  settle(btn);
  if (r.ok) {
    if (li) rowError(li, null); else showMessage(null);
    if (!live) take(r);
  } else if (r.http !== 401) {
    fail(r.error || {code: "internal"});
  }
  return r;
}
// Off while read-only, while its request is out, or while the state refuses the verb.
function settle(b) { b.disabled = !!sess.read_only || busy.has(b) || b.dataset.refused === "true"; }

// The activities
function take(d) {
  if (!d || !Array.isArray(d.activities)) return;
  model = d;
  modelAt = performance.now();
  render();
  tick();
}
function newRow(id) {
  const li = $("row").content.firstElementChild.cloneNode(true);
  translate(li);
  li.dataset.timer = id;
  li.querySelectorAll("[data-op]").forEach((b) => { b.dataset.timer = id; });
  return li;
}
function render() {
  const acts = model ? model.activities : [], shown = (model && model.shown_timers) || [], list = $("list");
  acts.forEach((a, i) => {
    let li = rows.get(a.timer);
    if (!li) { li = newRow(a.timer); rows.set(a.timer, li); }
    if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
    paintRow(li, a, shown.includes(a.timer));
  });
  rows.forEach((li, id) => {
    if (!acts.some((a) => a.timer === id)) { li.remove(); rows.delete(id); }
  });
  $("empty").hidden = acts.length > 0;
  const p = (model && model.presentation) || "off";
  setText($("presentation"), t("p_" + p, p));
  $("shown-timers").replaceChildren(shown.join(" "));
  renderPill();
  const tp = $("test-pattern");
  tp.dataset.w = p === "test_pattern" ? "stop_pattern" : "p_test_pattern";
  setText(tp, t(tp.dataset.w));
  applySession();
}
function paintRow(li, a, onPill) {
  const at = a.attributes || {}, c = a.content || {}, sw = at.kind === "stopwatch", until = at.kind === "until";
  li.dataset.phase = a.phase;
  li.dataset.stale = String(!!c.stale);
  li.dataset.shown = String(onPill);
  li.dataset.kind = sw ? "stopwatch" : until ? "until" : "countdown";
  // An until activity is named by its source; its status text stands where a cycle would.
  setText(li.querySelector(".name"), at.title || (until ? a.timer : t(sw ? "stopwatch" : "meditation")));
  // What a screen reader names its buttons by: its title, else its timer (two untitled
  // countdowns both show "Meditation"; their timers differ).
  const name = accessibleName(a);
  setText(li.querySelector(".tid"), a.timer);
  setText(li.querySelector(".phase"), t(a.phase === "cycle_end" ? "cycle_complete" : a.phase, a.phase));
  const pushed = until && c.pushed && typeof c.pushed === "object" ? c.pushed : {};
  const text = typeof pushed.text === "string" ? [pushed.text] : [];
  li.querySelector(".cycle").replaceChildren(...(sw ? [] : until ? text : fill(c.cycles ? "cycle" : "cycle_open", c)));
  // A source's progress, as a bar beside the time (the time may be its end's countdown).
  const bar = li.querySelector(".progress"), pr = typeof pushed.progress === "number" && pushed.progress >= 0 && pushed.progress <= 1 ? Math.round(pushed.progress * 100) : null;
  bar.hidden = pr === null;
  if (pr !== null) {
    bar.setAttribute("aria-valuenow", String(pr));
    bar.setAttribute("aria-label", t("progress") + " " + name);
    bar.firstElementChild.style.width = pr + "%";
  }
  // Only the verbs the table has for its kind; those its state refuses are off.
  const v = verbs(a);
  li.querySelectorAll("button[data-op]").forEach((b) => {
    b.hidden = !v.offered.includes(b.dataset.op);
    b.dataset.refused = String(v.refused.includes(b.dataset.op));
    b.setAttribute("aria-label", fill("op_of", {op: t(b.dataset.op), name: name}).map((x) => (typeof x === "string" ? x : x.textContent)).join(""));
    settle(b);
  });
  li.dataset.ops = String(v.offered.length);
  li.querySelector(".stale").hidden = !c.stale;
  setText(li.querySelector(".time"), a.shown);
  li.querySelector('[data-op="pause"]').classList.toggle("primary", a.phase === "running" || a.phase === "cycle_end");
  li.querySelector('[data-op="resume"]').classList.toggle("primary", a.phase === "paused");
}
function accessibleName(a) {
  const at = a.attributes || {}, acts = (model && model.activities) || [];
  const title = typeof at.title === "string" && at.title ? at.title : "";
  if (!title) return a.timer;
  return acts.some((b) => b !== a && b.attributes && b.attributes.title === title) ? title + " (" + a.timer + ")" : title;
}
// The activity the pill shows first (the one the tab's title and the canvas's text follow).
function pillActivity() {
  const shown = (model && model.shown_timers) || [];
  return model && shown.length ? model.activities.find((a) => a.timer === shown[0]) || null : null;
}
// The tab's title and the canvas's text: the shown time and phase; a live region says the
// phase and title when they change (not every second).
function renderPill(now) {
  const a = pillActivity(), time = a ? shownAfter(a, (now || performance.now()) - modelAt) : "";
  const next = P.tabTitle(time, a && a.phase);
  if (document.title !== next) document.title = next;
  const c = $("pill");
  let label = t("p_off");
  if (a) {
    const at = a.attributes || {}, ph = t(a.phase === "cycle_end" ? "cycle_complete" : a.phase, a.phase);
    label = [time, ph, at.title || a.timer].join(", ");
    const s = ph + ", " + (at.title || a.timer);
    if (s !== said) { said = s; setText($("pill-said"), s); }
  } else if (said) { said = ""; setText($("pill-said"), t("p_off")); }
  if (c.getAttribute("aria-label") !== label) c.setAttribute("aria-label", label);
}
// Redraws the running times, then again when the next one changes (at most a second on).
function tick() {
  const now = performance.now();
  let next = 1000;
  if (model) {
    for (const a of model.activities) {
      const li = rows.get(a.timer);
      if (li) setText(li.querySelector(".time"), shownAfter(a, now - modelAt));
      next = Math.min(next, untilChange(a, now - modelAt));
    }
  }
  renderPill(now);
  if (stat && typeof stat.uptime_seconds === "number") setText($("st-uptime"), clock(stat.uptime_seconds + (now - statAt) / 1000));
  clearTimeout(tickTimer);
  tickTimer = setTimeout(tick, Math.max(next, 0) + 2);
}
function drawFrame(f) {
  if (P.paint($("pill"), f)) $("frame").dataset.on = String(f.on !== false);
}
window.addEventListener("resize", () => P.fit($("pill")));

// The display's status
async function loadStatus() {
  const r = await api("/api/status");
  if (!r.ok) return;
  if (!live) take(r);
  if (r.status) {
    stat = r.status;
    statAt = performance.now();
    renderStatus();
    if (!$("pill").dataset.pages && stat.panel) drawFrame(stat.panel);
  }
}
function put(id, parts, good) {
  const dd = $(id), out = [];
  parts.filter((p) => p !== null && p !== undefined && p !== "").forEach((p, i) => { if (i) out.push(" · "); out.push(p); });
  dd.replaceChildren(...out);
  if (good === undefined) delete dd.dataset.good; else dd.dataset.good = String(good);
}
function renderStatus() {
  const s = stat;
  if (!s) return;
  put("st-panel", [t(s.panel_present ? "present" : "absent"), s.size && ltr(s.size), s.panel_on === false ? t("dark") : null], !!s.panel_present);
  put("st-bus", [s.bus && ltr(s.bus)]);
  put("st-errors", [ltr(s.bus_errors | 0)], !s.bus_errors);
  const m = s.mqtt;
  put("st-mqtt", m ? [t(m.state === "connected" ? "present" : "m_" + m.state, m.state), ltr(m.broker || ""), m.reason] : [t("not_set")],
    m ? m.state === "connected" : undefined);
  const y = s.sync;
  put("st-sync", y ? [ltr(y.group), ltr(y.device)] : [t("not_set")], y ? y.clock !== "off" : undefined);
  const peers = (y && y.peers) || [];
  $("st-peers").replaceChildren(...(peers.length ? peers.map((p) => { const b = ltr(p); b.className = "chip"; return b; }) : ["—"]));
  $("st-peers").hidden = $("st-peers").previousElementSibling.hidden = !y;
  put("st-version", [ltr(s.version || "")]);
  const warn = [];
  if (y && y.clock === "off") warn.push(t("clock_off"));
  if (s.clock_behind) warn.push(t("clock_behind"));
  if (s.store_error) warn.push(t("store_error") + ": " + s.store_error);
  setText($("st-warn"), warn.join("\n"));
  $("st-warn").hidden = !warn.length;
  renderNight();
  tick();
}

// Night and brightness: the switch and the slider show the daemon's night block; the pill
// dims as the glass does. A slider being dragged keeps the person's value.
function renderNight() {
  const n = P.nightView(stat && stat.night);
  $("night").hidden = !n;
  $("frame").dataset.night = String(!!(n && n.on));
  $("pill").style.filter = n && n.dim < 1 ? "brightness(" + n.dim + ")" : "";
  if (!n) return;
  $("night-on").checked = n.on;
  const slider = $("contrast");
  if (n.contrast !== null && document.activeElement !== slider) slider.value = String(n.contrast);
  setText($("contrast-v"), slider.value);
  const when = [];
  if (n.window) when.push(...fill("night_window", {window: n.window.replace("-", "\u2013")}));
  // A boundary that changes nothing seen (a request already holds its mode) hands back to the schedule.
  const key = !n.next ? null : n.next.night === n.on ? "schedule_from" : n.next.night ? "night_from" : "day_from";
  if (key) { if (when.length) when.push(" · "); when.push(...fill(key, {time: n.next.at})); }
  $("night-when").replaceChildren(...when);
}
async function brightness(req, el) {
  const r = await send(Object.assign({op: "brightness"}, req), el);
  if (r && r.ok && r.status) { stat = r.status; statAt = performance.now(); renderStatus(); } else renderNight();
}

// The end of a session, noticed: a chime and a vibration once a tap allowed them, and a system
// notification where the browser gives one (a secure context and the permission).
function notifyState() {
  if (!("Notification" in window)) return "n_unsupported";
  if (!window.isSecureContext) return "n_insecure";
  return {granted: "n_on", denied: "n_denied"}[Notification.permission] || "n_ask";
}
function renderAlerts() {
  const on = !!audio;
  const b = $("sound");
  b.setAttribute("aria-pressed", String(on));
  b.dataset.w = on ? "sound_is_on" : "sound_on";
  setText(b, t(b.dataset.w));
  const st = notifyState();
  $("notify-note").dataset.state = st;
  setText($("notify-note"), t(st));
}
async function allowSound() {
  try {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (AC && !audio) audio = new AC();
    if (audio && audio.state === "suspended") await audio.resume();
  } catch (e) { audio = null; }
  save("islet.sound", "on");
  if (notifyState() === "n_ask") { try { await Notification.requestPermission(); } catch (e) { /* an old browser */ } }
  renderAlerts();
}
// The chime, the vibration and the notifications (alerts.js) paint nothing: asked the first time
// alerts come (the stream is live then); alerts that come meanwhile wait for it. A file that does
// not come loses those alerts and is asked again on the next ones.
let alertsWaiting = null;
function notice(alerts, d) {
  if (!alerts.length) return;
  const run = (x, y) => window.ISLET_ALERTS(x, y, audio, t, lang, notifyState() === "n_on");
  if (window.ISLET_ALERTS) return run(alerts, d);
  if (alertsWaiting) return alertsWaiting.push([alerts, d]);
  alertsWaiting = [[alerts, d]];
  addScript("/alerts.js", (ok) => {
    const q = alertsWaiting;
    alertsWaiting = null;
    if (ok && window.ISLET_ALERTS) q.forEach(([x, y]) => run(x, y));
  });
}

// Quick starts: the last three lengths used, smallest first.
function renderQuick() {
  const box = $("quick");
  box.querySelectorAll("button").forEach((b) => b.remove());
  for (const m of quick.slice().sort((x, y) => x - y)) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.minutes = String(m);
    b.append(...fill("n_min", {n: m}));
    b.setAttribute("aria-label", fill("start_n_min", {n: m}).map((x) => (typeof x === "string" ? x : x.textContent)).join(""));
    b.disabled = !!sess.read_only;
    box.append(b);
  }
}
function remember(minutes) {
  quick = P.rememberLength(quick, minutes);
  save("islet.quick", JSON.stringify(quick));
}

// Session and stream
function applySession() {
  const ro = !!sess.read_only;
  document.body.classList.toggle("ro", ro);
  $("ro-note").hidden = !ro;
  $("start").hidden = ro;
  $("test-pattern").hidden = ro;
  document.querySelectorAll("#list .ops").forEach((e) => { e.hidden = ro; });
  document.querySelectorAll("button[data-op]").forEach(settle);
  $("night-on").disabled = $("contrast").disabled = ro;
  document.querySelectorAll("#quick button").forEach((b) => { b.disabled = ro || busy.has(b); });
  $("logout").hidden = !sess.password;
  document.dispatchEvent(new Event("islet:session"));
}
function setConn(state) {
  $("conn").dataset.state = state;
  const tx = $("conn-text");
  tx.dataset.w = "conn_" + state;
  setText(tx, t(tx.dataset.w));
}
function stop() {
  if (es) { es.close(); es = null; }
  live = false;
  started = false;
  clearInterval(statusTimer);
}
function needLogin() {
  stop();
  $("app").hidden = true;
  $("login").hidden = false;
  $("conn").hidden = true;
  $("password").focus();
}
function begin() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("conn").hidden = false;
  if (started) return;
  started = true;
  loadStatus();
  connect();
  statusTimer = setInterval(() => { if (!document.hidden) loadStatus(); }, 10000);
}
async function check() {
  const s = await api("/api/session");
  if (s.http === 0) { setConn("down"); setTimeout(check, 3000); return; }
  if (s.http === 401) return;
  sess = {password: !!s.password, read_only: !!s.read_only};
  applySession();
  if (s.password && s.authenticated === false) needLogin(); else begin();
}
function connect() {
  if (es) es.close();
  setConn("connecting");
  const src = new EventSource("/api/events");
  es = src;
  const on = (name, fn) => src.addEventListener(name, (e) => {
    if (es !== src) return;
    let d = null;
    try { d = JSON.parse(e.data); } catch (x) { return; }
    if (d && typeof d === "object") fn(d);
  });
  src.onopen = () => { if (es === src) { live = true; backoff = 1; setConn("live"); } };
  src.onerror = () => {
    if (es !== src) return;
    live = false;
    setConn("down");
    // EventSource retries by itself; a refused stream (401) is closed for good: ask again.
    if (src.readyState === EventSource.CLOSED) {
      stop();
      setTimeout(check, backoff * 1000);
      backoff = Math.min(backoff * 2, 30);
    }
  };
  on("session", (d) => { sess = {password: !!d.password, read_only: !!d.read_only}; applySession(); });
  on("state", (d) => { live = true; setConn("live"); take(d); });
  on("change", (d) => { take(d); notice(P.alertsOf(d), d); clearTimeout(soonTimer); soonTimer = setTimeout(loadStatus, 300); });
  on("frame", drawFrame);
  // A setting changed somewhere (a shell, another tab, a reload): the Settings card reads them again.
  on("settings", () => document.dispatchEvent(new Event("islet:settings")));
}

// Wiring
function kindChanged() { $("length").disabled = $("kind-stopwatch").checked; }
function restoreForm() {
  let f = null;
  try { f = JSON.parse(load("islet.form") || "null"); } catch (e) { f = null; }
  if (!f || typeof f !== "object") return;
  if (f.kind === "stopwatch") $("kind-stopwatch").checked = true;
  if (typeof f.minutes === "string") $("minutes").value = f.minutes;
  if (typeof f.cycles === "string") $("cycles").value = f.cycles;
}
function wire() {
  $("lang").addEventListener("change", () => {
    lang = match($("lang").value) || "en";
    save("islet.lang", lang);
    const u = new URL(location.href);
    if (u.searchParams.has("lang")) { u.searchParams.delete("lang"); history.replaceState(null, "", u); }
    // Words that just came: the menu's change told again, so every listener (the Settings
    // card's too) draws with them; this one then finds them here.
    const chosen = lang;
    withWords(chosen, (fresh) => {
      if (lang !== chosen) return;
      if (fresh) $("lang").dispatchEvent(new Event("change"));
      else applyLang();
    });
  });
  // The Settings card's script (settings.js) is not needed to paint: asked the first time the
  // card opens, then handed that open (its own listener loads what the card shows).
  const card = $("settings-open");
  card.addEventListener("toggle", function first() {
    if (!card.open) return;
    card.removeEventListener("toggle", first);
    addScript("/settings.js", (ok) => {
      if (ok) return card.dispatchEvent(new Event("toggle"));
      card.addEventListener("toggle", first);   // asked again on the next open
      showMessage({code: "network"});
    });
  });
  $("list").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-op]");
    if (!b || b.disabled) return;
    const req = {op: b.dataset.op, timer: b.dataset.timer};
    // Ended here, a session leaves as a finished one does: after 3 s.
    if (req.op === "end") req.dismissal = {after_seconds: 3};
    send(req, b);
  });
  $("test-pattern").addEventListener("click", (ev) => {
    const off = model && model.presentation === "test_pattern";
    send(off ? {op: "test_pattern", seconds: 0} : {op: "test_pattern"}, ev.currentTarget);
  });
  $("night-on").addEventListener("change", (ev) => brightness({night: ev.currentTarget.checked}, ev.currentTarget));
  $("contrast").addEventListener("input", (ev) => setText($("contrast-v"), ev.currentTarget.value));
  $("contrast").addEventListener("change", (ev) => brightness({contrast: parseInt(ev.currentTarget.value, 10) || 0}, ev.currentTarget));
  $("sound").addEventListener("click", () => {
    if (!audio) return allowSound();
    // Off again: no chime and no vibration (a notification stays the browser's permission).
    try { audio.close(); } catch (e) { /* already closed */ }
    audio = null;
    save("islet.sound", "off");
    renderAlerts();
  });
  $("quick").addEventListener("click", async (ev) => {
    const b = ev.target.closest("button[data-minutes]");
    if (!b || b.disabled) return;
    const m = parseFloat(b.dataset.minutes), req = {op: "start", kind: "countdown", seconds: Math.round(m * 60000) / 1000, cycles: 1};
    const timer = $("timer").value.trim();
    if (timer && $("timer").checkValidity()) req.timer = timer;
    const r = await send(req, b);
    if (r && r.ok) { remember(m); renderQuick(); }
  });
  $("kind-countdown").addEventListener("change", kindChanged);
  $("kind-stopwatch").addEventListener("change", kindChanged);
  $("start").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const sw = $("kind-stopwatch").checked, req = {op: "start", kind: sw ? "stopwatch" : "countdown"};
    if (!sw) {
      const m = parseFloat($("minutes").value), n = parseInt($("cycles").value, 10);
      if (m > 0) req.seconds = Math.round(m * 60000) / 1000;
      if (n >= 0) req.cycles = n;
    }
    const title = $("title").value.trim(), timer = $("timer").value.trim();
    if (title) req.title = title;
    if (timer) req.timer = timer;
    save("islet.form", JSON.stringify({kind: req.kind, minutes: $("minutes").value, cycles: $("cycles").value}));
    send(req, $("start-go")).then((r) => {
      if (r && r.ok && req.kind === "countdown" && typeof req.seconds === "number") { remember(Math.round(req.seconds / 60 * 100) / 100); renderQuick(); }
    });
  });
  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const btn = ev.submitter;
    if (btn) btn.disabled = true;
    const r = await api("/api/login", {password: $("password").value});
    if (btn) btn.disabled = false;
    loginErr = r.ok ? null : r.error || {code: "bad_password"};
    setText($("login-error"), loginErr ? describe(loginErr) : "");
    if (r.ok) { $("password").value = ""; check(); }
  });
  $("logout").addEventListener("click", async () => {
    await api("/api/logout", {});
    model = null;
    render();
    needLogin();
  });
  // Sound allowed once in this browser: the first tap anywhere allows it again (browsers
  // start every page's audio suspended until a gesture).
  document.addEventListener("pointerdown", () => { if (!audio && load("islet.sound") === "on") allowSound(); }, {capture: true});
  document.addEventListener("visibilitychange", () => { if (!document.hidden) { tick(); if (started) loadStatus(); } });
}

lang = pickLang();
quick = P.quickLengths(load("islet.quick"));
restoreForm();
kindChanged();
wire();
withWords(lang, () => { applyLang(); check(); });
})();
