// @ts-check
// The phone's outbox. Every move gets an Idempotency-Key made here, the table version it was
// entered against and the deal it belongs to; it is kept in localStorage until the server
// answers, so a dropped connection, a hung request (every request times out, see api.js), a
// reload or a closed tab loses nothing, and a retry is never stored twice.
//
// Entries are sent one at a time, in order. The first one the server refuses stops the queue:
// it stays first, shown for fixing (`blocked`), and everything after it is kept. Fixing it
// (`replaceBlocked`) puts the new entry in its place; discarding it (`discardBlocked`) sends
// the rest. A version conflict (another phone recorded first) is a refusal like any other:
// the page reloads the table and says what the other phone recorded, and the queue waits
// behind the conflicting entry, every entry re-counted from the table's new version, the
// version it was made against kept (`blocked.since`); the page deals with it by entering it
// again or undoing the other phone's entry first (`resolveBlocked`), or discards it. Only a
// deal's result for the deal the table still waits for is sent again by itself (the server
// refuses a result for another deal with `deal_mismatch`, so nothing wrong can be stored); a
// card-by-card entry that conflicted is never re-sent silently.
//
// States the page shows: live (nothing waiting), offline (the last try got no answer),
// k pending (entries waiting to be sent).

import { Refusal, Unreachable, call, newKey, recordingToken } from './api.js';
import { DEALS } from './legal.js';

/** @typedef {import('./types.js').QueuedEntry} QueuedEntry */
/** @typedef {import('./types.js').Blocked} Blocked */
/** @typedef {import('./types.js').TableView} TableView */
/** @typedef {import('./types.js').GameView} GameView */
/** @typedef {import('./types.js').Numbering} Numbering */

/**
 * What the table screen does when the queue moves.
 * @typedef {object} QueueHandlers
 * @property {(item: QueuedEntry, body: any) => void} [answered] the server stored it
 * @property {(item: QueuedEntry, err: Refusal, kept: QueuedEntry[]) => void} [refused]
 * @property {(item: QueuedEntry, err: Refusal, kept: QueuedEntry[]) => Promise<{ version: number | null, deal?: number, words?: string } | null | undefined>} [conflict]
 *   another phone recorded first: the table as the server has it now, and what it was in words
 * @property {() => void} [changed] redraw
 */

/**
 * What the queue needs from the browser, given so that it can be driven without one.
 * @typedef {object} QueueDeps
 * @property {Pick<Storage, 'getItem' | 'setItem'>} [storage] where entries are kept (localStorage)
 * @property {(item: QueuedEntry) => Promise<any>} [post] sends an entry (POST with its key)
 * @property {Pick<EventTarget, 'addEventListener' | 'removeEventListener'>} [events] says 'online' (window)
 */

export class MoveQueue {
  /**
   * @param {string} table the table's id
   * @param {QueueHandlers} handlers
   * @param {QueueDeps} [deps]
   */
  constructor(table, handlers, { storage = globalThis.localStorage, post, events = globalThis.window } = {}) {
    this.table = table;
    this.handlers = handlers;
    this.storage = storage;
    /** @type {(item: QueuedEntry) => Promise<any>} */
    this.post = post ?? ((item) => call('POST', `/tables/${table}/${item.path}`, {
      token: recordingToken(table),
      body: item.body,
      headers: { 'Idempotency-Key': item.key },
    }));
    this.events = events;
    this.storageKey = `tk.queue.${table}`;
    /** @type {QueuedEntry[]} */
    this.items = load(storage, this.storageKey);
    /** @type {Blocked | null} the first entry, refused */
    this.blocked = null;
    this.offline = false;
    this.sending = false;
    this.again = false;
    this.retryDelay = 1000;
    /** Closed (the page left the table): a try still on its way schedules no other. */
    this.closed = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.onOnline = () => { this.retryNow(); };
    this.events?.addEventListener('online', this.onOnline);
  }

