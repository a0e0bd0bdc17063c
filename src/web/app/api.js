// The public JSON API, as any client sees it. Refusals become `Refusal`s carrying the
// problem's `detail` sentence; a request that never got an answer becomes `Unreachable`.

export class Refusal extends Error {
  constructor(status, problem) {
    super(problem?.detail || `the server refused (${status})`);
    this.status = status;
    this.code = problem?.code;
    this.problem = problem;
  }
}

export class Unreachable extends Error {
  constructor(cause) {
    super('the server cannot be reached');
    this.cause = cause;
  }
}

const BASE = '/api/v1';

export async function call(method, path, { token, body, headers = {} } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, cache: 'no-store' };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(BASE + path, init);
  } catch (e) {
    throw new Unreachable(e);
  }
  let data = null;
  try {
    const text = await res.text();
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    if (res.ok) throw new Unreachable(e);
  }
  // A proxy or load balancer answering for a server that is down.
  if ([502, 503, 504].includes(res.status) && !data?.code) throw new Unreachable(res.status);
  if (!res.ok) throw new Refusal(res.status, data);
  return data;
}

export const get = (path, opts) => call('GET', path, opts);
export const post = (path, body, opts = {}) => call('POST', path, { ...opts, body });

// Tokens and the phone's name live in localStorage: they survive a reload and a lost signal.
const store = window.localStorage;

export const organiser = {
  get token() { return store.getItem('tk.organiser'); },
  set token(t) { t ? store.setItem('tk.organiser', t) : store.removeItem('tk.organiser'); },
};

export function scorerToken(table) {
  return store.getItem(`tk.scorer.${table}`);
}

export function setScorerToken(table, token) {
  store.setItem(`tk.scorer.${table}`, token);
}

/// The token that may record on this table: the phone's scorer token, else the organiser's.
export function recordingToken(table) {
  return scorerToken(table) || organiser.token;
}

export const phone = {
  get name() { return store.getItem('tk.phoneName') || ''; },
  set name(n) { store.setItem('tk.phoneName', n); },
};

/// A fresh idempotency key for one move, made on the phone.
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
