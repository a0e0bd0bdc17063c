// @ts-check
// The phone as its table's witness (issue #43): on first use it makes an Ed25519 key
// (WebCrypto, not extractable, kept in IndexedDB) and registers its public half; each time it
// sees its table's tree grow (an answer's or the stream's receipt names the chain's new end), it
// asks for the consistency proof from the last checkpoint it cosigned, checks it itself
// (merkle.js), and only then cosigns the new checkpoint (C2SP tlog-cosignature) and sends it.
// If the proof fails, or the service shows another tree at the size this phone cosigned, it does
// not cosign, and the players are told that the table's history was rewritten, with the two
// checkpoints. In the background, at most once per new checkpoint; nothing waits for it, and an
// honest table shows nothing new. The board (the club's big screen) is a witness too: one key
// for the board, registered once per session (`POST /sessions/{id}/board-key`, with the
// board's reading token), with which it cosigns every table of the session it shows; what it
// cosigned and found is kept apart from a phone's (`tk.screen-cosigned.<table>`).

import { Refusal, get, post, readingToken, scorerToken } from './api.js';
import {
  cosignatureLine, cosignedMessage, fromBase64, readCheckpoint, toBase64, verifyConsistency,
} from './merkle.js';

/** @typedef {{ size: number, root: string, note: string }} Kept */
/** A history found rewritten: the checkpoint this phone cosigned and the one the service showed (notes kept: with both, `tablekeeper verify --checkpoints` names the fork). @typedef {{ kept: { size: number, root: string, note?: string }, shown: { size: number, root: string, note?: string }, why: string }} Rewritten */

const DB = 'tablekeeper-witness';
const KEYS = 'keys';

/** @returns {Promise<IDBDatabase>} */
function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(KEYS);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/**
 * @param {'readonly' | 'readwrite'} mode
 * @param {(store: IDBObjectStore) => IDBRequest} act
 * @returns {Promise<any>}
 */
async function inStore(mode, act) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const req = act(db.transaction(KEYS, mode).objectStore(KEYS));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  } finally {
    db.close();
  }
}

/// The phone's (or the board's) key pair: made once, the private half never leaves the browser.
/// One promise for each while the page is open: a board looks at all its tables at once, and
/// two makings would leave it registered under a key it no longer holds.
/** @type {Map<string, Promise<CryptoKeyPair>>} */
const pairs = new Map();

/**
 * @param {'phone' | 'screen'} which
 * @returns {Promise<CryptoKeyPair>}
 */