  close() {
    this.closed = true;
    this.events?.removeEventListener('online', this.onOnline);
    clearTimeout(this.timer);
  }

  save() {
    try {
      this.storage.setItem(this.storageKey, JSON.stringify(this.items));
    } catch {
      // Storage full: the entries are still held in memory and sent while the page is open.
    }
    this.handlers.changed?.();
  }

  /** @returns {number} the entries waiting */
  get pending() {
    return this.items.length;
  }

  /// Queues a move (path `moves` or `undo`) entered against `version`, and sends it. Entries
  /// queued behind others expect the versions those will make. While the first entry stands
  /// refused, the new entry replaces it.
  /**
   * @param {string} path
   * @param {Record<string, any>} body
   * @param {string} label
   * @param {number} version the table's version the scorer saw
   * @returns {QueuedEntry}
   */
  add(path, body, label, version) {
    // While the first entry stands refused, what the scorer enters is its fix.
    if (this.blocked) return this.replaceBlocked(path, body, label);
    /** @type {QueuedEntry} */
    const item = {
      key: newKey(),
      path,
      body: { ...body, expected_version: version + this.items.length },
      label,
      at: new Date().toISOString(),
    };
    this.items.push(item);
    this.save();
    this.flush();
    return item;
  }

  /// The refused first entry is re-entered: the new entry takes its place (and its version)
  /// and the queue goes on.
  /**
   * @param {string} path
   * @param {Record<string, any>} body
   * @param {string} label
   * @returns {QueuedEntry}
   */
  replaceBlocked(path, body, label) {
    const old = this.items[0];
    /** @type {QueuedEntry} */
    const item = {
      key: newKey(),
      path,
      body: { ...body, expected_version: old.body.expected_version },
      label,
      at: new Date().toISOString(),
    };
    this.items[0] = item;
    this.blocked = null;
    this.save();
    this.retryNow();
    return item;
  }

  /// The refused first entry is dealt with by `entries` (itself entered again, or an undo of
  /// the other phone's entry and then it): they take its place under fresh keys, expecting the
  /// versions they make on the table as it is now (`version` first), and the entries after it
  /// follow on; the queue goes on.
  /**
   * @param {{ path: string, body: Record<string, any>, label: string }[]} entries
   * @param {number} version
   * @returns {QueuedEntry[]}
   */
  resolveBlocked(entries, version) {
    const at = new Date().toISOString();
    /** @type {QueuedEntry[]} */
    const made = entries.map(({ path, body, label }) => ({ key: newKey(), path, body: { ...body, expected_version: 0 }, label, at }));
    this.items.splice(0, 1, ...made);
    this.items.forEach((item, n) => { item.body.expected_version = version + n; });
    this.blocked = null;
    this.save();
    this.retryNow();
    return made;
  }

  /// Whether the last entry can be taken back: it is not on its way to the server (a try
  /// under way sends the first entry, so a lone entry waits for that try to end).
  /** @returns {boolean} */
  get canTakeBack() {
    return this.items.length > 1 || (this.items.length === 1 && !this.sending);
  }

  /// The last entry, never sent, is taken back (a card tapped by mistake while offline); the
  /// others keep their places and versions.
  /** @returns {QueuedEntry | undefined} the entry taken back */
  takeBack() {
    if (!this.canTakeBack) return undefined;
    const gone = this.items.pop();
    if (!this.items.length) this.blocked = null;
    this.save();
    return gone;
  }

  /// The refused first entry is given up; the rest are sent, each expecting one version less.
  /** @returns {QueuedEntry | undefined} the entry given up */
  discardBlocked() {
    const gone = this.items.shift();
    for (const item of this.items) item.body.expected_version -= 1;
    this.blocked = null;
    this.save();
    this.retryNow();
    return gone;
  }

