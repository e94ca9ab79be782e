const ISLET_PARTS = (() => {
function match(tag) {
  if (!tag) return null;
  const langs = ISLET_WORDS.langs, s = String(tag).toLowerCase(), p = s.split(/[-_]/)[0];
  return langs.find((l) => l.toLowerCase() === s) ||
    (p === "zh" ? "zh-Hans" : p === "iw" ? "he" : langs.find((l) => l === p)) || null;
}

function clock(sec) {
  const s = Math.max(0, Math.floor(sec)), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const two = (v) => (v < 10 ? "0" : "") + v;
  return h > 0 ? h + ":" + two(m) + ":" + two(r) : m + ":" + two(r);
}

// A paused timer shows its frozen time: only a running one moves.
function shownAfter(a, ms) {
  if (a.phase !== "running" || !(ms >= 0)) return a.shown;
  if (a.attributes && a.attributes.kind === "stopwatch") {
    if (typeof a.elapsed_seconds !== "number") return a.shown;
    return clock((Math.round(a.elapsed_seconds * 1000) + ms) / 1000);
  }
  if (typeof a.remaining_seconds !== "number") return a.shown;
  const r = Math.round(a.remaining_seconds * 1000) - Math.floor(ms);
  return clock(r > 0 ? Math.floor((r + 999) / 1000) : 0);
}

function untilChange(a, ms) {
  if (a.phase !== "running" || !(ms >= 0)) return Infinity;
  if (a.attributes && a.attributes.kind === "stopwatch") return 1000 - (Math.round(a.elapsed_seconds * 1000) + ms) % 1000;
  const r = Math.round(a.remaining_seconds * 1000) - Math.floor(ms);
  return r > 0 ? (r - 1) % 1000 + 1 : Infinity;
}

// The verb table (README "The transition table"), per kind and phase: `offered` are the
// buttons a row shows, `refused` those the daemon would answer with a rejection now. An until
// activity's end is its source's: no pause, resume or toggle (not_applicable).
const OPS = ["pause", "resume", "toggle", "expand", "reset", "end"];
function verbs(a) {
  const kind = a && a.attributes && a.attributes.kind, phase = a && a.phase;
  const offered = kind === "until" ? ["expand", "reset", "end"] : OPS.slice();
  const refused = [];
  if (kind !== "until") {
    if (phase === "paused" || phase === "complete") refused.push("pause");
    if (phase !== "paused") refused.push("resume");
  }
  return {offered, refused};
}

// The tab's title: the time the pill shows and its phase, "9:13 ▶ Islet"; idle, "Islet".
const MARKS = {running: "\u25b6", paused: "\u23f8", cycle_end: "\u25b6", complete: "\u2713"};
function tabTitle(shown, phase) {
  if (typeof shown !== "string" || !shown || shown.length > 16 || !Object.hasOwn(MARKS, phase)) return "Islet";
  return shown + " " + MARKS[phase] + " Islet";
}

// Quick starts: the last three lengths used (minutes), else 5, 10, 20. What localStorage gives
// back is anyone's: at most 3 finite numbers in the start form's bounds, no repeats, else the default.
const QUICK = [5, 10, 20], QUICK_MIN = 0.05, QUICK_MAX = 480;
function okMinutes(m) { return typeof m === "number" && isFinite(m) && m >= QUICK_MIN && m <= QUICK_MAX; }
function quickLengths(stored) {
  let v = null;
  try { v = typeof stored === "string" && stored.length <= 200 ? JSON.parse(stored) : null; } catch (e) { v = null; }
  if (!Array.isArray(v) || v.length > 3 || !v.every(okMinutes) || new Set(v).size !== v.length) return QUICK.slice();
  const out = v.slice();
  for (const d of QUICK) if (out.length < 3 && !out.includes(d)) out.push(d);
  return out;
}
// The list after a start of `m` minutes: it first, the two before it kept.
function rememberLength(list, m) {
  if (!okMinutes(m)) return list;
  return [m, ...list.filter((x) => x !== m)].slice(0, 3);
}

// Night, from status.night: the window, the next change on the display's clock, and how dim
// the glass is. A night panel at contrast c shows roughly 0.35 + 0.65 c/255 of its day light.
function nightView(n) {
  if (!n || typeof n !== "object") return null;
  const hm = (s) => typeof s === "string" && /^([01]\d|2[0-3]):[0-5]\d$/.test(s);
  const c = typeof n.contrast === "number" && n.contrast >= 0 && n.contrast <= 255 ? Math.round(n.contrast) : null;
  const w = typeof n.window === "string" && /^\d\d:\d\d-\d\d:\d\d$/.test(n.window) ? n.window : null;
  const next = hm(n.next_local) && typeof n.next_night === "boolean" ? {night: n.next_night, at: n.next_local} : null;
  const on = n.night === true;
  return {on, contrast: c, window: w, next, dim: on && c !== null ? Math.round((0.35 + 0.65 * c / 255) * 100) / 100 : 1};
}

// The alerts of a change event worth noticing: well-formed, at most 32.
function alertsOf(d) {
  const a = d && Array.isArray(d.alerts) ? d.alerts.slice(0, 32) : [];
  return a.filter((x) => x && typeof x.timer === "string" && x.timer.length <= 64 && (x.kind === "completed" || x.kind === "alerted"));
}

// Byte page*width + x, bit b = row page*8 + b (LSB on top); lit #e8f4ff, dark #000000.
function paint(canvas, f) {
  if (!f || typeof f.pages !== "string") return false;
  const w = f.width | 0, h = f.height | 0, hex = f.pages, on = f.on !== false;
  if (w <= 0 || h <= 0 || h % 8 || w > 1024 || h > 1024) return false;
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  const ctx = canvas.getContext("2d"), img = ctx.createImageData(w, h), d = img.data;
  for (let p = 0; p < h / 8; p++) {
    for (let x = 0; x < w; x++) {
      const k = (p * w + x) * 2, byte = on ? parseInt(hex.slice(k, k + 2), 16) || 0 : 0;
      for (let b = 0; b < 8; b++) {
        const o = ((p * 8 + b) * w + x) * 4;
        if ((byte >> b) & 1) { d[o] = 0xe8; d[o + 1] = 0xf4; d[o + 2] = 0xff; }
        d[o + 3] = 255;
      }
    }
  }
  ctx.putImageData(img, 0, 0);
  canvas.dataset.pages = hex;
  canvas.dataset.on = String(on);
  fit(canvas);
  return true;
}

// A whole number of screen pixels per panel pixel, as wide as the pill's frame allows: a
// fractional scale spaces the progress dots unevenly and thickens some strokes.
function fit(canvas) {
  const box = canvas.parentElement, w = canvas.width;
  if (!box || !w) return;
  const cs = getComputedStyle(box);
  const room = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const dpr = window.devicePixelRatio || 1, scale = Math.max(1, Math.floor(room * dpr / w));
  canvas.style.width = (w * scale / dpr) + "px";
}

return {match, clock, shownAfter, untilChange, verbs, tabTitle, quickLengths, rememberLength, nightView, alertsOf, paint, fit};
})();