function keyPair(which) {
  let pair = pairs.get(which);
  if (!pair) {
    pair = (async () => {
      const kept = await inStore('readonly', (s) => s.get(which));
      if (kept?.privateKey && kept?.publicKey) return kept;
      const made = /** @type {CryptoKeyPair} */ (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify']));
      await inStore('readwrite', (s) => s.put({ privateKey: made.privateKey, publicKey: made.publicKey }, which));
      return made;
    })();
    // A failure (no IndexedDB, no Ed25519) is tried again at the next checkpoint.
    pair.catch(() => pairs.delete(which));
    pairs.set(which, pair);
  }
  return pair;
}

/**
 * Who witnesses a table here: its phone, or a board of its session.
 * @typedef {{
 *   which: 'phone' | 'screen',
 *   token: string | undefined,
 *   cosigner: string,
 *   cosigned: string,
 *   rewritten: string,
 *   register: (publicKey: string) => Promise<any>,
 *   submit: string,
 * }} As
 */

/**
 * @param {string} table
 * @returns {As | null}
 */
function asPhone(table) {
  const token = scorerToken(table);
  if (!token) return null;
  return {
    which: 'phone', token, cosigner: `tk.cosigner.${table}`, cosigned: `tk.cosigned.${table}`,
    rewritten: `tk.rewritten.${table}`,
    register: (publicKey) => post(`/tables/${table}/phone-key`, { public_key: publicKey }, { token }),
    submit: `/tables/${table}/cosignatures`,
  };
}

/**
 * @param {string} session
 * @param {string} table
 * @returns {As}
 */
function asBoard(session, table) {
  const token = readingToken(`/sessions/${session}`);
  return {
    which: 'screen', token, cosigner: `tk.screen-cosigner.${session}`, cosigned: `tk.screen-cosigned.${table}`,
    rewritten: `tk.screen-rewritten.${table}`,
    register: (publicKey) => post(`/sessions/${session}/board-key`, { public_key: publicKey, name: 'Board' }, { token }),
    submit: `/tables/${table}/board-cosignatures`,
  };
}

const store = () => window.localStorage;

/**
 * The last checkpoint this phone cosigned for `table`.
 * @param {string} table
 * @returns {Kept | null}
 */
export function lastCosigned(table) {
  return kept(`tk.cosigned.${table}`);
}

/**
 * @param {string} key
 * @returns {any}
 */
function kept(key) {
  try {
    return JSON.parse(store().getItem(key) || 'null');
  } catch {
    return null;
  }
}

/**
 * What this phone found when the service showed it a history of `table` that does not grow from
 * the one it cosigned, or null.
 * @param {string} table
 * @returns {Rewritten | null}
 */
export function rewritten(table) {
  return kept(`tk.rewritten.${table}`);
}

/**
 * What this board found rewritten of `table`'s history, or null.
 * @param {string} table
 * @returns {Rewritten | null}
 */
export function boardRewritten(table) {
  return kept(`tk.screen-rewritten.${table}`);
}

/** @type {Map<string, { running: boolean, again: boolean }>} */
const tables = new Map();

/// Each witness key's registration while the page is open (the token it went with), by its
/// `tk.cosigner…` key.
/** @type {Map<string, { token: string, done: Promise<void> }>} */
const registeredWith = new Map();

/** @type {Set<(table: string) => void>} */
const listeners = new Set();

/// Calls `heard(table)` when a table's history is found rewritten; the function that stops it.
/**
 * @param {(table: string) => void} heard
 * @returns {() => void}
 */
export function onRewritten(heard) {
  listeners.add(heard);
  return () => listeners.delete(heard);
}

/**
 * @param {string} table
 * @param {As} as
 * @param {Rewritten} found
 */
function warn(table, as, found) {
  store().setItem(as.rewritten, JSON.stringify(found));
  for (const heard of listeners) heard(table);
}

/**
 * Looks at `table`'s tree now and cosigns it if it grew consistently from the last checkpoint
 * this phone cosigned (`size`: the size a receipt named, to skip what is cosigned already). Only
 * on a phone that joined the table, only where WebCrypto signs with Ed25519; never throws.
 * @param {string} table
 * @param {number} [size]
 */
export function witness(table, size) {
  const as = asPhone(table);
  if (as) follow(table, as, size);
}

/**
 * The board's witness of `table`, a table of the session it shows: as a phone's (`witness`),
 * with the board's own key registered for the session.
 * @param {string} session
 * @param {string} table
 * @param {number} [size]
 */
export function witnessAsBoard(session, table, size) {
  follow(table, asBoard(session, table), size);
}

/**
 * @param {string} table
 * @param {As} as
 * @param {number} [size]
 */
function follow(table, as, size) {
  if (typeof indexedDB === 'undefined' || !crypto?.subtle) return;
  const last = kept(as.cosigned);
  if (size !== undefined && last && size <= last.size) return;
  const id = `${as.which}:${table}`;
  let t = tables.get(id);
  if (!t) {
    t = { running: false, again: false };
    tables.set(id, t);
  }
  if (t.running) {
    t.again = true;
    return;
  }
  t.running = true;
  const entry = t;
  (async () => {
    do {
      entry.again = false;
      try {
        await look(table, as);
      } catch {
        // No signal, no Ed25519 in this browser, a refusal: the next checkpoint tries again.
      }
    } while (entry.again);
    entry.running = false;
  })();
}

/**
 * @param {string} table
 * @param {As} as
 */
async function look(table, as) {
  const token = as.token;
  if (kept(as.rewritten)) return;
  const keys = await keyPair(as.which);
  // Registered once per token while the page is open (a board's key once for all its tables,
  // which wait for the one registration in flight).
  const with_ = `${token ?? ''}`;
  let registration = registeredWith.get(as.cosigner);
  if (!registration || registration.token !== with_ || !store().getItem(as.cosigner)) {
    registration = {
      token: with_,
      done: (async () => {
        const raw = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
        const registered = await as.register(toBase64(raw));
        store().setItem(as.cosigner, JSON.stringify({ name: registered.cosigner, key_id: registered.key_id }));
      })(),
    };
    registeredWith.set(as.cosigner, registration);
    registration.done.catch(() => registeredWith.delete(as.cosigner));
  }
  await registration.done;
  const cosigner = kept(as.cosigner);
  if (!cosigner) return;
  const last = kept(as.cosigned);
  // One request: the proof from the last checkpoint cosigned to the tree now (from the first
  // entry, the first time: nothing before it to be consistent with), with both checkpoints.
  let proof;
  try {
    proof = await get(`/tables/${table}/consistency?from=${last ? last.size : 1}`, { token });
  } catch (err) {
    if (last && err instanceof Refusal && err.code === 'size_beyond_tree') {
      warn(table, as, { kept: { size: last.size, root: last.root, note: last.note }, shown: { size: 0, root: '' },
        why: `the service now shows a shorter history than the ${last.size} entries this phone cosigned` });
    }
    throw err;
  }
  const from = readCheckpoint(proof?.from_checkpoint?.note);
  const to = readCheckpoint(proof?.to_checkpoint?.note);
  if (!from || !to) return;
  if (last) {
    const hashes = (proof.hashes || []).map(fromBase64);
    const held = from.size === last.size && from.root === last.root
      && !hashes.some((/** @type {Uint8Array | null} */ x) => !x)
      && await verifyConsistency(last.size, to.size, fromBase64(last.root), fromBase64(to.root), hashes);
    if (!held) {
      warn(table, as, { kept: { size: last.size, root: last.root, note: last.note },
        shown: { size: from.size, root: from.root, note: proof.from_checkpoint.note },
        why: from.root !== last.root
          ? `the service now shows another history of those ${last.size} entries than this phone cosigned`
          : 'the proof that the table only grew since does not hold' });
      return;
    }
    if (to.size === last.size) return;
  }
  const note = proof.to_checkpoint.note;
  const checkpoint = readCheckpoint(note);
  if (!checkpoint) return;
  const time = Math.floor(Date.now() / 1000);
  const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, keys.privateKey,
    new TextEncoder().encode(cosignedMessage(checkpoint.body, time))));
  const keyId = Uint8Array.from(cosigner.key_id.match(/../g) || [], (/** @type {string} */ x) => parseInt(x, 16));
  const line = cosignatureLine(cosigner.name, keyId, time, signature);
  await post(as.submit, { checkpoint: note, cosignature: line }, { token });
  /** @type {Kept} */
  const cosigned = { size: checkpoint.size, root: checkpoint.root, note };
  store().setItem(as.cosigned, JSON.stringify(cosigned));
}