  /// After a conflict: every entry expects the version it will make on the table as the server
  /// now has it, the first `version`. The first is sent again under a fresh key (the refused
  /// request is not the one the server should answer again).
  /**
   * @param {number} version
   * @param {boolean} resend
   */
  rebase(version, resend) {
    this.items.forEach((item, n) => { item.body.expected_version = version + n; });
    if (resend && this.items[0]) this.items[0].key = newKey();
    this.save();
  }

  /// Sends now, whatever the back-off says: never a no-op. While a try is under way, another
  /// follows as soon as it ends.
  /** @returns {Promise<void>} */
  retryNow() {
    clearTimeout(this.timer);
    this.retryDelay = 1000;
    if (this.sending) {
      this.again = true;
      return Promise.resolve();
    }
    return this.flush();
  }

  /** Sends the entries in order until one is refused or gets no answer. @returns {Promise<void>} */
  async flush() {
    if (this.sending || this.blocked || this.closed) return;
    this.sending = true;
    try {
      while (this.items.length && !this.blocked && !this.closed) {
        const item = this.items[0];
        let body;
        try {
          body = await this.post(item);
        } catch (err) {
          if (err instanceof Unreachable) {
            // Redrawn only when the state changes: a scorer may be typing the next entry.
            if (!this.offline) {
              this.offline = true;
              this.handlers.changed?.();
            }
            if (this.closed) {
              // Left behind: the entries wait in storage for the table's next opening.
            } else if (this.again) {
              this.again = false;
              this.timer = setTimeout(() => this.flush(), 0);
            } else {
              this.schedule();
            }
            return;
          }
          if (err instanceof Refusal) {
            this.offline = false;
            if (err.code === 'version_conflict') {
              // Another phone recorded first: the page reloads the table and says what it was.
              const since = item.body.expected_version;
              const now = await this.handlers.conflict?.(item, err, this.items.slice(1));
              if (this.items[0]?.key !== item.key) continue; // fixed or discarded meanwhile
              const known = now?.version != null;
              if (known && resentAfterConflict(item, now.deal)) {
                this.rebase(now.version, true);
                continue;
              }
              if (known) this.rebase(now.version, false);
              this.blocked = { key: item.key, message: now?.words || err.message, code: err.code, since };
              this.handlers.changed?.();
            } else {
              // Stop here, keep it and everything after it: the scorer fixes or discards it.
              this.blocked = { key: item.key, message: err.message, code: err.code };
              this.handlers.refused?.(item, err, this.items.slice(1));
              this.handlers.changed?.();
            }
            return;
          }
          throw err;
        }
        this.offline = false;
        this.retryDelay = 1000;
        // A retry of something already answered (another tab) is not taken off twice.
        if (this.items[0]?.key === item.key) this.items.shift();
        this.save();
        this.handlers.answered?.(item, body);
      }
    } finally {
      this.sending = false;
      this.again = false;
    }
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 8000);
  }
}

/// Whether an entry that met a version conflict is sent again by itself: only a deal's result
/// for the deal the table still waits for (`deal`, as the server now has it).
/**
 * @param {QueuedEntry} item
 * @param {number | null | undefined} deal
 * @returns {boolean}
 */
export function resentAfterConflict(item, deal) {
  const result = item.path === 'moves' && item.body?.move?.kind === 'result';
  return result && deal != null && Number(item.body.deal) === Number(deal);
}

/**
 * @param {Pick<Storage, 'getItem'>} storage
 * @param {string} key
 * @returns {QueuedEntry[]}
 */
function load(storage, key) {
  try {
    const items = JSON.parse(storage.getItem(key) || '[]');
    return Array.isArray(items) ? items : [];
  } catch {
    return [];
  }
}

