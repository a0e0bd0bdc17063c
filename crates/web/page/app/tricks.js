// @ts-check
// The deal in hand card by card without the server: the service's trick plan
// (`GET /tables/{id}/trick-plan`, read as a deal's play begins) says who plays after whom,
// how each card follows and how strong it is, and what trumps each suit led. With it the page
// goes on offering the next seat's cards behind the queued ones and tells who won each trick
// (and so leads the next). It is the plan read, not the rules copied: the service checks every
// card when it hears of it, and the first it refuses stops the queue as any refusal does.

/** @typedef {import('./types.js').Card} Card */
/** @typedef {import('./types.js').Play} Play */
/** @typedef {import('./types.js').Seat} Seat */
/** @typedef {import('./types.js').GameView} GameView */
/** @typedef {import('./types.js').QueuedEntry} QueuedEntry */
/** @typedef {import('./types.js').LogEntry} LogEntry */

/**
 * A deal's tricks as the service describes them (`TrickPlan` in the spec).
 * @typedef {object} TrickPlan
 * @property {number} deal
 * @property {Seat[]} seats who plays, in turn; after the last, the first
 * @property {number} tricks tricks in the deal
 * @property {number[]} pause_after tricks after which a card may not be the only move
 * @property {{ card: Card, follows: string, strength: number }[]} cards
 * @property {{ led: string, trumps: string }[]} trumps
 */

/**
 * The plan as this page keeps it: read at the table's `version`, for `deal` (null `plan`: the
 * table's game or deal has none, and the page finishes an offline deal as a result).
 * @typedef {{ version: number, deal: number, plan: TrickPlan | null }} KeptPlan
 */

/// The seat whose card wins `plays` (the lead first): the highest key of (follows the suit that
/// trumps the suit led, follows the suit led, strength), the earliest on equal keys. Null for
/// no plays or a card the plan does not know.
/**
 * @param {TrickPlan} plan
 * @param {Play[]} plays
 * @returns {Seat | null}
 */
export function trickWinner(plan, plays) {
  const of = (/** @type {Card} */ card) => plan.cards.find((c) => c.card === card);
  const lead = plays[0] && of(plays[0].card);
  if (!lead) return null;
  const trumps = plan.trumps.find((t) => t.led === lead.follows)?.trumps ?? null;
  /** @type {{ key: number[], seat: Seat } | null} */
  let best = null;
  for (const p of plays) {
    const c = of(p.card);
    if (!c) return null;
    const key = [c.follows === trumps ? 1 : 0, c.follows === lead.follows ? 1 : 0, c.strength];
    if (!best || greater(key, best.key)) best = { key, seat: p.seat };
  }
  return best ? best.seat : null;
}

/**
 * @param {number[]} a
 * @param {number[]} b
 */
function greater(a, b) {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

/// The seat that plays after `seat`, or null when the plan does not seat it.
/**
 * @param {TrickPlan} plan
 * @param {Seat} seat
 * @returns {Seat | null}
 */
export function seatAfter(plan, seat) {
  const i = plan.seats.indexOf(seat);
  return i < 0 ? null : plan.seats[(i + 1) % plan.seats.length];
}

/// Whether the kept plan still stands for the table as the page has it: read for the deal in
/// hand, and nothing undone since it was read (an undo may reach back to the deal's bidding or
/// turn-up, and with it the trumps).
/**
 * @param {KeptPlan | null | undefined} kept
 * @param {number | null | undefined} deal
 * @param {LogEntry[]} log
 * @returns {boolean}
 */
export function planStands(kept, deal, log) {
  if (!kept || deal == null || Number(kept.deal) !== Number(deal)) return false;
  return !log.some((e) => (e.seq ?? 0) > kept.version && e.entry === 'void');
}

/// The table after the queued entries, when they are all cards of the deal in hand and the plan
/// can follow them: the view with the trick as it now stands, the next seat to act and the cards
/// it may play (those the server offered less those queued since), the tricks won so far; with
/// `won`, the last trick the queue completed. `over` when the queue ends the deal (its next deal
/// needs the server, or a result). Null when the page cannot tell (an entry that is not a card,
/// a card for another seat, a pause where the game may ask something else).
/**
 * @param {GameView} view the table's state as the server last answered it
 * @param {TrickPlan} plan
 * @param {QueuedEntry[]} items the entries queued since
 * @returns {{ view: GameView, won: { number: number, winner: Seat, plays: Play[] } | null, over: boolean } | null}
 */
export function playOn(view, plan, items) {
  const trick = view.current_trick;
  const offered = (view.legal_moves || []).find((m) => typeof m === 'object' && m?.kind === 'play');
  if (!trick || !offered || typeof offered !== 'object' || offered.seat == null) return null;
  let number = trick.number;
  let leader = trick.leader ?? offered.seat;
  let plays = [...trick.plays];
  let next = offered.seat;
  const left = new Set(offered.cards || []);
  const won = view.tricks_won ? [...view.tricks_won] : null;
  /** @type {{ number: number, winner: Seat, plays: Play[] } | null} */
  let last = null;
  for (const item of items) {
    const move = item.path === 'moves' ? item.body?.move : null;
    if (!move || move.kind !== 'play' || move.seat !== next || !left.has(move.card)) return null;
    left.delete(move.card);
    plays.push({ seat: move.seat, card: move.card });
    last = null;
    if (plays.length < plan.seats.length) {
      const after = seatAfter(plan, move.seat);
      if (after == null) return null;
      next = after;
      continue;
    }
    const winner = trickWinner(plan, plays);
    if (winner == null) return null;
    if (won) won[winner] = (won[winner] ?? 0) + 1;
    last = { number, winner, plays };
    if (number >= plan.tricks) {
      const played = { ...trick, number, leader: winner, plays: [] };
      return { view: { ...view, to_act: null, current_trick: played, tricks_won: won ?? view.tricks_won, legal_moves: [] }, won: last, over: true };
    }
    if (plan.pause_after.includes(number)) return null;
    number += 1;
    leader = winner;
    plays = [];
    next = winner;
  }
  return {
    view: {
      ...view,
      to_act: next,
      current_trick: { ...trick, number, leader, plays },
      tricks_won: won ?? view.tricks_won,
      // A card queued, what else was open before it (Tridge's count of the stock) is not now.
      legal_moves: [{ ...offered, seat: next, trick: number, cards: [...left] }],
    },
    won: last,
    over: false,
  };
}
