// The phone's consistency check and cosignature lines (page/app/merkle.js), against vectors the
// service's own tree and cosignature code made (vectors/witness.json, kept current by the test
// `witness::tests::the_phone_pages_vectors_are_what_the_tree_code_makes`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  cosignatureLine, cosignedMessage, fromBase64, readCheckpoint, verifyConsistency,
} from '../page/app/merkle.js';

const vectors = JSON.parse(readFileSync(new URL('./vectors/witness.json', import.meta.url), 'utf8'));
const bytes = (b64) => fromBase64(b64);

test('every consistency proof the service makes for trees of up to 12 entries verifies', async () => {
  assert.equal(vectors.consistency.length, 78);
  for (const v of vectors.consistency) {
    const ok = await verifyConsistency(v.from, v.to, bytes(v.from_root), bytes(v.to_root), v.proof.map(bytes));
    assert.equal(ok, true, `${v.from} → ${v.to}`);
  }
});

test('a proof joined to another tree, with a hash changed, cut short or lengthened does not verify', async () => {
  const proper = vectors.consistency.filter((v) => v.from < v.to);
  const flipped = (/** @type {Uint8Array} */ h) => { const c = h.slice(); c[31] ^= 1; return c; };
  for (const v of proper) {
    const [from, to, proof] = [bytes(v.from_root), bytes(v.to_root), v.proof.map(bytes)];
    const name = `${v.from} → ${v.to}`;
    // A rewritten history: the kept root is not the start of the tree shown now.
    assert.equal(await verifyConsistency(v.from, v.to, flipped(from), to, proof), false, `${name}: another first root`);
    assert.equal(await verifyConsistency(v.from, v.to, from, flipped(to), proof), false, `${name}: another second root`);
    for (let i = 0; i < proof.length; i += 1) {
      const changed = proof.map((h) => h.slice());
      changed[i][0] ^= 1;
      assert.equal(await verifyConsistency(v.from, v.to, from, to, changed), false, `${name}: hash ${i} changed`);
    }
    if (proof.length > 0) {
      assert.equal(await verifyConsistency(v.from, v.to, from, to, proof.slice(0, -1)), false, `${name}: cut short`);
    }
    assert.equal(await verifyConsistency(v.from, v.to, from, to, [...proof, proof[0] ?? from]), false, `${name}: lengthened`);
  }
  // A tree does not shrink; equal sizes need equal roots and no proof.
  const five = vectors.consistency.find((v) => v.from === 5 && v.to === 9);
  assert.equal(await verifyConsistency(9, 5, bytes(five.to_root), bytes(five.from_root), []), false);
  assert.equal(await verifyConsistency(5, 5, bytes(five.from_root), bytes(five.to_root), []), false);
});

test("the cosigned message and line are the service's, and the signature verifies over them", async () => {
  const c = vectors.cosignature;
  const message = cosignedMessage(c.body, c.time);
  assert.equal(message, `cosignature/v1\ntime ${c.time}\n${c.body}`);
  assert.equal(cosignatureLine(c.name, bytes(c.key_id), c.time, bytes(c.signature)), c.line);
  const key = await crypto.subtle.importKey('raw', bytes(c.public_key), { name: 'Ed25519' }, false, ['verify']);
  const ok = await crypto.subtle.verify({ name: 'Ed25519' }, key, bytes(c.signature), new TextEncoder().encode(message));
  assert.equal(ok, true);
  const later = await crypto.subtle.verify({ name: 'Ed25519' }, key, bytes(c.signature),
    new TextEncoder().encode(cosignedMessage(c.body, c.time + 1)));
  assert.equal(later, false);
});

test('a checkpoint note reads as its body and fields; anything else is not one', () => {
  const note = `${vectors.cosignature.body}\n\u2014 tablekeeper AAAA\n`;
  const read = readCheckpoint(note);
  assert.equal(read.body, vectors.cosignature.body);
  assert.equal(read.size, 9);
  assert.equal(read.origin, 'tablekeeper/tables/0d5c6a1e-8f4b-4b6e-9a2d-3c1f0e9b8a70');
  assert.equal(readCheckpoint('origin\n09\nAAAA\n'), null);
  assert.equal(readCheckpoint('origin\n9\nnot base64\n'), null);
  assert.equal(readCheckpoint(''), null);
});
