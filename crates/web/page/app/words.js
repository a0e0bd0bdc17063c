// @ts-check
// The table in words, without a browser: a log entry ("7♦ for Cat"), the header's facts
// ("Deal 3 of 8 · Dealer Ann · Trumps ♥ hearts"), what each seat said and won, a deal's summary.
// What is a game's own (Tridge's contract, Nomination Whist's nominations, Tricky Dick's hands)
// is said by the game's page module through its hooks (`GamePage` in types.js), passed in as
// `page`: nothing here reads a field only one game's view has.

import { cardPart, plainText, suitSymbol, suitWord } from './cards.js';
import { clockText } from './clock.js';
import { numberingOf } from './legal.js';

/** @typedef {import('./types.js').GamePage} GamePage */
/** @typedef {import('./types.js').GameView} GameView */
/** @typedef {import('./types.js').GameEvent} GameEvent */
/** @typedef {import('./types.js').LogEntry} LogEntry */
/** @typedef {import('./types.js').Move} Move */
/** @typedef {import('./types.js').Seat} Seat */
/** @typedef {import('./types.js').Sentence} Sentence */
/** @typedef {import('./types.js').TableView} TableView */
/** @typedef {import('./types.js').Who} Who */

/// "play_diamonds" → "play diamonds".
/**
 * @param {unknown} s
 * @returns {string}
 */
export const spaced = (s) => String(s).replaceAll('_', ' ');

/// A log entry in words: "7♦ for Cat", "Bob nominated 2", "undo of …"; a Squares card in words.
/**
 * @param {LogEntry} entry
 * @param {string[]} players
 * @param {GamePage | null} [page] the game's page module, which says its own moves
 * @returns {string}
 */
export function describe(entry, players, page = null) {
  return plainText(describeParts(entry, players, page));
}

/// A log entry as a sentence of strings and card faces (a Squares card as its coloured shape).
/**
 * @param {LogEntry} entry
 * @param {string[]} players
 * @param {GamePage | null} [page]
 * @returns {Sentence}
 */
export function describeParts(entry, players, page = null) {
  const m = entry.move || { kind: '' };
  /** @type {Who} */
  const who = (s) => (s == null ? 'the spare hand' : players[s] ?? `seat ${s}`);
  // A void repeats what it undid: a correction's body carries the deal's moves.
  if (entry.entry === 'void') return ['an undo of ', Array.isArray(m.moves) ? correctionWords(m, page) : describeMove(m, who, page)];
  // A correction is undone whole, with the moves it brought: it is named as the correction.
  if (entry.entry === 'correction') return correctionWords(m, page);
  // A director's ruling, or a phone's answer to one: not a move of the game.
  if (entry.entry === 'ruling') {
    if (m.answer != null) return `${m.answer === 'agree' ? 'agreed with' : 'appealed'} the ruling on deal ${m.deal}`;
    return `a ruling on deal ${m.deal}: ${spaced(m.kind)}`;
  }
  return describeMove(m, who, page);
}

/// "the correction of deal 2" (`{"deal", "moves", "reason"}`).
/**
 * @param {Move} m
 * @param {GamePage | null} page
 * @returns {string}
 */
function correctionWords(m, page) {
  return `the correction of ${numberingOf(page).word.toLowerCase()} ${m.deal}`;
}

/**
 * @param {Move} m
 * @param {Who} who
 * @param {GamePage | null} page
 * @returns {Sentence}
 */
function describeMove(m, who, page) {
  const own = page?.describe?.(m, who);
  if (own != null) return own;
  switch (m.kind) {
    case 'play': return [cardPart(m.card), ` for ${who(m.seat)}`];
    case 'turn_up': return [cardPart(m.card), ' turned up'];
    case 'stop': return m.seat == null ? 'stop' : `${who(m.seat)} stopped`;
    case 'result': return 'a deal result';
    default: return `${spaced(m.kind)}${m.seat != null ? ` for ${who(m.seat)}` : ''}`;
  }
}

/// A ledger booking in words: "Deal 1: the board is dressed". A memo that names its deal
/// already ("deal 1: …", "hand 2, trick 3: …") is not named twice, and a reversal is said once.
/**
 * @param {{ deal?: number | null, memo?: string | null, reverses?: unknown }} booking
 * @param {string} [word] how the game calls a deal ("Deal", or "Hand" for Tricky Dick)
 * @returns {string}
 */
