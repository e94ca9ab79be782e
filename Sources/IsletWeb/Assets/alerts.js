"use strict";
// alerts.js: the end of a session, noticed (docs/WEB.md "Alerts"): a chime and a vibration once
// a tap allowed sound, and a system notification where the browser gives one. Nothing of it
// paints, so behaviour.js asks for it when the first alerts come (the stream is live then).
// `alerts` as P.alertsOf gives them, `d` the change they came with, `audio` the AudioContext a
// tap resumed (null: no sound), `t` the page's words, `notify` whether notifications are on.
(() => {
function chime(audio) {
  try {
    const now = audio.currentTime;
    [880, 1318.5].forEach((f, i) => {
      const o = audio.createOscillator(), g = audio.createGain(), at = now + i * 0.18;
      o.frequency.value = f;
      g.gain.setValueAtTime(0.0001, at);
      g.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, at + 0.6);
      o.connect(g).connect(audio.destination);
      o.start(at);
      o.stop(at + 0.65);
    });
  } catch (e) { /* no sound is no failure */ }
}
function showNotification(title, opts) {
  try { new Notification(title, opts); return; } catch (e) { /* Android's Chrome: only through a service worker */ }
  if (navigator.serviceWorker) navigator.serviceWorker.getRegistration().then((r) => r && r.showNotification(title, opts)).catch(() => {});
}
window.ISLET_ALERTS = (alerts, d, audio, t, lang, notify) => {
  if (audio) {
    chime(audio);
    if (navigator.vibrate) { try { navigator.vibrate([200, 100, 200]); } catch (e) { /* not allowed */ } }
  }
  if (!notify) return;
  for (const x of alerts.slice(0, 4)) {
    const a = (d.activities || []).find((y) => y.timer === x.timer);
    const title = (a && a.attributes && a.attributes.title) || x.timer;
    const body = x.kind === "completed" ? t("complete") : (a && a.content && a.content.pushed && typeof a.content.pushed.text === "string" ? a.content.pushed.text : t("n_alert"));
    showNotification(title, {body: body, tag: "islet-" + x.timer, lang: lang});
  }
};
})();
