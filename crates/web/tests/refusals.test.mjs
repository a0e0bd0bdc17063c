// What a phone may do with an entry another phone beat to the table (page/app/refusals.js):
// only what it can, never the next seat's entry in its name.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { lastLive, refusalChoices, stillOpen } from '../page/app/refusals.js';

const kSpadesForBob = { kind: 'play', seat: 1, card: 'KS' };

test('a card is open again only to the same seat and only while the card is among its choices', () => {
  const bobs = { to_act: 1, legal_moves: [{ kind: 'play', seat: 1, trick: 1, cards: ['KS', '7D'] }] };
  const cats = { to_act: 2, legal_moves: [{ kind: 'play', seat: 2, trick: 1, cards: ['KS', '7D'] }] };
  assert.equal(stillOpen(kSpadesForBob, bobs), true);
  assert.equal(stillOpen(kSpadesForBob, cats), false, "Cat's picker is not Bob's");
  assert.equal(stillOpen({ ...kSpadesForBob, card: 'QS' }, bobs), false, 'a card not among the choices');
  assert.equal(stillOpen({ ...kSpadesForBob, trick: 2 }, bobs), false, 'a card for another trick');
  assert.equal(stillOpen(null, bobs), false);
});

test('a nomination, a bid and a move without a seat are read the same way', () => {
  const nominations = { to_act: 2, legal_moves: [{ kind: 'nominate', seat: 2, tricks: [0, 1] }] };
  assert.equal(stillOpen({ kind: 'nominate', seat: 2, tricks: 1 }, nominations), true);
  assert.equal(stillOpen({ kind: 'nominate', seat: 2, tricks: 3 }, nominations), false);
  assert.equal(stillOpen({ kind: 'nominate', seat: 1, tricks: 1 }, nominations), false);
  const bids = { to_act: null, legal_moves: [{ kind: 'bid', seat: 0, bids: ['play'] }, { kind: 'pass', seats: [0, 2] }] };
  assert.equal(stillOpen({ kind: 'bid', seat: 0, bid: 'play' }, bids), true);
  assert.equal(stillOpen({ kind: 'bid', seat: 0, bid: 'flip' }, bids), false);
  assert.equal(stillOpen({ kind: 'pass', seat: 2 }, bids), true);
  assert.equal(stillOpen({ kind: 'pass', seat: 1 }, bids), false);
  const turnUp = { legal_moves: [{ kind: 'turn_up', cards: ['2C', '3C'] }] };
  assert.equal(stillOpen({ kind: 'turn_up', card: '2C' }, turnUp), true);
  assert.equal(stillOpen({ kind: 'turn_up', card: 'AS' }, turnUp), false);
});

test('a kind the server only names is open to the seat to act', () => {
  assert.equal(stillOpen(kSpadesForBob, { to_act: 1, legal_moves: ['play'] }), true);
  assert.equal(stillOpen(kSpadesForBob, { to_act: 2, legal_moves: ['play'] }), false);
  assert.equal(stillOpen(kSpadesForBob, { to_act: 1, legal_moves: ['nominate'] }), false);
});

const play = (seq, seat, card, extra = {}) => ({ seq, entry: 'move', move: { kind: 'play', seat, card }, ...extra });
const refused = { key: 'k', path: 'moves', body: { move: kSpadesForBob, deal: 1, expected_version: 4 }, label: 'K♠ for Bob', at: '' };

test("another seat's turn now: no entering again, the other phone's entry may be undone first", () => {
  const log = [play(4, 0, '2S'), play(5, 1, '7D')];
  const view = { deal: 1, to_act: 2, legal_moves: [{ kind: 'play', seat: 2, cards: ['KS'] }] };
  const { again, undo } = refusalChoices(refused, 4, log, view);
  assert.equal(again, false);
  assert.equal(undo, log[1]);
});

test('the other phone undid its entry: entering again, nothing of theirs to undo', () => {
  const log = [play(4, 0, '2S'), play(5, 1, '7D', { voided_by: 6 }), { seq: 6, entry: 'void', voids: 5 }];
  const view = { deal: 1, to_act: 1, legal_moves: [{ kind: 'play', seat: 1, cards: ['KS', '7D'] }] };
  assert.deepEqual(refusalChoices(refused, 4, log, view), { again: true, undo: null });
});

test('more than one entry since, or one Undo would not void: nothing to undo', () => {
  const view = { deal: 1, to_act: 3, legal_moves: [{ kind: 'play', seat: 3, cards: ['KS'] }] };
  const two = [play(5, 1, '7D'), play(6, 2, '8D')];
  assert.equal(refusalChoices(refused, 4, two, view).undo, null);
  const ruling = [{ seq: 5, entry: 'ruling', move: { deal: 1, kind: 'average' } }];
  assert.equal(refusalChoices(refused, 4, ruling, view).undo, null);
});

test('a result is entered again only for the deal the table still waits for', () => {
  const result = { key: 'r', path: 'moves', body: { move: { kind: 'result', tricks: [1, 0, 0, 0] }, deal: 1, expected_version: 0 }, label: 'Result of deal 1', at: '' };
  const theirs = { seq: 1, entry: 'move', move: { kind: 'result', tricks: [0, 1, 0, 0] } };
  const next = { deal: 2, legal_moves: [{ kind: 'result', hand_size: 1 }] };
  assert.deepEqual(refusalChoices(result, 0, [theirs], next), { again: false, undo: theirs });
  const same = { deal: 1, legal_moves: [{ kind: 'result', hand_size: 1 }] };
  assert.equal(refusalChoices(result, 0, [], same).again, true);
});

test('an undo that was refused is never entered again by itself', () => {
  const undo = { key: 'u', path: 'undo', body: { expected_version: 3 }, label: 'undo of 7♦ for Bob', at: '' };
  assert.deepEqual(refusalChoices(undo, 3, [play(4, 1, '7D')], { legal_moves: ['play'] }), { again: false, undo: null });
});

test('the last move not undone is what Undo voids', () => {
  const log = [play(1, 0, '2S'), play(2, 1, '7D', { voided_by: 3 }), { seq: 3, entry: 'void', voids: 2 }];
  assert.equal(lastLive(log), log[0]);
  assert.equal(lastLive([]), null);
});
