// The phone's outbox (page/app/queue.js) driven without a browser: a storage and a sender given
// to it, the server's answers scripted.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Refusal, Unreachable } from '../page/app/api.js';
import { MoveQueue, nextDealView, resentAfterConflict } from '../page/app/queue.js';
import { numbering as hands } from '../page/app/games/tricky-dick.js';

/** A Storage as localStorage is one. */
function memoryStorage(initial = {}) {
  const data = new Map(Object.entries(initial));
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => { data.set(k, String(v)); },
    data,
  };
}

/** A queue whose server answers from `answers` in turn (a value, or an error thrown). */
function queueWith(answers, handlers = {}, storage = memoryStorage()) {
  const sent = [];
  const post = async (item) => {
    sent.push(structuredClone(item));
    const next = answers.shift();
    if (next instanceof Error) throw next;
    return next ?? { ok: true };
  };
  const queue = new MoveQueue('t1', handlers, { storage, post, events: null });
  return { queue, sent, storage };
}

const play = (card, seat = 0) => ({ move: { kind: 'play', seat, card }, deal: 1 });
const conflict = () => new Refusal(409, { code: 'version_conflict', detail: 'the table has moved on' });

test('entries are sent in order, each expecting the version the ones before it make', async () => {
  const { queue, sent } = queueWith([new Unreachable('no signal')]);
  queue.add('moves', play('7D'), '7♦ for Ann', 10);
  queue.add('moves', play('8D', 1), '8♦ for Bob', 10);
  queue.add('undo', {}, 'undo of 8♦ for Bob', 10);
  await queue.flush();
  queue.close();

  assert.deepEqual(queue.items.map((i) => i.body.expected_version), [10, 11, 12]);
  assert.deepEqual(queue.items.map((i) => i.path), ['moves', 'moves', 'undo']);
  assert.equal(new Set(queue.items.map((i) => i.key)).size, 3, 'every entry has a key of its own');
  assert.equal(sent.length, 1, 'nothing is sent past an entry that got no answer');
});

test('an entry that got no answer is kept, in storage too, and the queue says offline', async () => {
  const changed = [];
  const { queue, storage } = queueWith([new Unreachable('timed out')], { changed: () => changed.push(queue.offline) });
  const item = queue.add('moves', play('QS'), 'Q♠ for Ann', 3);
  await queue.flush();
  queue.close();

  assert.equal(queue.offline, true);
  assert.equal(queue.pending, 1);
  assert.equal(queue.blocked, null, 'no answer is not a refusal');
  const kept = JSON.parse(storage.getItem('tk.queue.t1'));
  assert.deepEqual(kept.map((i) => i.key), [item.key]);
  assert.ok(changed.includes(true), 'the page is told it is offline');
});

test('a queue opened again (a reload) finds its entries and sends them under the same keys', async () => {
  const first = queueWith([new Unreachable('no signal')]);
  const a = first.queue.add('moves', play('2C'), '2♣ for Ann', 0);
  await first.queue.flush();
  first.queue.close();

  const answered = [];
  const second = queueWith([{ n: 1 }], { answered: (item, body) => answered.push([item.key, body.n]) }, first.storage);
  assert.equal(second.queue.pending, 1);
  await second.queue.flush();
  second.queue.close();

  assert.deepEqual(second.sent.map((i) => i.key), [a.key], 'a retry goes with the key it was made with');
  assert.deepEqual(answered, [[a.key, 1]]);
  assert.equal(second.queue.pending, 0);
  assert.deepEqual(JSON.parse(second.storage.getItem('tk.queue.t1')), []);
});

test('a refused entry stops the queue: it stays first, the later ones wait, nothing is lost', async () => {
  const refusals = [];
  const { queue, sent } = queueWith([new Refusal(422, { code: 'card_already_played', detail: 'the 7♦ was played already' })],
    { refused: (item, err, kept) => refusals.push([item.label, err.message, kept.map((k) => k.label)]) });
  queue.items.push(...['7♦', '8♦', '9♦'].map((c, n) => ({ key: `k${n}`, path: 'moves', body: { expected_version: 5 + n }, label: c, at: '' })));
  await queue.flush();
  queue.close();

  assert.equal(sent.length, 1);
  assert.deepEqual(queue.items.map((i) => i.label), ['7♦', '8♦', '9♦']);
  assert.deepEqual(queue.blocked, { key: 'k0', message: 'the 7♦ was played already', code: 'card_already_played' });
  assert.deepEqual(refusals, [['7♦', 'the 7♦ was played already', ['8♦', '9♦']]]);
});

