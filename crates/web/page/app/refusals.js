// @ts-check
// What a phone may do with an entry another phone beat to the table (a version conflict). The
// table has moved on, so the panel the page would draw now is for the table as the server has
// it, often another seat's: the refused entry is never "fixed" there. The phone is offered only
// what it can do:
//   again   enter the same entry for the same seat, when the table still accepts it now (the
//           other phone's entry was undone, or left this seat's turn open);
//   undo    void the other phone's entry and enter this one, when that entry is the one thing
//           recorded since this phone's entry was made and Undo would void it (the table is then
//           as this phone saw it);
//   discard always.
// Pure: the page's table, log and queued entry in, the choices out.

import { dealOf } from './legal.js';

/** @typedef {import('./types.js').GameView} GameView */
/** @typedef {import('./types.js').GamePage} GamePage */
/** @typedef {import('./types.js').LogEntry} LogEntry */
/** @typedef {import('./types.js').Move} Move */
/** @typedef {import('./types.js').QueuedEntry} QueuedEntry */

/// Whether `move` is one the view accepts now, for the same seat and with the same choice: its
/// kind is open to its seat, and each of its plain values (a card, a number of tricks, a bid) is
/// among the choices the server lists (`card` in `cards`, `bid` in `bids`, `tricks` in
/// `tricks`) or equal to the one it names. A kind the server only names is open to the seat to
/// act.
/**
 * @param {Move | null | undefined} move
 * @param {GameView} view
 * @returns {boolean}
 */
export function stillOpen(move, view) {
  if (!move?.kind) return false;
  return (view.legal_moves || []).some((m) => {
    if (typeof m === 'string') return m === move.kind && (move.seat == null || view.to_act === move.seat);
    if (!m || m.kind !== move.kind) return false;
    if ('seat' in move) {
      const seats = m.seats ?? ('seat' in m ? [m.seat] : null);
      const other = move.seat != null && view.to_act != null && view.to_act !== move.seat;
      if (seats ? !seats.includes(move.seat) : other) return false;
    }
    for (const [field, value] of Object.entries(move)) {
      if (field === 'kind' || field === 'seat' || !plain(value)) continue;
      const choices = Array.isArray(m[field]) ? m[field] : Array.isArray(m[`${field}s`]) ? m[`${field}s`] : null;
      if (choices) {
        if (!choices.includes(value)) return false;
      } else if (plain(m[field]) && m[field] !== value) return false;
    }
    return true;
  });
}

/** @param {unknown} v */
function plain(v) {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

/// The last move of the log that is not undone: what Undo voids.
/**
 * @param {LogEntry[]} log
 * @returns {LogEntry | null}
 */
export function lastLive(log) {
  for (let i = log.length - 1; i >= 0; i -= 1) {
    if (log[i].entry === 'move' && !log[i].voided_by) return log[i];
  }
  return null;
}

/// What a phone may do with `item`, refused because entries were recorded after the version
/// `since` it was made against (`log` holds them): enter it again (`again`), undo the other
/// phone's entry and enter it (`undo`: that entry), or discard it (always).
/**
 * @param {QueuedEntry} item
 * @param {number} since the table's version the entry was made against
 * @param {LogEntry[]} log the table's log as the page has it
 * @param {GameView} view the table's view now
 * @param {GamePage | null} [page]
 * @returns {{ again: boolean, undo: LogEntry | null }}
 */
export function refusalChoices(item, since, log, view, page = null) {
  const move = item.path === 'moves' ? item.body?.move : null;
  if (!move) return { again: false, undo: null };
  const deal = dealOf(view, page);
  const sameDeal = item.body.deal == null || deal == null || Number(item.body.deal) === Number(deal);
  const again = sameDeal && stillOpen(move, view);
  const after = log.filter((e) => (e.seq ?? 0) > since);
  const theirs = after.length === 1 && after[0].entry === 'move' && !after[0].voided_by ? after[0] : null;
  const undo = theirs && lastLive(log) === theirs ? theirs : null;
  return { again, undo };
}
