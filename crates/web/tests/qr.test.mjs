// A join code handed out again (page/app/qr.js): a round's scorer codes show the code a table
// has while it still opens the table for a while, else a new one is made.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { REUSE_FOR_MS, reusableCode } from '../page/app/qr.js';

const now = Date.parse('2026-12-06T20:00:00Z');
const code = (name, active, expires) => ({ code: name, active, expires_at: new Date(now + expires).toISOString() });

test('the newest code that still opens the table for an hour is handed out again', () => {
  const issued = [code('NEWEST', true, 11 * 3_600_000), code('OLDER', true, 10 * 3_600_000)];
  assert.equal(reusableCode(issued, now)?.code, 'NEWEST');
});

test('a withdrawn code, an expired one, or one about to expire is not; then none is', () => {
  assert.equal(reusableCode([code('GONE', false, 11 * 3_600_000), code('KEPT', true, 2 * 3_600_000)], now)?.code, 'KEPT');
  assert.equal(reusableCode([code('SOON', true, REUSE_FOR_MS - 1), code('PAST', false, -1)], now), null);
  assert.equal(reusableCode([code('JUST', true, REUSE_FOR_MS)], now)?.code, 'JUST');
  assert.equal(reusableCode([], now), null);
});