test('what is entered while the first entry stands refused takes its place and its version', async () => {
  const { queue, sent } = queueWith([new Refusal(422, { code: 'illegal', detail: 'no' }), new Unreachable('x')]);
  queue.items.push({ key: 'k0', path: 'moves', body: { expected_version: 7 }, label: 'bad', at: '' },
    { key: 'k1', path: 'moves', body: { expected_version: 8 }, label: 'later', at: '' });
  await queue.flush();
  const fix = queue.add('moves', play('AS'), 'A♠ for Ann', 99);
  await queue.flush();
  queue.close();

  assert.deepEqual(queue.items.map((i) => i.label), ['A♠ for Ann', 'later']);
  assert.equal(fix.body.expected_version, 7, 'the fix expects the version the refused entry did');
  assert.notEqual(fix.key, 'k0', 'the fix is a new request');
  assert.equal(queue.blocked, null);
  assert.equal(sent[sent.length - 1].key, fix.key, 'the fix is sent next');
});

test('discarding the refused entry sends the rest, each expecting one version less', async () => {
  const { queue, sent } = queueWith([new Refusal(422, { detail: 'no' }), { ok: 1 }, { ok: 2 }]);
  queue.items.push(...[0, 1, 2].map((n) => ({ key: `k${n}`, path: 'moves', body: { expected_version: 4 + n }, label: `e${n}`, at: '' })));
  await queue.flush();
  const gone = queue.discardBlocked();
  await new Promise((r) => setTimeout(r, 0));
  await queue.flush();
  queue.close();

  assert.equal(gone.key, 'k0');
  assert.deepEqual(sent.map((i) => [i.key, i.body.expected_version]), [['k0', 4], ['k1', 4], ['k2', 5]]);
  assert.equal(queue.pending, 0);
});

test('a conflicting card stops the queue with what the other phone recorded, rebased on the new version', async () => {
  const { queue } = queueWith([conflict()], { conflict: async () => ({ version: 20, deal: 2, words: "Bob's phone recorded 7♦ for Cat." }) });
  queue.items.push({ key: 'k0', path: 'moves', body: { move: { kind: 'play', card: '7D' }, deal: 2, expected_version: 12 }, label: '7♦ for Cat', at: '' },
    { key: 'k1', path: 'moves', body: { move: { kind: 'play', card: '8D' }, deal: 2, expected_version: 13 }, label: '8♦', at: '' });
  await queue.flush();
  queue.close();

  assert.equal(queue.blocked?.message, "Bob's phone recorded 7♦ for Cat.");
  assert.equal(queue.blocked?.code, 'version_conflict');
  assert.deepEqual(queue.items.map((i) => i.body.expected_version), [20, 21]);
  assert.equal(queue.items[0].key, 'k0', 'a card is never re-sent by itself');
  assert.equal(queue.blocked?.since, 12, 'the version it was made against is kept: what came after beat it');
});

