// The round's clock and a round's tables in words and numbers (page/app/clock.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { boardTournament, clockText, clockWords, currentRound, dealsDone, formatWords, nextRoundWords, remainingMs, seatedByResults, stillPlaying, topPlaces, totalText } from '../page/app/clock.js';

const start = '2026-12-06T20:00:00Z';
const at = (iso) => Date.parse(iso);

test('the clock counts minutes_per_round down from the round\'s start', () => {
  assert.equal(remainingMs(start, 20, at('2026-12-06T20:00:00Z')), 20 * 60_000);
  assert.equal(remainingMs(start, 20, at('2026-12-06T20:07:30Z')), 12.5 * 60_000);
  assert.equal(remainingMs(start, 20, at('2026-12-06T20:21:00Z')), -60_000);
});

test('without minutes_per_round, or a start, there is no clock', () => {
  assert.equal(remainingMs(start, null, Date.now()), null);
  assert.equal(remainingMs(start, 0, Date.now()), null);
  assert.equal(remainingMs(null, 20, Date.now()), null);
  assert.equal(remainingMs('not a time', 20, Date.now()), null);
});

test('the face reads 20:00 at the start, whole seconds rounded up, and 0:00 only at the end', () => {
  assert.equal(clockText(20 * 60_000), '20:00');
  assert.equal(clockText(20 * 60_000 - 1), '20:00');
  assert.equal(clockText(12.5 * 60_000), '12:30');
  assert.equal(clockText(9_001), '0:10');
  assert.equal(clockText(1), '0:01');
  assert.equal(clockText(0), '0:00');
  assert.equal(clockText(-999), '0:00');
  assert.equal(clockText(65 * 60_000), '1:05:00');
});

test('time played over is shown with a plus', () => {
  assert.equal(clockText(-130_000), '+2:10');
  assert.equal(clockText(-3_600_000), '+1:00:00');
});

test('the clock in words', () => {
  assert.equal(clockWords(12.5 * 60_000), '13 minutes left');
  assert.equal(clockWords(30_000), 'less than a minute left');
  assert.equal(clockWords(0), 'time is up');
  assert.equal(clockWords(-5_000), 'time is up');
});

test('a table has finished the deals before the one it is on, or all of them when over', () => {
  const playing = { finished: false, state: { phase: 'playing' } };
  assert.equal(dealsDone(playing, 1), 0);
  assert.equal(dealsDone(playing, 3), 2);
  assert.equal(dealsDone(playing, null), 0);
  assert.equal(dealsDone({ finished: true, state: {} }, 2, 2), 2);
  assert.equal(dealsDone({ finished: false, state: { phase: 'finished' } }, 4), 4);
});

test('a table still plays until its game is over or it has played the round\'s deals', () => {
  const on = (deal) => [{ finished: false, state: { phase: 'playing' } }, deal];
  assert.equal(stillPlaying(...on(1), 1), true);
  assert.equal(stillPlaying(...on(2), 1), false, 'one deal done of one');
  assert.equal(stillPlaying(...on(2), 2), true);
  assert.equal(stillPlaying(...on(9), null), true, 'by the clock alone: until the game is over');
  assert.equal(stillPlaying({ finished: true, state: {} }, 1, null), false);
});

test('the round shown is the open one, else the last started', () => {
  const r = (round, closed) => ({ round, started_at: start, closed_at: closed ? start : null, tables: [] });
  assert.equal(currentRound([]), null);
  assert.equal(currentRound([r(1, true), r(2, false)]).round, 2);
  assert.equal(currentRound([r(1, true), r(2, true)]).round, 2);
});

test('formats in words', () => {
  assert.equal(formatWords({ kind: 'progressive', move: 'winner' }), 'Progressive (winner moves up)');
  assert.equal(formatWords({ kind: 'rotation' }), 'Rotation (all meet all)');
  assert.equal(formatWords({ kind: 'fixed' }), 'Fixed tables');
});

test('the board shows the newest tournament with an open round, else the newest started', () => {
  const r = (closed) => ({ round: 1, started_at: start, closed_at: closed ? start : null, tables: [] });
  const a = { id: 'a', played_rounds: [r(false)] };
  const b = { id: 'b', played_rounds: [r(true)] };
  const c = { id: 'c', played_rounds: [] };
  assert.equal(boardTournament([a, b, c]).id, 'a');
  assert.equal(boardTournament([b, c]).id, 'b');
  assert.equal(boardTournament([c]), null);
});

test('while a round plays, the board says the next follows its results only for a format seated by them', () => {
  const drive = { format: { kind: 'progressive', move: 'winner' }, rounds: 3 };
  assert.equal(nextRoundWords(drive, { round: 1, closed_at: null }), "Round 2 is seated from this round's results");
  assert.equal(nextRoundWords({ ...drive, format: { kind: 'swiss' } }, { round: 2 }), "Round 3 is seated from this round's results");
  assert.equal(nextRoundWords(drive, { round: 3, closed_at: null }), null, 'no round after the last');
  assert.equal(nextRoundWords(drive, { round: 1, closed_at: '2026-12-06T20:30:00Z' }), null, 'closed: the board shows the tables');
  assert.equal(nextRoundWords(drive, null), null);
  assert.equal(nextRoundWords({ ...drive, format: { kind: 'rotation' } }, { round: 1 }), null);
  assert.equal(nextRoundWords({ ...drive, format: { kind: 'fixed' } }, { round: 1 }), null);
  assert.ok(seatedByResults({ kind: 'swiss' }) && !seatedByResults({ kind: 'rotation' }));
});

test('a total reads as a whole number, a decimal that ends, else a fraction', () => {
  assert.equal(totalText({ numer: 12, denom: 1 }), '12');
  assert.equal(totalText({ numer: 5, denom: 2 }), '2.5');
  assert.equal(totalText({ numer: -7, denom: 4 }), '-1.75');
  assert.equal(totalText({ numer: 10, denom: 3 }), '10/3');
});

test('the top places keep ties at the last place shown, up to a number of lines', () => {
  const standings = [1, 2, 2, 4, 5, 5, 5, 8].map((place, i) => ({ place, name: `P${i}` }));
  assert.deepEqual(topPlaces(standings, 2, 12).top.map((s) => s.name), ['P0', 'P1', 'P2']);
  assert.equal(topPlaces(standings, 2, 12).more, 5);
  assert.deepEqual(topPlaces(standings, 5, 12).top.length, 7);
  assert.deepEqual(topPlaces(standings, 5, 4), { top: standings.slice(0, 4), more: 4 });
  assert.deepEqual(topPlaces([], 10, 12), { top: [], more: 0 });
});