/// The deal after the last queued entry, as the page can know it without the server: only
/// when that entry is a deal's result (a card or a bid needs the server to say what is legal
/// next). Its result is the one move offered; the hand size comes from the table's options
/// when they list one per deal. Null when the page cannot tell. `numbering` names the game's
/// deal fields (Tricky Dick's are hands). `known` is a result form the page saw before (the
/// deal in hand's, as it began), for when the table as last read was under way and offers none.
/**
 * @param {TableView} table
 * @param {QueuedEntry[]} items
 * @param {Numbering} [numbering]
 * @param {{ deal: number, legal: import('./types.js').LegalMove } | null} [known]
 * @returns {GameView | null}
 */
export function nextDealView(table, items, numbering = DEALS, known = null) {
  const last = items[items.length - 1];
  if (!last || last.path !== 'moves' || last.body?.move?.kind !== 'result') return null;
  return dealAfterView(table, Number(last.body.deal), numbering, known);
}

/// The deal after deal `done` (finished by what is queued: a result, or its last card), offered
/// as a result as `nextDealView` says. Null when the page cannot tell.
/**
 * @param {TableView} table
 * @param {number} done
 * @param {Numbering} [numbering]
 * @param {{ deal: number, legal: import('./types.js').LegalMove } | null} [known]
 * @returns {GameView | null}
 */
export function dealAfterView(table, done, numbering = DEALS, known = null) {
  const v = table.state;
  const template = /** @type {import('./types.js').LegalMove | undefined} */ ((v.legal_moves || []).find((m) => typeof m === 'object' && m?.kind === 'result')) ?? known?.legal;
  if (!done || !template) return null;
  const next = done + 1;
  const n = numbering;
  const inGame = v[n.inGame];
  if (inGame && done >= inGame) return { ...v, [n.deal]: next, legal_moves: [] };
  /** @type {import('./types.js').LegalMove} */
  const legal = { ...template, turn_up_required: false };
  const sizes = table.options?.hand_sizes;
  if ('hand_size' in template && Array.isArray(sizes) && sizes[next - 1] != null) legal.hand_size = sizes[next - 1];
  const now = v[n.deal];
  const seats = table.players.length;
  return {
    ...v,
    [n.deal]: next,
    dealer: v.dealer != null ? (v.dealer + (next - now)) % seats : v.dealer,
    hand_size: legal.hand_size ?? v.hand_size,
    phase: 'result',
    to_act: null,
    current_trick: null,
    trumps: null,
    legal_moves: [legal],
  };
}

/// The deal the table waits for, offered as a result while the server cannot be asked:
/// `known` is the result form of a deal as it began (`{ deal, legal }`, the server's legal
/// result move then). For the same deal it is offered as it was; for an earlier deal it is
/// carried on as `nextDealView` does (the hand size from the table's options). The entries of
/// the deal so far are not in it: a result stands for the whole deal (entries.js sets them
/// aside). Null when the page cannot tell.
/**
 * @param {TableView} table
 * @param {{ deal: number, legal: import('./types.js').LegalMove } | null | undefined} known
 * @param {Numbering} [numbering]
 * @returns {GameView | null}
 */
export function dealInHandView(table, known, numbering = DEALS) {
  const v = table.state;
  const now = Number(v[numbering.deal]);
  if (!known || !known.legal || !now || table.finished) return null;
  /** @type {import('./types.js').LegalMove} */
  let legal;
  if (Number(known.deal) === now) legal = { ...known.legal };
  else if (Number(known.deal) < now) {
    legal = { ...known.legal, turn_up_required: false };
    const sizes = table.options?.hand_sizes;
    if ('hand_size' in legal && Array.isArray(sizes) && sizes[now - 1] != null) legal.hand_size = sizes[now - 1];
  } else return null;
  return {
    ...v,
    hand_size: legal.hand_size ?? v.hand_size,
    // A turn-up set aside with the deal's entries is entered again on the form.
    trumps: legal.turn_up_required ? null : v.trumps,
    turn_up: legal.turn_up_required ? null : v.turn_up,
    phase: 'result',
    to_act: null,
    current_trick: null,
    played: [],
    legal_moves: [legal],
  };
}
