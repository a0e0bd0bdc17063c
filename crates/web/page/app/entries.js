// @ts-check
// The move log read as the server reads it, without a browser: which entries are in force,
// what Undo will void, which entries belong to which deal, and what finishing the deal in hand
// as a result sets aside.
//
// A correction of deal n appends its re-entered moves (each `part_of` the correction) and then
// a `correction` entry, after whatever deal is being recorded; the moves it replaces are marked
// `superseded_by`. `POST /undo` voids the latest entry in force: a move neither voided nor
// superseded (nor part of a correction undone since), or a correction, which it undoes whole
// with the moves it brought (docs/integrators.md, store's `latest_effective_seq`).

/** @typedef {import('./types.js').LogEntry} LogEntry */
/** @typedef {import('./types.js').Numbering} Numbering */
/** @typedef {import('./types.js').QueuedEntry} QueuedEntry */

/**
 * @param {LogEntry[]} log
 * @returns {(seq: number | null | undefined) => boolean}
 */
function voidedIn(log) {
  const voided = new Set(log.filter((e) => e.entry === 'void' && e.voids != null).map((e) => e.voids));
  for (const e of log) if (e.voided_by != null && e.seq != null) voided.add(e.seq);
  return (seq) => seq != null && voided.has(seq);
}

/// The latest entry in force, which `POST /undo` voids: a move of the game or a correction
/// (a void, a ruling, a verification are not undone this way). Null when there is none.
/**
 * @param {LogEntry[]} log
 * @returns {LogEntry | null}
 */
export function undoTarget(log) {
  const voided = voidedIn(log);
  for (let i = log.length - 1; i >= 0; i -= 1) {
    const e = log[i];
    if (voided(e.seq)) continue;
    if (e.entry === 'correction') return e;
    if (e.entry !== 'move') continue;
    if (e.part_of != null && voided(e.part_of)) continue;
    // Superseded by a correction still in force: the correction stands for it.
    if (e.superseded_by != null && !voided(e.superseded_by)) continue;
    return e;
  }
  return null;
}

/// Whether an entry is part of a correction (its re-entered moves, the correction itself, or
/// the undo of one): it belongs to the corrected deal, not to the deal being recorded when it
/// was made.
/**
 * @param {LogEntry} e
 * @param {LogEntry[]} log
 * @returns {boolean}
 */
function ofCorrection(e, log) {
  if (e.entry === 'correction' || e.part_of != null) return true;
  if (e.entry !== 'void') return false;
  const target = log.find((x) => x.seq === e.voids);
  return target?.entry === 'correction';
}

/// The log's moves (and undos of moves) by deal: a deal starts after the move with its
/// `<deal>_started` event (`hand_started` for a game that numbers hands). A correction's
/// entries, a ruling and a verification are left out: they are about a deal already finished,
/// whichever deal was being recorded when they were made.
/**
 * @param {LogEntry[]} log
 * @param {Numbering} numbering
 * @returns {{ deal: number, entries: LogEntry[] }[]}
 */
export function groupByDeal(log, numbering) {
  const groups = [];
  let group = { deal: 1, entries: /** @type {LogEntry[]} */ ([]) };
  groups.push(group);
  for (const e of log) {
    if ((e.entry !== 'move' && e.entry !== 'void') || ofCorrection(e, log)) continue;
    group.entries.push(e);
    if (e.entry !== 'move' || e.voided_by) continue;
    for (const ev of e.events || []) {
      const started = ev.event === `${numbering.deal}_started` ? ev[numbering.deal] : null;
      if (started != null) {
        group = { deal: started, entries: [] };
        groups.push(group);
      }
    }
  }
  return groups;
}

/// The entries of deal `n`, in log order.
/**
 * @param {LogEntry[]} log
 * @param {number} n
 * @param {Numbering} numbering
 * @returns {LogEntry[]}
 */
export function entriesOfDeal(log, n, numbering) {
  return groupByDeal(log, numbering).find((g) => g.deal === n)?.entries || [];
}

/// What finishing deal `n` as a result sets aside: the server refuses a result once a deal is
/// under way (a result is a whole deal), so each entry of it in force, stored or still queued,
/// is undone first, the latest first, and the result takes their place. Answers the labels of
/// the undos to queue, in order, or null when an undo would reach past the deal (a correction
/// made since the deal began stands in the way: undo voids it first) or the page cannot tell.
/**
 * @param {LogEntry[]} log the log as the server answered it
 * @param {QueuedEntry[]} items the entries queued after it
 * @param {number} n the deal in hand
 * @param {Numbering} numbering
 * @param {(e: LogEntry) => string} words a stored entry in words
 * @returns {string[] | null}
 */
export function setAside(log, items, n, numbering, words) {
  /** @type {string[]} */
  const stack = [];
  let trail = log.slice();
  // The stored entries the undos will reach, latest first.
  const stored = [];
  for (;;) {
    const target = undoTarget(trail);
    if (!target) break;
    if (target.entry !== 'move' || !entriesOfDeal(trail, n, numbering).includes(target)) {
      // Before the deal (it began after this entry) or a correction: stop there.
      if (target.entry === 'correction' && dealBegun(trail, n, numbering, target)) return null;
      break;
    }
    stored.push(target);
    trail = trail.map((e) => (e === target ? { ...e, voided_by: -1 } : e));
  }
  // The queued entries, then the stored ones: each undo voids the latest in force.
  for (const item of items) {
    if (item.path === 'undo') {
      if (stack.length) stack.pop();
      else if (stored.length) stored.shift();
      else return null;
    } else if (item.body?.move?.kind === 'result') {
      return null;
    } else {
      stack.push(item.label);
    }
  }
  return [...stack.reverse().map((l) => `undo of ${l}`), ...stored.map((e) => `undo of ${words(e)}`)];
}

/// Whether deal `n` had begun when `entry` was made (its first move comes before it).
/**
 * @param {LogEntry[]} log
 * @param {number} n
 * @param {Numbering} numbering
 * @param {LogEntry} entry
 * @returns {boolean}
 */
function dealBegun(log, n, numbering, entry) {
  const first = entriesOfDeal(log, n, numbering).find((e) => e.entry === 'move');
  return first != null && (first.seq ?? 0) < (entry.seq ?? 0);
}
