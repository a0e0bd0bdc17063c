// @ts-check
// The service worker keeps the page's shell so it opens without a signal. Network first (the
// shell is small and revalidated by ETag), the cache when there is no answer. The API is never
// cached here: the page's own queue handles moves made offline.
//
// The DOM's types know no service worker: the little of its scope used here is typed below.
/**
 * @typedef {Event & { waitUntil(work: Promise<unknown>): void }} ExtendableEvent
 * @typedef {ExtendableEvent & { request: Request, respondWith(answer: Promise<Response>): void }} FetchEvent
 * @typedef {object} WorkerScope
 * @property {(type: string, listener: (event: any) => void) => void} addEventListener
 * @property {() => Promise<void>} skipWaiting
 * @property {{ claim(): Promise<void> }} clients
 */
const worker = /** @type {WorkerScope} */ (/** @type {unknown} */ (self));
const CACHE = 'tablekeeper-shell-v1';
// Every asset the server embeds, written in by the server (crates/web/src/lib.rs) from its one list.
const SHELL = [/* SHELL */];

worker.addEventListener('install', (/** @type {ExtendableEvent} */ event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => worker.skipWaiting()));
});

worker.addEventListener('activate', (/** @type {ExtendableEvent} */ event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => worker.clients.claim()));
});

worker.addEventListener('fetch', (/** @type {FetchEvent} */ event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  const key = event.request.mode === 'navigate' ? '/' : url.pathname;
  if (!SHELL.includes(key)) return;
  event.respondWith(fetch(event.request)
    .then((res) => {
      if (res.ok) {
        const copy = res.clone();
        caches.open(CACHE).then((c) => c.put(key, copy));
      }
      return res;
    })
    .catch(() => caches.match(key)));
});
