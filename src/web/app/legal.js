// What may be tapped now. The server's view lists the moves accepted next in `legal_moves`,
// concrete and typed (the spec's `<Game>LegalMove`): objects tagged by `kind` with the choices
// open, e.g. {"kind":"play","seat":1,"trick":3,"cards":["QS",…]}, {"kind":"nominate","seat":2,
// "tricks":[0,1,3]}, {"kind":"bid","seat":0,"bids":["play","flip"]}, {"kind":"result",…bounds}.
// Those are used as they are (`concrete`); the guesses below from the view and the deal's log
// are only for a server that names bare kinds.

import { DECK52, RANKS, SUITS } from './cards.js';

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

/// The cards of a game's deck, in picker order.
export function deckOf(game) {
  switch (game) {
    case 'tridge': // 40 cards: no eights, nines or tens
      return DECK52.filter((c) => !['8', '9', '10'].includes(c.slice(0, -1)));
    case 'pope-joan': // the 8♦ is taken out
      return DECK52.filter((c) => c !== '8D');
    default:
      return DECK52;
  }
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
export function playableCards(game, view, log) {
  const server = concrete(view, 'play');
  if (server) return new Set(server.flatMap((m) => m.cards || (m.card ? [m.card] : [])));
  if (!kinds(view).has('play')) return new Set();
  if (view.run && view.run.next) return new Set([view.run.next]);
  if (view.next_card) return new Set([view.next_card]);
  const seen = seenThisDeal(view, log);
  return new Set(deckOf(game).filter((c) => !seen.has(c)));
}

/// Any card of the deck (a turn-up): every card not yet seen this deal.
export function turnUpCards(game, view, log) {
  const server = concrete(view, 'turn_up');
  if (server) return new Set(server.flatMap((m) => m.cards || (m.card ? [m.card] : [])));
  const seen = seenThisDeal(view, log);
  return new Set(deckOf(game).filter((c) => !seen.has(c)));
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

/// Nomination Whist: each count 0…hand size, the hook-rule number refused with a reason.
export function nominations(view) {
  const server = concrete(view, 'nominate');
  const size = view.hand_size ?? 0;
  const allowed = server ? new Set(server.flatMap((m) => m.tricks ?? [])) : null;
  const out = [];
  for (let n = 0; n <= size; n += 1) {
    let why = null;
    if (allowed && !allowed.has(n)) why = 'not allowed now';
    else if (!allowed && view.forbidden_nomination === n) {
      why = `hook rule: the nominations may not add up to ${size}`;
    }
    out.push({ n, ok: !why, why });
  }
  return out;
}

/// Tridge: the calls of the auction, in rank order, each open or not for the seat to act.
export const TRIDGE_BIDS = ['play', 'play_more', 'flip', 'no_change', 'no_change_diamonds', 'all_tricks', 'no_tricks'];

export function tridgeBids(view) {
  const server = concrete(view, 'bid');
  if (server) {
    const open = new Set(server.flatMap((m) => m.bids || (m.bid ? [m.bid] : [])));
    return TRIDGE_BIDS.map((bid) => ({ bid, ok: open.has(bid) }));
  }
  if (!kinds(view).has('bid') || view.to_act == null) return TRIDGE_BIDS.map((bid) => ({ bid, ok: false }));
  const standing = view.standing_bid ? TRIDGE_BIDS.indexOf(view.standing_bid.bid) : -1;
  const allPassed = view.phase === 'all_passed';
  // No Tricks only once everyone has passed; otherwise a call must beat the standing one.
  return TRIDGE_BIDS.map((bid, i) => ({ bid, ok: bid === 'no_tricks' ? allPassed : !allPassed && i > standing }));
}

export { RANKS, SUITS };
