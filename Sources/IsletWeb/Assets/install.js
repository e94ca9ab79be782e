// The service worker (sw.js: the page starts offline) only where a browser allows one, a
// secure context (HTTPS, or localhost); on plain HTTP the page works as it is without it.
if (window.isSecureContext && "serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}
