// @ts-check
// The public JSON API, as any client sees it. Refusals become `Refusal`s carrying the
// problem's `detail` sentence; a request that never got an answer becomes `Unreachable`.

/** A problem+json answer: `{type, title, status, detail, code}`. @typedef {{ detail?: string, code?: string, [field: string]: any }} Problem */

/** The server answered with a refusal: its `detail` sentence is the message. */
export class Refusal extends Error {
  /**
   * @param {number} status
   * @param {Problem | null} problem
   */
  constructor(status, problem) {
    super(problem?.detail || `the server refused (${status})`);
    this.status = status;
    this.code = problem?.code;
    this.problem = problem;
  }
}

/** The request got no answer (no signal, timed out, a proxy answering for a server down). */
export class Unreachable extends Error {
  /** @param {unknown} cause */
  constructor(cause) {
    super('the server cannot be reached');
    this.cause = cause;
  }
}

const BASE = '/api/v1';

/// How long a request may go unanswered before the page counts the server unreachable (a hung
/// request on flaky Wi-Fi would otherwise hold the outbox for ever). `tk.timeoutMs` in
/// localStorage overrides it, e.g. for a slow club network.
/** @returns {number} */
export function timeoutMs() {
  const set = Number(window.localStorage.getItem('tk.timeoutMs'));
  return set > 0 ? set : 8000;
}

/**
 * @typedef {object} CallOptions
 * @property {string | null} [token] the bearer token
 * @property {any} [body] sent as JSON
 * @property {Record<string, string>} [headers]
 * @property {number} [timeout] ms
 */

/**
 * One request to the API, under /api/v1.
 * @param {string} method
 * @param {string} path
 * @param {CallOptions} [options]
 * @returns {Promise<any>} the answer's JSON (null when empty)
 * @throws {Refusal | Unreachable}
 */
export async function call(method, path, { token, body, headers = {}, timeout = timeoutMs() } = {}) {
  const abort = new AbortController();
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { method, headers: { Accept: 'application/json', ...headers }, cache: 'no-store', signal: abort.signal };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  // The timer covers the answer's body too: a server that sends headers and then stalls is
  // as unreachable as one that never answers.
  const timer = setTimeout(() => abort.abort(), timeout);
  let res;
  let data = null;
  try {
    try {
      res = await fetch(BASE + path, init);
    } catch (e) {
      throw new Unreachable(e);
    }
    try {
      const text = await res.text();
      data = text ? JSON.parse(text) : null;
    } catch (e) {
      if (res.ok || abort.signal.aborted) throw new Unreachable(e);
    }
  } finally {
    clearTimeout(timer);
  }
  // A proxy or load balancer answering for a server that is down.
  if ([502, 503, 504].includes(res.status) && !data?.code) throw new Unreachable(res.status);
  if (!res.ok) throw new Refusal(res.status, data);
  keepReceipt(path, data);
  return data;
}

/// Every answer that extends a table's chain (a move, an undo, a correction, a verification)
/// may carry a `receipt`: the phone keeps each, per table, for the Deals tab's download. An
/// answer without one keeps nothing.
/**
 * @param {string} path
 * @param {any} data
 */
function keepReceipt(path, data) {
  const receipt = data && typeof data === 'object' && !Array.isArray(data) ? data.receipt : undefined;
  const table = /^\/tables\/([^/?]+)\//.exec(path)?.[1];
  if (receipt && table) keep(table, receipt);
}

/// The most receipts kept per table. Dropping the oldest loses no evidence: a receipt signs the
/// chain's head, which hashes every link before it, so the latest one alone finds a rollback
/// or a rewrite of anything earlier.
const MAX_RECEIPTS = 500;

/// Keeps `receipt` with the others of `table` (in `tk.receipts.<table>`, as the phone and the
/// board both do), unless one for the same head is kept already: a retry answered again, or a
/// board's stream reconnecting, signs the same head at another time.
/**
 * @param {string} table
 * @param {{ position?: number, head?: string, [field: string]: any } | null | undefined} receipt
 */
