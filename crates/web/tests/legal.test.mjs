// What may be tapped now (page/app/legal.js): the server's legal moves read as they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { concrete, DEALS, dealOf, kinds, openTo, playableCards, seatsFor, seenThisDeal, turnUpCards } from '../page/app/legal.js';
import { DECK52 } from '../page/app/cards.js';
import * as trickyDick from '../page/app/games/tricky-dick.js';

const view = {
  deal: 2,
  legal_moves: [
    { kind: 'play', seat: 1, trick: 3, cards: ['QS', 'KS'] },
    { kind: 'nominate', seat: 2, tricks: [0, 1, 3] },
    { kind: 'pass', seats: [0, 3] },
    { kind: 'pass', seat: 2 },
    'stop',
  ],
};

test('the kinds accepted next, whether named or concrete', () => {
  assert.deepEqual([...kinds(view)], ['play', 'nominate', 'pass', 'stop']);
  assert.deepEqual([...kinds({})], []);
});

test("a kind's concrete moves, and none for a kind only named", () => {
  assert.equal(concrete(view, 'pass').length, 2);
  assert.equal(concrete(view, 'stop'), null);
  assert.equal(concrete(view, 'bid'), null);
});

test('the seats a kind is open to, from `seat` and `seats`, once each', () => {
  assert.deepEqual(seatsFor(view, 'pass').sort(), [0, 2, 3]);
  assert.deepEqual(seatsFor(view, 'bid'), []);
});

test("a seat's move of a kind", () => {
  assert.deepEqual(openTo(view, 'nominate', 2).tricks, [0, 1, 3]);
  assert.equal(openTo(view, 'nominate', 1), null);
  assert.equal(openTo(view, 'pass', 3).seats.length, 2);
  assert.equal(openTo(view, 'play').seat, 1, 'the first, without a seat');
});

test('only the cards the server lists may be played', () => {
  assert.deepEqual([...playableCards(DECK52, view, [])], ['QS', 'KS']);
});

test('without a list: a live run allows its next card; otherwise every card not seen this deal', () => {
  const bare = { legal_moves: ['play'], played: ['2C'], current_trick: { number: 1, plays: [{ seat: 0, card: '3C' }] } };
  assert.deepEqual([...playableCards(DECK52, bare, [], '9D')], ['9D']);
  const open = playableCards(DECK52, bare, []);
  assert.equal(open.size, 50);
  assert.ok(!open.has('2C') && !open.has('3C'));
  assert.equal(playableCards(DECK52, { legal_moves: ['nominate'] }, []).size, 0, 'no play open, no card');
});

test("the cards seen this deal: the log's cards since the deal started, undone entries left out", () => {
  const log = [
    { entry: 'move', events: [{ event: 'card_played', card: 'AS' }] },
    { entry: 'move', events: [{ event: 'deal_started', deal: 2 }] },
    { entry: 'move', events: [{ event: 'card_played', card: 'KH' }] },
    { entry: 'move', voided_by: 9, events: [{ event: 'card_played', card: 'QH' }] },
    { entry: 'move', events: [{ event: 'trumps_turned_up', card: 'JD' }] },
  ];
  assert.deepEqual([...seenThisDeal({}, log)].sort(), ['KH']);
  assert.ok(turnUpCards(DECK52, {}, log).has('JD'), 'the turned-up card may still be played');
  assert.ok(!turnUpCards(DECK52, {}, log).has('KH'));
});

test("the deal being recorded, in the game's numbering", () => {
  assert.equal(dealOf(view), 2);
  assert.equal(dealOf({ hand: 3 }), undefined, 'a hand is no deal to a game that numbers deals');
  assert.equal(dealOf({ hand: 3 }, trickyDick), 3);
  assert.equal(DEALS.word, 'Deal');
  assert.equal(trickyDick.numbering.word, 'Hand');
});
