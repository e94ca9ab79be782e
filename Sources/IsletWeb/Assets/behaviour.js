(() => {
const W = ISLET_WORDS, P = ISLET_PARTS, $ = (id) => document.getElementById(id);
const {match, clock, shownAfter, untilChange} = P;
// Codes that share a sentence; DETAIL's add the daemon's message.
const SAME = {not_due: "not_applicable", too_many_clients: "busy", request_timeout: "busy"};
const BAD = "invalid_json invalid_request missing_field invalid_field unknown_op unknown_field line_too_long unknown_button not_supported invalid_attributes";
const DETAIL = ["bad_request", "internal", "store_failed"];
let lang = "en", sess = {password: false, read_only: false}, started = false;
let model = null, modelAt = 0, stat = null, statAt = 0;
let es = null, live = false, backoff = 1, msg = null, msgTimer = 0, loginErr = null, statusTimer = 0, soonTimer = 0, tickTimer = 0;
const rows = new Map(), busy = new Set();

// Words
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
  paintMessage();
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
  if (err) msgTimer = setTimeout(() => showMessage(null), 8000);
  paintMessage();
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
  if (sess.read_only) return showMessage({code: "read_only"});
  busy.add(btn);
  btn.disabled = true;
  const r = await api("/api/request", req);
  busy.delete(btn);
  btn.disabled = sess.read_only;
  if (r.ok) {
    showMessage(null);
    if (!live) take(r);
  } else if (r.http !== 401) {
    showMessage(r.error || {code: "internal"});
  }
}

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
  setText(li.querySelector(".tid"), a.timer);
  setText(li.querySelector(".phase"), t(a.phase === "cycle_end" ? "cycle_complete" : a.phase, a.phase));
  const said = until && c.pushed && typeof c.pushed.text === "string" ? [c.pushed.text] : [];
  li.querySelector(".cycle").replaceChildren(...(sw ? [] : until ? said : fill(c.cycles ? "cycle" : "cycle_open", c)));
  // Its source owns the end: nothing here pauses it.
  li.querySelector('[data-op="pause"]').hidden = until;
  li.querySelector('[data-op="resume"]').hidden = until;
  li.querySelector(".stale").hidden = !c.stale;
  setText(li.querySelector(".time"), a.shown);
  li.querySelector('[data-op="pause"]').classList.toggle("primary", a.phase === "running" || a.phase === "cycle_end");
  li.querySelector('[data-op="resume"]').classList.toggle("primary", a.phase === "paused");
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
  tick();
}

// Session and stream
function applySession() {
  const ro = !!sess.read_only;
  document.body.classList.toggle("ro", ro);
  $("ro-note").hidden = !ro;
  $("start").hidden = ro;
  $("test-pattern").hidden = ro;
  document.querySelectorAll("#list .ops").forEach((e) => { e.hidden = ro; });
  document.querySelectorAll("button[data-op]").forEach((b) => { b.disabled = ro || busy.has(b); });
  $("logout").hidden = !sess.password;
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
  on("change", (d) => { take(d); clearTimeout(soonTimer); soonTimer = setTimeout(loadStatus, 300); });
  on("frame", drawFrame);
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
    applyLang();
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
    send(req, $("start-go"));
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
  document.addEventListener("visibilitychange", () => { if (!document.hidden) { tick(); if (started) loadStatus(); } });
}

lang = pickLang();
restoreForm();
kindChanged();
wire();
applyLang();
check();
})();
