// The table in words (page/app/words.js), with the games' own words from their page modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { bookingText, changedResults, changeWords, countdownText, dealChanges, describe, facts, rulingsToAnswer, seatBits, summaryLines, totalsOf } from '../page/app/words.js';
import * as dividend from '../page/app/games/dividend.js';
import * as nominationWhist from '../page/app/games/nomination-whist.js';
import * as popeJoan from '../page/app/games/pope-joan.js';
import * as trickyDick from '../page/app/games/tricky-dick.js';
import * as tridge from '../page/app/games/tridge.js';

const players = ['Ann', 'Bob', 'Cat', 'Dan'];
const who = (s) => players[s] ?? `seat ${s}`;

test('log entries in words: a card for a seat, an undo of it', () => {
  const entry = { entry: 'move', move: { kind: 'play', seat: 2, card: '7D' } };
  assert.equal(describe(entry, players), '7♦ for Cat');
  assert.equal(describe({ ...entry, entry: 'void' }, players), 'an undo of 7♦ for Cat');
  assert.equal(describe({ entry: 'move', move: { kind: 'turn_up', card: '10H' } }, players), '10♥ turned up');
  assert.equal(describe({ entry: 'move', move: { kind: 'stop' } }, players), 'stop');
  assert.equal(describe({ entry: 'move', move: { kind: 'show', seat: 5 } }, players), 'show for seat 5');
});

test('a correction is named as the correction of its deal, and so is its undo (undo voids it whole)', () => {
  const correction = { entry: 'correction', move: { deal: 2, moves: [{ kind: 'result' }], reason: 'Ann took it' } };
  assert.equal(describe(correction, players, nominationWhist), 'the correction of deal 2');
  assert.equal(describe({ ...correction, entry: 'void' }, players, nominationWhist), 'an undo of the correction of deal 2');
  assert.equal(describe(correction, players, trickyDick), 'the correction of hand 2');
});

test("a director's ruling and a phone's answer to it are said as such, not as moves", () => {
  const ruling = { entry: 'ruling', move: { deal: 2, kind: 'average', reason: 'a revoke', seats: [1] } };
  assert.equal(describe(ruling, players, nominationWhist), 'a ruling on deal 2: average');
  const answer = { entry: 'ruling', move: { deal: 2, ruling: 40, answer: 'appeal', comment: 'no revoke' } };
  assert.equal(describe(answer, players), 'appealed the ruling on deal 2');
  assert.equal(describe({ ...answer, move: { ...answer.move, answer: 'agree' } }, players), 'agreed with the ruling on deal 2');
});

test("a game's own moves are said by its page module", () => {
  const nominate = { entry: 'move', move: { kind: 'nominate', seat: 1, tricks: 2 } };
  assert.equal(describe(nominate, players, nominationWhist), 'Bob nominated 2');
  assert.equal(describe(nominate, players), 'nominate for Bob', 'without the module: the kind in words');
  const declare = { entry: 'move', move: { kind: 'declare', seat: 0, contract: { contract: 'no_change', trumps: 'hearts' } } };
  assert.equal(describe(declare, players, tridge), 'Ann declared no change in ♥ hearts');
  assert.equal(describe({ entry: 'move', move: { kind: 'pope_holder', seat: null } }, players, popeJoan), 'the Pope held by the spare hand');
  assert.equal(describe({ entry: 'move', move: { kind: 'trick', number: 4, winner: 3 } }, players, dividend), 'trick 4 won by Dan');
  assert.equal(describe({ entry: 'move', move: { kind: 'play', seat: 0, card: 'AS' } }, players, tridge), 'A♠ for Ann', 'the shared words for the rest');
});

test('the header: deal of how many, dealer, hand size, trumps, then what the game adds', () => {
  const nw = { players, finished: false, state: { deal: 3, deals_in_game: 8, dealer: 1, hand_size: 1, trumps: 'hearts' } };
  assert.deepEqual(facts(nw, nominationWhist), ['Deal 3 of 8', 'Dealer Bob', '1 card', 'Trumps ♥ hearts']);
  const waiting = { players, finished: false, state: { deal: 1, phase: 'nominating', turn_up: null, trumps: null } };
  assert.deepEqual(facts(waiting, nominationWhist), ['Deal 1', 'Trumps not known yet']);
  const td = { players, finished: true, state: { hand: 2, hands_in_game: 2 } };
  assert.deepEqual(facts(td, trickyDick), ['Hand 2 of 2', 'Game over']);
  const tr = { players, finished: false, state: { deal: 1, player: 2, contract: { contract: 'play', trumps: 'spades' } } };
  assert.deepEqual(facts(tr, tridge), ['Deal 1', 'Cat: play in ♠ spades']);
  assert.deepEqual(facts(tr), ['Deal 1'], 'the contract is Tridge\'s to say');
});