test('a conflicting entry dealt with by an undo of the other phone\'s entry and then itself: both take its place, the rest follow on', async () => {
  const { queue, sent } = queueWith([conflict(), new Unreachable('no signal')], { conflict: async () => ({ version: 20, deal: 2, words: '' }) });
  queue.items.push({ key: 'k0', path: 'moves', body: { move: { kind: 'play', seat: 1, card: '7D' }, deal: 2, expected_version: 19 }, label: '7♦ for Bob', at: '' },
    { key: 'k1', path: 'moves', body: { move: { kind: 'play', seat: 2, card: '8D' }, deal: 2, expected_version: 20 }, label: '8♦ for Cat', at: '' });
  await queue.flush();
  const [refused] = queue.items;
  const made = queue.resolveBlocked([{ path: 'undo', body: {}, label: 'undo of 9♦ for Bob' }, refused], 20);
  await queue.flush();
  queue.close();

  assert.equal(queue.blocked, null);
  assert.deepEqual(queue.items.map((i) => [i.path, i.label, i.body.expected_version]),
    [['undo', 'undo of 9♦ for Bob', 20], ['moves', '7♦ for Bob', 21], ['moves', '8♦ for Cat', 22]]);
  assert.deepEqual(queue.items[1].body.move, { kind: 'play', seat: 1, card: '7D' });
  assert.ok(made.every((i) => i.key !== 'k0'), 'fresh keys: the refused request is not the one to answer again');
  assert.equal(sent.at(-1).path, 'undo', 'the undo goes first');
});

test('a conflicting entry entered again goes under a fresh key, expecting the table as it is now', async () => {
  const { queue, sent } = queueWith([conflict(), { stored: true }], { conflict: async () => ({ version: 20, deal: 2, words: '' }) });
  queue.items.push({ key: 'k0', path: 'moves', body: { move: { kind: 'play', seat: 1, card: '7D' }, deal: 2, expected_version: 18 }, label: '7♦ for Bob', at: '' });
  await queue.flush();
  queue.resolveBlocked([queue.items[0]], 21);
  await queue.flush();
  queue.close();

  assert.equal(queue.pending, 0);
  assert.equal(sent[1].body.expected_version, 21);
  assert.notEqual(sent[1].key, 'k0');
  assert.deepEqual(sent[1].body.move, { kind: 'play', seat: 1, card: '7D' });
});

test("a conflicting result for the deal the table still waits for is sent again under a fresh key", async () => {
  const { queue, sent } = queueWith([conflict(), { stored: true }], { conflict: async () => ({ version: 30, deal: 4, words: '' }) });
  queue.items.push({ key: 'k0', path: 'moves', body: { move: { kind: 'result' }, deal: 4, expected_version: 28 }, label: 'Result of deal 4', at: '' });
  await queue.flush();
  queue.close();

  assert.equal(sent.length, 2);
  assert.notEqual(sent[1].key, 'k0');
  assert.equal(sent[1].body.expected_version, 30);
  assert.equal(queue.pending, 0);
  assert.equal(queue.blocked, null);
});

test('only a result for the deal the server waits for is re-sent after a conflict', () => {
  const result = { key: 'k', path: 'moves', body: { move: { kind: 'result' }, deal: 3, expected_version: 1 }, label: '', at: '' };
  assert.equal(resentAfterConflict(result, 3), true);
  assert.equal(resentAfterConflict(result, '3'), true);
  assert.equal(resentAfterConflict(result, 4), false, 'another deal: the server would refuse it');
  assert.equal(resentAfterConflict(result, null), false, 'the table could not be read again');
  assert.equal(resentAfterConflict({ ...result, body: { ...result.body, move: { kind: 'play' } } }, 3), false);
  assert.equal(resentAfterConflict({ ...result, path: 'undo' }, 3), false);
});

test('after a queued result the next deal is offered as a result, its hand size from the options', () => {
  const table = {
    id: 't', game: 'nomination-whist', players: ['Ann', 'Bob', 'Cat'], version: 5, finished: false,
    options: { hand_sizes: [7, 6, 5] },
    state: { deal: 1, deals_in_game: 3, dealer: 2, hand_size: 7, trumps: 'hearts', phase: 'result',
      legal_moves: [{ kind: 'result', hand_size: 7, turn_up_required: true }] },
  };
  const items = [{ key: 'k', path: 'moves', body: { move: { kind: 'result' }, deal: 1, expected_version: 5 }, label: '', at: '' }];
  const next = nextDealView(table, items);

  assert.equal(next.deal, 2);
  assert.equal(next.dealer, 0, 'the deal passes to the left');
  assert.equal(next.hand_size, 6);
  assert.equal(next.trumps, null);
  assert.deepEqual(next.legal_moves, [{ kind: 'result', hand_size: 6, turn_up_required: false }]);
  assert.equal(nextDealView(table, [{ ...items[0], body: { move: { kind: 'play' }, deal: 1 } }]), null, 'a card needs the server');
  assert.deepEqual(nextDealView(table, [{ ...items[0], body: { ...items[0].body, deal: 3 } }]).legal_moves, [], 'the last deal ends the game');
});

