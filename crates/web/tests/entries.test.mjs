// The move log read as the server reads it (page/app/entries.js), and the deal in hand offered
// as a result offline (queue.js's dealInHandView): without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { entriesOfDeal, setAside, undoTarget } from '../page/app/entries.js';
import { DEALS } from '../page/app/legal.js';
import { dealInHandView } from '../page/app/queue.js';

const nominate = (seq, seat, tricks, extra = {}) => ({ seq, entry: 'move', move: { kind: 'nominate', seat, tricks }, events: [], ...extra });
const result = (seq, deal, extra = {}) => ({
  seq, entry: 'move', move: { kind: 'result', nominations: [0, 0, 0, 1], tricks: [0, 0, 0, 1] },
  events: [{ event: 'deal_scored', deal }, { event: 'deal_started', deal: deal + 1 }], ...extra,
});
const words = (e) => `${e.move.kind} ${e.seq}`;
const queued = (path, label, move = { kind: 'play' }) => ({ key: label, path, body: path === 'undo' ? { expected_version: 0 } : { move, expected_version: 0 }, label, at: '' });

// Deal 1 and 2 as results, deal 2 then corrected (its result re-entered, then the correction
// entry) while deal 3 is under way: two nominations before the correction, one after.
function corrected() {
  return [
    result(1, 1),
    result(2, 2, { superseded_by: 6 }),
    nominate(3, 1, 1),
    nominate(4, 2, 0),
    result(5, 2, { part_of: 6 }),
    { seq: 6, entry: 'correction', move: { deal: 2, moves: [{ kind: 'result' }], reason: 'Bob had 1' }, events: [] },
    nominate(7, 3, 1),
  ];
}

test("the deal being recorded lists only its own moves, not a correction's re-entered ones", () => {
  const log = corrected();
  assert.deepEqual(entriesOfDeal(log, 3, DEALS).map((e) => e.seq), [3, 4, 7]);
  assert.deepEqual(entriesOfDeal(log, 2, DEALS).map((e) => e.seq), [2]);
});

test('undo voids the latest entry in force: a correction whole, then what came before it', () => {
  const log = corrected();
  assert.equal(undoTarget(log).seq, 7);
  log.push({ seq: 8, entry: 'void', voids: 7, move: log[6].move, events: [] });
  log[6].voided_by = 8;
  assert.equal(undoTarget(log).entry, 'correction', 'the correction, not its re-entered result');
  log.push({ seq: 9, entry: 'void', voids: 6, move: log[5].move, events: [] });
  log[5].voided_by = 9;
  assert.equal(undoTarget(log).seq, 4, 'its moves went with it; the deal 2 it superseded is in force again');
});

test("finishing the deal in hand as a result sets aside its entries, queued ones first, the latest first", () => {
  const log = [result(1, 1), nominate(2, 1, 1), nominate(3, 2, 0)];
  const items = [queued('moves', '7♦ for Bob')];
  assert.deepEqual(setAside(log, items, 2, DEALS, words), ['undo of 7♦ for Bob', 'undo of nominate 3', 'undo of nominate 2']);
  // A queued undo voids the latest: the queued card, then a stored nomination.
  assert.deepEqual(setAside(log, [...items, queued('undo', 'u1')], 2, DEALS, words), ['undo of nominate 3', 'undo of nominate 2']);
  assert.deepEqual(setAside(log, [queued('undo', 'u1')], 2, DEALS, words), ['undo of nominate 2']);
  assert.deepEqual(setAside(log, [], 2, DEALS, words), ['undo of nominate 3', 'undo of nominate 2']);
  assert.equal(setAside(log, [queued('moves', 'r', { kind: 'result' })], 2, DEALS, words), null, 'a result queued: the next deal is in hand');
  // A correction made since the deal began: undo would void it first.
  assert.equal(setAside(corrected(), [], 3, DEALS, words), null);
  // Nothing of the deal yet: nothing to set aside, the deal before stays.
  assert.deepEqual(setAside([result(1, 1)], [], 2, DEALS, words), []);
});

test('offline, the deal in hand is offered as a result from the form seen as it began', () => {
  const table = {
    id: 't', game: 'nomination-whist', players: ['Ann', 'Bob', 'Cat', 'Dan'], version: 5, finished: false,
    options: { hand_sizes: [2, 1] },
    state: { deal: 1, deals_in_game: 2, dealer: 0, hand_size: 2, trumps: 'hearts', turn_up: '7H', phase: 'playing', to_act: 2,
      current_trick: { number: 1, plays: [{ seat: 1, card: '7D' }] }, played: ['7D'], legal_moves: [{ kind: 'play', seat: 2, cards: ['8D'] }] },
  };
  const legal = { kind: 'result', hand_size: 2, turn_up_required: true };
  const view = dealInHandView(table, { deal: 1, legal });
  assert.deepEqual(view.legal_moves, [legal]);
  assert.equal(view.current_trick, null);
  assert.deepEqual(view.played, []);
  assert.equal(view.trumps, null, 'the turn-up is set aside with the rest: entered again on the form');
  const later = dealInHandView({ ...table, state: { ...table.state, deal: 2 } }, { deal: 1, legal });
  assert.deepEqual(later.legal_moves, [{ kind: 'result', hand_size: 1, turn_up_required: false }]);
  assert.equal(dealInHandView(table, null), null, 'never seen: the page cannot tell');
  assert.equal(dealInHandView(table, { deal: 2, legal }), null);
});
