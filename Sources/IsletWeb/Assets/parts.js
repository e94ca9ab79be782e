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

return {match, clock, shownAfter, untilChange, paint, fit};
})();