test("a seat's bits: the game's own first, then tricks and cards left", () => {
  const v = { phase: 'playing', nominations: [{ seat: 1, tricks: 2 }], tricks_won: [0, 1, 0, 0] };
  assert.deepEqual(seatBits(v, 1, nominationWhist), ['nom. 2', '1 tricks']);
  assert.deepEqual(seatBits(v, 0, nominationWhist), ['0 tricks'], 'a seat that has not nominated');
  const t = { phase: 'bidding', standing_bid: { seat: 0, bid: 'no_change' }, player: 0, sitting_out: 3, tricks_won: [0, 0, 0, 0] };
  assert.deepEqual(seatBits(t, 0, tridge), ['bid no change', 'Player']);
  assert.deepEqual(seatBits(t, 3, tridge), ['sits out']);
  const d = { cards_won: [8, 0, 4, 0] };
  assert.deepEqual(seatBits(d, 0, dividend), ['8 cards won']);
  assert.deepEqual(seatBits(d, 0, dividend, true), ['8 cards'], "the board's tile says less");
  assert.deepEqual(seatBits({ phase: 'playing', cards_left: [3, 0] }, 0), ['3 left']);
});

test("a deal's summary: made or missed per seat, with the points", () => {
  const entry = { entry: 'move', move: { kind: 'result', nominations: [1, 0, 2, 0], tricks: [1, 1, 2, 0] } };
  const lines = summaryLines({ event: 'deal_scored', points: [11, -1, 12, 10] }, entry, {}, who, nominationWhist);
  assert.deepEqual(lines, ['Ann: made 1, +11 points', 'Bob: missed 0 (won 1), -1 points', 'Cat: made 2, +12 points', 'Dan: made 0, +10 points']);
});

test("a deal played card by card counts its last trick before saying made or missed", () => {
  const before = { nominations: [{ seat: 0, tricks: 1 }, { seat: 1, tricks: 0 }], tricks_won: [0, 0] };
  const entry = { entry: 'move', move: { kind: 'play', seat: 0, card: 'AS' }, events: [{ event: 'trick_won', winner: 0 }] };
  const lines = summaryLines({ event: 'deal_scored' }, entry, before, who, nominationWhist);
  assert.deepEqual(lines, ['Ann: made 1', 'Bob: made 0']);
});

test("Tridge's outcome comes first; a stops game's winner went out; chips are chips", () => {
  const tr = summaryLines({ event: 'deal_scored', outcome: 'contract_made', player: 2, tricks: [1, 2, 6], net: [-3, -3, 6] },
    { entry: 'move', move: { kind: 'play' } }, {}, who, tridge);
  assert.deepEqual(tr, ['Cat: contract made with 6 tricks', 'Ann: -3 chips', 'Bob: -3 chips', 'Cat: +6 chips']);
  const pj = summaryLines({ event: 'deal_ended', winner: 1, net: [-2, 4, -2] }, { entry: 'move' }, {}, who, popeJoan);
  assert.deepEqual(pj, ['Bob went out', 'Ann: -2 chips', 'Bob: +4 chips', 'Cat: -2 chips']);
});

test('running totals are points, or chips for the chip games', () => {
  assert.deepEqual(totalsOf({ totals: [1, 2] }), [1, 2]);
  assert.deepEqual(totalsOf({ chips: [5, -5] }), [5, -5]);
  assert.deepEqual(totalsOf({}), []);
});

test('a deal corrected or ruled is said so; an assigned ruling and undone entries are not corrections', () => {
  const log = [
    { seq: 1, entry: 'move', move: { kind: 'result' } },
    { seq: 2, entry: 'move', move: { kind: 'result' } },
    { seq: 3, entry: 'correction', move: { deal: 1, moves: [], reason: "Bob's trick" } },
    { seq: 4, entry: 'ruling', move: { deal: 2, kind: 'void', reason: 'fouled' } },
    { seq: 5, entry: 'ruling', move: { deal: 2, ruling: 4, answer: 'agree' }, recorded_by: 'scorer:a' },
    { seq: 6, entry: 'correction', move: { deal: 2, moves: [], reason: 'ruling: a claim' } },
    { seq: 7, entry: 'ruling', move: { deal: 2, kind: 'average', reason: 'a claim' } },
    { seq: 8, entry: 'correction', move: { deal: 3, moves: [], reason: 'undone' }, voided_by: 9 },
  ];
  const changes = dealChanges(log);
  assert.deepEqual(changeWords(changes.get(1)), ['corrected']);
  assert.deepEqual(changeWords(changes.get(2)), ['ruled: average'], 'the latest ruling stands; its correction is the ruling\'s');
  assert.deepEqual(changeWords(changes.get(3)), [], 'an undone correction changed nothing');
  assert.deepEqual(changeWords(undefined), []);
  assert.deepEqual(rulingsToAnswer(log, 'scorer:a').map((e) => e.seq), [7], 'this phone answered the void');
  assert.deepEqual(rulingsToAnswer(log, 'scorer:b').map((e) => e.seq), [4, 7]);
});

