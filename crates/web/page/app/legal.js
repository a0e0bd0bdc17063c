// @ts-check
// What may be tapped now. The server's view lists the moves accepted next in `legal_moves`,
// concrete and typed (the spec's `<Game>LegalMove`): objects tagged by `kind` with the choices
// open, e.g. {"kind":"play","seat":1,"trick":3,"cards":["QS",…]}, {"kind":"nominate","seat":2,
// "tricks":[0,1,3]}, {"kind":"bid","seat":0,"bids":["play","flip"]}, {"kind":"result",…bounds}.
// Those are used as they are (`concrete`); the guesses below from the view and the deal's log
// are only for a server that names bare kinds.

import { RANKS, SUITS } from './cards.js';

/** @typedef {import('./types.js').GameView} GameView */
/** @typedef {import('./types.js').LegalMove} LegalMove */
/** @typedef {import('./types.js').LogEntry} LogEntry */
/** @typedef {import('./types.js').Card} Card */
/** @typedef {import('./types.js').Seat} Seat */
/** @typedef {import('./types.js').Numbering} Numbering */
/** @typedef {import('./types.js').GamePage} GamePage */

/// The move kinds accepted next, whether the server sends strings or objects.
/**
 * @param {GameView} view
 * @returns {Set<string>}
 */
export function kinds(view) {
  return new Set((view.legal_moves || []).map((m) => (typeof m === 'string' ? m : m.kind)));
}

/// The server's concrete legal moves of one kind, or null when it only named the kind.
/**
 * @param {GameView} view
 * @param {string} kind
 * @returns {LegalMove[] | null}
 */
export function concrete(view, kind) {
  const found = /** @type {LegalMove[]} */ ((view.legal_moves || []).filter((m) => typeof m === 'object' && m && m.kind === kind));
  return found.length ? found : null;
}

/// How most games number their deals; a game that says otherwise exports its `numbering`.
/** @type {Numbering} */
export const DEALS = Object.freeze({ deal: 'deal', inGame: 'deals_in_game', sheet: 'deals', word: 'Deal' });

/// How the game of `page` (its page module, when loaded) numbers its deals.
/**
 * @param {GamePage | null | undefined} page
 * @returns {Numbering}
 */
export function numberingOf(page) {
  return page?.numbering ?? DEALS;
}

/// The deal being recorded, as the score sheet numbers it (the game's `numbering` says where:
/// Tricky Dick's views call it the hand).
/**
 * @param {GameView} view
 * @param {GamePage | null} [page]
 * @returns {number | undefined}
 */
export function dealOf(view, page = null) {
  return view[numberingOf(page).deal] ?? undefined;
}

/// The cards played in the current deal, from the log (entries not undone) and the view.
/**
 * @param {GameView} view
 * @param {LogEntry[]} log
 * @returns {Set<Card>}
 */
export function seenThisDeal(view, log) {
  const seen = new Set(view.played || []);
  for (const entry of log) {
    if (entry.entry !== 'move' || entry.voided_by) continue;
    for (const ev of entry.events || []) {
      if (ev.event === 'deal_started') seen.clear();
      else if (ev.event === 'card_played' && ev.card) seen.add(ev.card);
      else if (ev.event === 'trumps_turned_up' || ev.event === 'turned_up') {
        // The turned-up card stays in the dealer's hand: it may still be played.
      }
    }
  }
  for (const p of view.current_trick?.plays || []) seen.add(p.card);
  return seen;
}

/// The cards the seat to act may play now. `live` is the card a live run waits for (the stops
/// games say which: their modules' `live`), the only one then playable.
/**
 * @param {Card[]} deck
 * @param {GameView} view
 * @param {LogEntry[]} log
 * @param {Card | null} [live]
 * @returns {Set<Card>}
 */
export function playableCards(deck, view, log, live = null) {
  const server = concrete(view, 'play');
  if (server) return new Set(server.flatMap((m) => m.cards || (m.card ? [m.card] : [])));
  if (!kinds(view).has('play')) return new Set();
  if (live) return new Set([live]);
  const seen = seenThisDeal(view, log);
  return new Set(deck.filter((c) => !seen.has(c)));
}

/// Any card of the deck (a turn-up): every card not yet seen this deal.
/**
 * @param {Card[]} deck
 * @param {GameView} view
 * @param {LogEntry[]} log
 * @returns {Set<Card>}
 */
export function turnUpCards(deck, view, log) {
  const server = concrete(view, 'turn_up');
  if (server) return new Set(server.flatMap((m) => m.cards || (m.card ? [m.card] : [])));
  const seen = seenThisDeal(view, log);
  return new Set(deck.filter((c) => !seen.has(c)));
}

/// The seats a kind of move is open to, from the server's concrete moves (`seat` or `seats`).
/**
 * @param {GameView} view
 * @param {string} kind
 * @returns {Seat[]}
 */
export function seatsFor(view, kind) {
  const found = concrete(view, kind) || [];
  return [...new Set(found.flatMap((m) => (m.seats ? m.seats : m.seat != null ? [m.seat] : [])))];
}

/// The server's one concrete move of a kind for a seat (or the first, without a seat).
/**
 * @param {GameView} view
 * @param {string} kind
 * @param {Seat | null} [seat]
 * @returns {LegalMove | null}
 */
export function openTo(view, kind, seat = null) {
  const found = concrete(view, kind) || [];
  return found.find((m) => seat == null || m.seat === seat || (m.seats || []).includes(seat)) || null;
}

export { RANKS, SUITS };
