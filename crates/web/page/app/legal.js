// What may be tapped now. The server's view lists the moves accepted next in `legal_moves`,
// concrete and typed (the spec's `<Game>LegalMove`): objects tagged by `kind` with the choices
// open, e.g. {"kind":"play","seat":1,"trick":3,"cards":["QS",…]}, {"kind":"nominate","seat":2,
// "tricks":[0,1,3]}, {"kind":"bid","seat":0,"bids":["play","flip"]}, {"kind":"result",…bounds}.
// Those are used as they are (`concrete`); the guesses below from the view and the deal's log
// are only for a server that names bare kinds.

import { RANKS, SUITS } from './cards.js';

/// The move kinds accepted next, whether the server sends strings or objects.
export function kinds(view) {
  return new Set((view.legal_moves || []).map((m) => (typeof m === 'string' ? m : m.kind)));
}

/// The server's concrete legal moves of one kind, or null when it only named the kind.
export function concrete(view, kind) {
  const found = (view.legal_moves || []).filter((m) => typeof m === 'object' && m && m.kind === kind);
  return found.length ? found : null;
}

/// The deal being recorded, as the score sheet numbers it (Tricky Dick's views call it the hand).
export function dealOf(view) {
  return view.deal ?? view.hand ?? undefined;
}

/// The cards played in the current deal, from the log (entries not undone) and the view.
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

/// The cards the seat to act may play now.
export function playableCards(deck, view, log) {
  const server = concrete(view, 'play');
  if (server) return new Set(server.flatMap((m) => m.cards || (m.card ? [m.card] : [])));
  if (!kinds(view).has('play')) return new Set();
  if (view.run && view.run.next) return new Set([view.run.next]);
  if (view.next_card) return new Set([view.next_card]);
  const seen = seenThisDeal(view, log);
  return new Set(deck.filter((c) => !seen.has(c)));
}

/// Any card of the deck (a turn-up): every card not yet seen this deal.
export function turnUpCards(deck, view, log) {
  const server = concrete(view, 'turn_up');
  if (server) return new Set(server.flatMap((m) => m.cards || (m.card ? [m.card] : [])));
  const seen = seenThisDeal(view, log);
  return new Set(deck.filter((c) => !seen.has(c)));
}

/// The seats a kind of move is open to, from the server's concrete moves (`seat` or `seats`).
export function seatsFor(view, kind) {
  const found = concrete(view, kind) || [];
  return [...new Set(found.flatMap((m) => (m.seats ? m.seats : m.seat != null ? [m.seat] : [])))];
}

/// The server's one concrete move of a kind for a seat (or the first, without a seat).
export function openTo(view, kind, seat = null) {
  const found = concrete(view, kind) || [];
  return found.find((m) => seat == null || m.seat === seat || (m.seats || []).includes(seat)) || null;
}

export { RANKS, SUITS };