test("a game that numbers hands gets its next hand, not a deal", () => {
  const table = {
    id: 't', game: 'tricky-dick', players: ['A', 'B', 'C', 'D'], version: 9, finished: false, options: {},
    state: { hand: 1, hands_in_game: 2, dealer: 3, legal_moves: [{ kind: 'result' }] },
  };
  const items = [{ key: 'k', path: 'moves', body: { move: { kind: 'result' }, deal: 1, expected_version: 9 }, label: '', at: '' }];
  const next = nextDealView(table, items, hands);

  assert.equal(next.hand, 2);
  assert.equal(next.deal, undefined);
  assert.equal(next.dealer, 0);
});

test('the last entry, never sent, is taken back; one on its way is not', async () => {
  const { queue, sent } = queueWith(Array.from({ length: 10 }, () => new Unreachable('no signal')));
  queue.add('moves', play('7D'), '7♦ for Ann', 10);
  queue.add('moves', play('8D', 1), '8♦ for Bob', 10);
  queue.add('moves', play('9D', 2), '9♦ for Cat', 10);
  await queue.flush();
  assert.equal(queue.canTakeBack, true);
  assert.equal(queue.takeBack()?.label, '9♦ for Cat');
  assert.deepEqual(queue.items.map((i) => [i.label, i.body.expected_version]), [['7♦ for Ann', 10], ['8♦ for Bob', 11]]);
  // The next entry takes the version the taken-back one would have made.
  queue.add('moves', play('10D', 2), '10♦ for Cat', 10);
  assert.equal(queue.items[2].body.expected_version, 12);
  assert.ok(sent.every((i) => i.label === '7♦ for Ann'), 'only the first was tried: nothing taken back was sent');
  // While a try sends the lone first entry, it stays.
  queue.items.splice(1);
  queue.sending = true;
  assert.equal(queue.canTakeBack, false);
  assert.equal(queue.takeBack(), undefined);
  assert.equal(queue.items.length, 1);
  queue.close();
});

test('a queue closed while a try is on its way tries nothing more: its entries wait in storage', async () => {
  const tries = [];
  const storage = memoryStorage();
  const post = (item) => new Promise((resolve, reject) => { tries.push({ label: item.label, resolve, reject }); });
  const labels = () => tries.map((t) => t.label);
  const kept = () => JSON.parse(storage.getItem('tk.queue.t1')).map((i) => i.label);
  const tick = () => new Promise((r) => setTimeout(r, 0));
  const queue = new MoveQueue('t1', {}, { storage, post, events: null });
  queue.add('moves', play('7D'), '7♦ for Ann', 10);
  queue.add('moves', play('8D', 1), '8♦ for Bob', 10);
  await tick();
  assert.deepEqual(labels(), ['7♦ for Ann']);
  // The page leaves the table; the try on its way gets no answer.
  queue.close();
  tries[0].reject(new Unreachable('no signal'));
  await tick();
  await queue.flush();
  assert.deepEqual(labels(), ['7♦ for Ann'], 'no retry is scheduled, no later entry sent');
  assert.deepEqual(kept(), ['7♦ for Ann', '8♦ for Bob']);

  // The table opened again sends what waits; closed while that try is on its way, its answer
  // still takes the entry off, and the next is left for the table's next opening.
  const again = new MoveQueue('t1', {}, { storage, post, events: null });
  again.flush();
  await tick();
  assert.deepEqual(labels(), ['7♦ for Ann', '7♦ for Ann']);
  again.close();
  tries[1].resolve({ ok: true });
  await tick();
  assert.deepEqual(labels(), ['7♦ for Ann', '7♦ for Ann'], 'a closed queue sends nothing after its answer');
  assert.deepEqual(kept(), ['8♦ for Bob']);
});
