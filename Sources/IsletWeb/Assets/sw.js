"use strict";
// The page's service worker (docs/WEB.md "Install"): the page and its hashed assets kept for an
// offline start. The build writes the assets' hashed names here, so a new version of the page is
// a new worker, whose cache replaces the old one. The API (/api/*) is never cached.
const ASSETS = ["/app.css", "/app.js", "/settings.js", "/alerts.js", "/favicon.png", "/icon-192.png", "/icon-512.png"];
// Another hashed name (a language's words): kept once it has been fetched.
const HASHED = /\.[0-9a-f]{12}\.[a-z]+$/;
const CACHE = "islet " + ASSETS.join(" ");

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(ASSETS.concat("/"))).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  if (e.request.mode === "navigate") {
    // The page from the network while there is one (revalidated: a 304 costs headers only),
    // kept for the next offline start; the kept one without a network.
    e.respondWith(fetch(e.request).then((r) => {
      if (r.ok && url.pathname === "/") {
        const copy = r.clone();
        caches.open(CACHE).then((c) => c.put("/", copy));
      }
      return r;
    }).catch(() => caches.open(CACHE).then((c) => c.match("/")).then((r) => r || Response.error())));
  } else if (ASSETS.includes(url.pathname)) {
    e.respondWith(caches.open(CACHE).then((c) => c.match(e.request)).then((r) => r || fetch(e.request)));
  } else if (HASHED.test(url.pathname)) {
    e.respondWith(caches.open(CACHE).then((c) => c.match(e.request).then((r) => r || fetch(e.request).then((f) => {
      if (f.ok) c.put(e.request, f.clone());
      return f;
    }))));
  }
});