export function bookingText(booking, word = 'Deal') {
  let memo = String(booking.memo ?? '');
  const reversal = /^reversal: /i.test(memo);
  if (reversal) memo = memo.replace(/^reversal: /i, '');
  if (booking.deal != null) memo = memo.replace(new RegExp(`^(?:deal|hand) ${booking.deal}(?::|,)\\s*`, 'i'), '');
  const reversed = reversal || Boolean(booking.reverses);
  return `${booking.deal ? `${word} ${booking.deal}: ` : ''}${memo}${reversed ? ' (reversal)' : ''}`;
}

/// The header's facts: the deal (or hand) of how many, the dealer, the hand size, trumps, what
/// the game adds (`page.facts`), "Game over". `short` for the board's tiles, whose seats mark
/// the dealer: no dealer, trumps as their symbol.
/**
 * @param {TableView} t
 * @param {GamePage | null} [page]
 * @param {boolean} [short]
 * @returns {string[]}
 */
export function facts(t, page = null, short = false) {
  const v = t.state;
  /** @type {Who} */
  const name = (s) => t.players[s] ?? '';
  const n = numberingOf(page);
  const out = [];
  if (v[n.deal] != null) out.push(`${n.word} ${v[n.deal]}${v[n.inGame] ? ` of ${v[n.inGame]}` : ''}`);
  if (v.dealer != null && !short) out.push(`Dealer ${name(v.dealer)}`);
  if (v.hand_size != null) out.push(`${v.hand_size} card${v.hand_size === 1 ? '' : 's'}`);
  if (v.trumps) out.push(`Trumps ${(short && suitSymbol(v.trumps)) || suitWord(v.trumps)}`);
  else if (v.phase === 'turn_up' || (v.phase === 'nominating' && 'turn_up' in v && !v.trumps)) out.push('Trumps not known yet');
  out.push(...(page?.facts?.(v, name) ?? []));
  if (t.finished || v.phase === 'finished') out.push('Game over');
  return out;
}

/// Each seat's running total: points, or chips for the chip games.
/**
 * @param {GameView} v
 * @returns {any[]}
 */
export function totalsOf(v) {
  return v.totals || v.chips || [];
}

/// What a seat said and won this deal: the game's own (a nomination, a bid, "Player"), then
/// tricks won and cards left. `short` for the board's tiles.
/**
 * @param {GameView} v
 * @param {Seat} s
 * @param {GamePage | null} [page]
 * @param {boolean} [short]
 * @returns {string[]}
 */
export function seatBits(v, s, page = null, short = false) {
  const bits = [...(page?.seatBits?.(v, s, short) ?? [])];
  if (v.tricks_won && (v.phase === 'playing' || v.tricks_won.some((x) => x))) bits.push(`${v.tricks_won[s] ?? 0} tricks`);
  if (v.cards_left && v.phase === 'playing') bits.push(`${v.cards_left[s]} left`);
  return bits;
}

/// A deal's outcome in lines: what the game says first (`page.summary`: Tridge's outcome), who
/// went out, then per seat what the game says (made or missed) and what the seat scored.
/**
 * @param {GameEvent} ev the event that ended the deal (`deal_scored`, `passed_out`, …)
 * @param {LogEntry} entry the entry whose events ended it
 * @param {GameView | undefined} before the view before that entry
 * @param {Who} who
 * @param {GamePage | null} [page]
 * @returns {string[]}
 */
export function summaryLines(ev, entry, before, who, page = null) {
  const own = page?.summary?.(ev, entry, before || {}, who) ?? {};
  const amounts = ev.points ?? ev.net ?? null;
  const unit = ev.net ? 'chips' : 'points';
  const per = Array.isArray(own.seats) ? own.seats : null;
  const lines = [];
  const seats = Array.isArray(amounts) ? amounts.length : per ? per.length : 0;
  for (let s = 0; s < seats; s += 1) {
    const bits = [];
    if (per && per[s] != null) bits.push(per[s]);
    if (Array.isArray(amounts)) bits.push(`${amounts[s] > 0 ? '+' : ''}${amounts[s]} ${unit}`);
    lines.push(`${who(s)}: ${bits.join(', ')}`);
  }
  if (ev.winner != null) lines.unshift(`${who(ev.winner)} went out`);
  lines.unshift(...(own.lines ?? []));
  return lines;
}

/// What changed a finished deal after it was recorded, read from the table's log: per deal
/// (numbered as on the score sheet), whether a scorer's correction stands and the kinds of the
/// director's rulings, oldest first. An `assigned` ruling enters its moves as a correction whose
/// reason starts `ruling:`: that is the ruling's, not a scorer's correction. Undone entries
/// changed nothing.
/**
 * @param {LogEntry[]} log
 * @returns {Map<number, { corrected: boolean, rulings: string[] }>}
 */