test('the correction window counts down to final_at, then says Final', () => {
  const now = Date.parse('2026-12-06T20:00:00Z');
  assert.equal(countdownText(undefined, now), null);
  assert.equal(countdownText({ status: 'open' }, now), null);
  assert.equal(countdownText({ status: null, final_at: null }, now), null, 'a session never closed');
  assert.equal(countdownText({ status: 'closing', final_at: '2026-12-06T20:12:34Z' }, now), 'Corrections close in 12:34');
  assert.equal(countdownText({ status: 'closing', final_at: '2026-12-06T20:00:00.400Z' }, now), 'Corrections close in 0:01');
  assert.equal(countdownText({ status: 'closing', final_at: '2026-12-06T20:00:00Z' }, now), 'Final', 'the window has run out');
  assert.equal(countdownText({ status: 'final', final_at: '2026-12-06T21:00:00Z' }, now), 'Final');
  // A phone's header line says it in fewer words.
  assert.equal(countdownText({ status: 'closing', final_at: '2026-12-06T20:12:34Z' }, now, true), 'Final in 12:34');
  assert.equal(countdownText({ status: 'final', final_at: '2026-12-06T21:00:00Z' }, now, true), 'Final');
});

test('the board names each table\'s changed results, a deal once with what happened to it last', () => {
  const said = changedResults([
    { kind: 'undo', table_id: 't1', deal: 1 },
    { kind: 'ruling', table_id: 't1', deal: 3 },
    { kind: 'correction', table_id: 't1', deal: 2 },
    { kind: 'correction', table_id: 't1', deal: 3 },
    { kind: 'ruling_answer', table_id: 't2', deal: 1 },
    { kind: 'close', table_id: null, deal: null },
    { kind: 'ruling', table_id: 't3', deal: 4 },
  ]);
  assert.equal(said.get('t1'), 'Changed: deal 2 corrected, deal 3 corrected');
  assert.equal(said.has('t2'), false, 'an answer to a ruling changes no result');
  assert.equal(said.get('t3'), 'Changed: deal 4 ruled');
  assert.equal(said.size, 2);
});

test("the hook rule's number says why it is refused: the last to nominate may not make the hand", () => {
  // The server's legal moves leave 1 out for Dan, nominating last in a hand of 3.
  const view = { hand_size: 3, to_act: 3, forbidden_nomination: 1, legal_moves: [{ kind: 'nominate', seat: 3, tricks: [0, 2, 3] }] };
  const hooked = nominationWhist.nominations(view).find((c) => c.n === 1);
  assert.equal(hooked.ok, false);
  assert.equal(hooked.why, 'hook rule: the last to nominate may not make the nominations add up to 3');
  assert.ok(nominationWhist.nominations(view).filter((c) => c.n !== 1).every((c) => c.ok && c.why === null));
});

test('a ledger booking names its deal once, however its memo begins', () => {
  assert.equal(bookingText({ deal: 1, memo: 'deal 1: Matrimony won by seat 0 (K♦ and Q♦)' }), 'Deal 1: Matrimony won by seat 0 (K♦ and Q♦)');
  assert.equal(bookingText({ deal: 2, memo: 'hand 2, trick 3: trick value +1 to seat 0' }, 'Hand'), 'Hand 2: trick 3: trick value +1 to seat 0');
  assert.equal(bookingText({ deal: 3, memo: 'reversal: deal 3: the board is dressed', reverses: 7 }), 'Deal 3: the board is dressed (reversal)');
  assert.equal(bookingText({ deal: 4, memo: 'ruling: average of deal 4' }), 'Deal 4: ruling: average of deal 4');
  assert.equal(bookingText({ deal: null, memo: 'opening chips' }), 'opening chips');
});
