// The deal in hand card by card offline (page/app/tricks.js): the service's trick plan read as
// the games themselves play, on vectors the rules crate writes from simulated deals
// (vectors/tricks.json, `rules::games::trick_plans`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { planStands, playOn, seatAfter, trickWinner } from '../page/app/tricks.js';

const vectors = JSON.parse(readFileSync(new URL('./vectors/tricks.json', import.meta.url), 'utf8'));

test('every trick of the vectors is won as the game won it, each card by the seat after the last', () => {
  assert.deepEqual(vectors.map((v) => v.game), ['nomination_whist', 'dividend', 'tridge']);
  for (const { game, plan, tricks } of vectors) {
    assert.ok(tricks.length >= 3, game);
    let leader = null;
    for (const { plays, winner } of tricks) {
      if (leader != null) assert.equal(plays[0].seat, leader, `${game}: the last winner leads`);
      for (let i = 1; i < plays.length; i += 1) assert.equal(seatAfter(plan, plays[i - 1].seat), plays[i].seat, game);
      assert.equal(trickWinner(plan, plays), winner, `${game}: ${JSON.stringify(plays)}`);
      leader = winner;
    }
  }
});

/// The view the server gives at a trick's start: the leader to play, any card not yet seen.
function startOf(plan, leader, played = []) {
  return {
    deal: plan.deal,
    to_act: leader,
    current_trick: { number: 1, leader, plays: [] },
    tricks_won: plan.seats.map(() => 0).concat([0, 0]).slice(0, Math.max(...plan.seats) + 1),
    legal_moves: [{ kind: 'play', seat: leader, trick: 1, cards: plan.cards.map((c) => c.card).filter((c) => !played.includes(c)) }, 'count_stock'],
  };
}

const queued = (plays) => plays.map((p, n) => ({ key: `k${n}`, path: 'moves', label: p.card, at: '', body: { move: { kind: 'play', ...p }, deal: 1, expected_version: 10 + n } }));

test('the queued cards of a deal are followed trick by trick to the next seat, the winner leading', () => {
  for (const { game, plan, tricks } of vectors) {
    const first = tricks[0].plays;
    const all = tricks.slice(0, 2).flatMap((t) => t.plays);
    // One trick and a card of the next: the next seat is the one after, the winner led.
    const on = playOn(startOf(plan, first[0].seat), plan, queued([...first, tricks[1].plays[0]]));
    assert.ok(on, game);
    assert.equal(on.over, false);
    assert.equal(on.view.current_trick.number, 2, game);
    assert.equal(on.view.current_trick.leader, tricks[0].winner, game);
    assert.deepEqual(on.view.current_trick.plays, [tricks[1].plays[0]], game);
    assert.equal(on.view.to_act, tricks[1].plays[1].seat, game);
    const offered = on.view.legal_moves;
    assert.equal(offered.length, 1, `${game}: only the card is open once a card is queued`);
    assert.equal(offered[0].seat, tricks[1].plays[1].seat);
    for (const p of [...first, tricks[1].plays[0]]) assert.ok(!offered[0].cards.includes(p.card), `${game}: ${p.card} played`);
    assert.equal(on.view.tricks_won[tricks[0].winner], 1, game);
    // Two whole tricks: the last one is shown won.
    const two = playOn(startOf(plan, first[0].seat), plan, queued(all));
    assert.deepEqual(two.won, { number: 2, winner: tricks[1].winner, plays: tricks[1].plays }, game);
  }
});

test('a whole deal of queued cards ends it; a pause, another seat, a card seen or another entry stops the page', () => {
  const { plan, tricks } = vectors[0];
  const all = tricks.flatMap((t) => t.plays);
  assert.equal(tricks.length, plan.tricks, 'the vector holds the whole deal');
  const done = playOn(startOf(plan, all[0].seat), plan, queued(all));
  assert.equal(done.over, true);
  assert.equal(done.won.winner, tricks[tricks.length - 1].winner);
  // A card for a seat not due, a card already queued, an undo, a result: the server must answer.
  assert.equal(playOn(startOf(plan, all[0].seat), plan, queued([all[1]])), null);
  assert.equal(playOn(startOf(plan, all[0].seat), plan, queued([all[0], { seat: all[1].seat, card: all[0].card }])), null);
  assert.equal(playOn(startOf(plan, all[0].seat), plan, [{ key: 'u', path: 'undo', label: 'undo', at: '', body: { expected_version: 3 } }]), null);
  assert.equal(playOn(startOf(plan, all[0].seat), plan, queued([{ seat: all[0].seat, card: 'QS' }]).map((i) => ({ ...i, body: { ...i.body, move: { kind: 'result' } } }))), null);
  // After a trick where the game may ask something else (Tridge's stop after five), it waits.
  const paused = { ...plan, pause_after: [1] };
  assert.equal(playOn(startOf(plan, all[0].seat), paused, queued(tricks[0].plays)), null);
  assert.ok(playOn(startOf(plan, all[0].seat), paused, queued(tricks[0].plays.slice(0, 2))));
  // No play open (a nomination to make): nothing to follow.
  assert.equal(playOn({ ...startOf(plan, 0), legal_moves: [{ kind: 'nominate', seat: 0, tricks: [0, 1] }] }, plan, queued([all[0]])), null);
});

test('a kept plan stands for its deal until something is undone after it was read', () => {
  const kept = { version: 7, deal: 3, plan: vectors[0].plan };
  const log = [{ seq: 6, entry: 'void' }, { seq: 7, entry: 'move' }, { seq: 8, entry: 'move' }];
  assert.equal(planStands(kept, 3, log), true);
  assert.equal(planStands(kept, 4, log), false, 'another deal');
  assert.equal(planStands(kept, 3, [...log, { seq: 9, entry: 'void' }]), false, 'an undo since');
  assert.equal(planStands(null, 3, log), false);
});