export function keep(table, receipt) {
  if (!receipt || typeof receipt !== 'object' || !table) return;
  try {
    const kept = receipts(table);
    if (kept.some((r) => r.position === receipt.position && r.head === receipt.head)) return;
    kept.push(receipt);
    window.localStorage.setItem(`tk.receipts.${table}`, JSON.stringify(kept.slice(-MAX_RECEIPTS)));
  } catch {
    // Storage full or unreadable: the server keeps the chain; the receipt is a convenience.
  }
}

/// The receipts this phone kept for `table`, oldest first.
/**
 * @param {string} table
 * @returns {any[]}
 */
export function receipts(table) {
  try {
    const kept = JSON.parse(window.localStorage.getItem(`tk.receipts.${table}`) || '[]');
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

/// Reads are private (issue #25): a read without a token of its own goes with the page's reading
/// token for that path (`readingToken`).
/** @type {(path: string, opts?: CallOptions) => Promise<any>} */
export const get = (path, opts = {}) => call('GET', path, { ...opts, token: opts.token ?? readingToken(path) });
/** @type {(path: string, body: any, opts?: CallOptions) => Promise<any>} */
export const post = (path, body, opts = {}) => call('POST', path, { ...opts, body });
/** @type {(path: string, body: any, opts?: CallOptions) => Promise<any>} */
export const put = (path, body, opts = {}) => call('PUT', path, { ...opts, body });

// Tokens and the phone's name live in localStorage: they survive a reload and a lost signal.
// Read when asked, not when the module loads, so that the pure modules importing this one load
// without a browser too (the unit tests, scripts/check-page).
const store = () => window.localStorage;

export const organiser = {
  get token() { return store().getItem('tk.organiser'); },
  set token(t) { t ? store().setItem('tk.organiser', t) : store().removeItem('tk.organiser'); },
};

/**
 * @param {string} table
 * @returns {string | null}
 */
export function scorerToken(table) {
  return store().getItem(`tk.scorer.${table}`);
}

/**
 * @param {string} table
 * @param {string} token
 */
export function setScorerToken(table, token) {
  store().setItem(`tk.scorer.${table}`, token);
}

/// The token that may record on this table: the phone's scorer token, else the organiser's.
/**
 * @param {string} table
 * @returns {string | null}
 */
export function recordingToken(table) {
  return scorerToken(table) || organiser.token;
}

/// The share link's token the page was opened with (`/?share=…#/board/<session>`): the big
/// screen reads the session with it, and a player's guide card (`/?share=…#/guide/<tournament>`,
/// as the board shows it) its tournament; the page's other screens keep their own tokens.
/** @returns {string | null} */
export function shareToken() {
  if (!location.hash.startsWith('#/board/') && !location.hash.startsWith('#/guide/')) return null;
  return new URLSearchParams(location.search).get('share');
}

/// The token that reads `path`: the share link the page was opened with, else this phone's
/// scorer token for the table the path names, else the organiser's.
/**
 * @param {string} path
 * @returns {string | undefined}
 */
export function readingToken(path) {
  const table = /^\/tables\/([^/?]+)/.exec(path)?.[1];
  return shareToken() || (table && scorerToken(table)) || organiser.token || undefined;
}

/// A live stream's address: EventSource cannot send headers, so the reading token goes in the
/// query (`access_token`).
/**
 * @param {string} path
 * @returns {string}
 */
export function streamUrl(path) {
  const token = readingToken(path);
  if (!token) return BASE + path;
  return `${BASE}${path}${path.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(token)}`;
}

/// Saves what `href` (an address under /api/v1, a CSV export say) answers as a file: a plain
/// link cannot carry the reading token, so the page fetches it and hands the browser the bytes.
/**
 * @param {string} href
 * @returns {Promise<void>}
 */
export async function download(href) {
  const path = href.startsWith(BASE) ? href.slice(BASE.length) : href;
  const token = readingToken(path);
  const res = await fetch(href, { headers: token ? { Authorization: `Bearer ${token}` } : {}, cache: 'no-store' });
  if (!res.ok) throw new Refusal(res.status, await res.json().catch(() => null));
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') || '')?.[1] || 'export.csv';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export const phone = {
  get name() { return store().getItem('tk.phoneName') || ''; },
  set name(n) { store().setItem('tk.phoneName', n); },
};

/// A fresh idempotency key for one move, made on the phone.
/** @returns {string} */
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