export function dealChanges(log) {
  /** @type {Map<number, { corrected: boolean, rulings: string[] }>} */
  const out = new Map();
  const of = (/** @type {number} */ deal) => {
    if (!out.has(deal)) out.set(deal, { corrected: false, rulings: [] });
    return /** @type {{ corrected: boolean, rulings: string[] }} */ (out.get(deal));
  };
  for (const e of log) {
    const m = e.move;
    if (e.voided_by || !m || m.deal == null) continue;
    if (e.entry === 'correction' && !String(m.reason ?? '').startsWith('ruling:')) of(m.deal).corrected = true;
    if (e.entry === 'ruling' && m.answer == null) of(m.deal).rulings.push(m.kind);
  }
  return out;
}

/// A deal's changes in words: "corrected", "ruled: average" (the latest ruling stands).
/**
 * @param {{ corrected: boolean, rulings: string[] } | undefined} changes
 * @returns {string[]}
 */
export function changeWords(changes) {
  if (!changes) return [];
  const out = [];
  if (changes.corrected) out.push('corrected');
  if (changes.rulings.length) out.push(`ruled: ${spaced(changes.rulings[changes.rulings.length - 1])}`);
  return out;
}

/// What the board says of each table's changed results, from the session's changes (`GET
/// /sessions/{id}/changes`' items, oldest first): "Changed: deal 2 corrected, deal 3 ruled", a
/// deal named once with what happened to it last; tables with none are left out.
/**
 * @param {{ kind: string, table_id?: string | null, deal?: number | null }[]} changes
 * @returns {Map<string, string>}
 */
export function changedResults(changes) {
  /** @type {Map<string, Map<number, string>>} */
  const byTable = new Map();
  for (const c of changes) {
    const word = c.kind === 'correction' ? 'corrected' : c.kind === 'ruling' ? 'ruled' : null;
    if (!word || !c.table_id || c.deal == null) continue;
    const deals = byTable.get(c.table_id) ?? new Map();
    deals.delete(c.deal);
    deals.set(c.deal, word);
    byTable.set(c.table_id, deals);
  }
  const out = new Map();
  for (const [table, deals] of byTable) {
    const said = [...deals].sort(([a], [b]) => a - b).map(([deal, word]) => `deal ${deal} ${word}`);
    out.set(table, `Changed: ${said.join(', ')}`);
  }
  return out;
}

/// The rulings of the table this phone has not answered yet, oldest first: each ruling's log
/// entry (its `seq` is the ruling's id). `me` is this phone's `recorded_by`.
/**
 * @param {LogEntry[]} log
 * @param {string | null} me
 * @returns {LogEntry[]}
 */
export function rulingsToAnswer(log, me) {
  const answered = new Set(log
    .filter((e) => e.entry === 'ruling' && e.move?.answer != null && e.recorded_by === me)
    .map((e) => e.move?.ruling));
  return log.filter((e) => e.entry === 'ruling' && !e.voided_by && e.move && e.move.answer == null && !answered.has(e.seq));
}

/// A session's correction window on the page and the board: "Corrections close in 12:34"
/// while it is `closing` (counting to `final_at`), "Final" once it is; null for an open session.
/// `short` (a phone's header line, beside the table's name): "Final in 12:34".
/**
 * @param {{ status?: string | null, final_at?: string | null } | null | undefined} session
 * @param {number} now ms since the epoch
 * @param {boolean} [short]
 * @returns {string | null}
 */
export function countdownText(session, now, short = false) {
  if (!session?.status || session.status === 'open' || !session.final_at) return null;
  const left = Date.parse(session.final_at) - now;
  if (session.status === 'final' || Number.isNaN(left) || left <= 0) return 'Final';
  return `${short ? 'Final in' : 'Corrections close in'} ${clockText(left)}`;
}

/// A session's reopenings, as shown beside its result ever after: "Reopened 7 Dec, 21:40
/// (closed 7 Dec, 21:05): the scores of table 3 were entered against the wrong seats".
/**
 * @param {{ reopened_at: string, closed_at: string, reason: string }[] | null | undefined} reopenings
 * @returns {string[]}
 */
export function reopenedLines(reopenings) {
  const when = (/** @type {string} */ at) => new Date(at).toLocaleString([], { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  return (reopenings ?? []).map((r) => `Reopened ${when(r.reopened_at)} (closed ${when(r.closed_at)}): ${r.reason}`);
}
