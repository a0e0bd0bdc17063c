// The settle-up in words (page/app/settle.js): payments, nets, money in a currency's own minor
// units, where the pools go, and an amount typed on the chip value form read as minor units.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  accountName, amountText, chips, currencyDigits, minorUnits, money, netChips, netMoney, partyKey, partyName,
  paymentLine, whereThePoolsGo, LEFTOVER,
} from '../page/app/settle.js';

const ann = { player: 'Ann', pools: false, member_id: 'a1' };
const bob = { player: 'Bob', pools: false, member_id: null };
const thePools = { player: '', pools: true };
const theBank = { player: '', pools: false, bank: true };

test('money is in the currency\'s minor units: pence, cents, yen', () => {
  assert.equal(money(60, 'GBP', 'en-GB'), '£0.60');
  assert.equal(money(1234, 'EUR', 'en-GB'), '€12.34');
  assert.equal(money(5, 'JPY', 'en-GB'), 'JP¥5');
  assert.equal(currencyDigits('GBP'), 2);
  assert.equal(currencyDigits('JPY'), 0);
  // A code Intl cannot take is written after the amount, never thrown.
  assert.equal(currencyDigits('POUNDS'), 2);
  assert.equal(money(60, 'POUNDS', 'en-GB'), '0.60 POUNDS');
});

test('a payment in words, with money only when the API gives it', () => {
  assert.equal(paymentLine({ from: ann, to: bob, chips: 12, minor_units: 60, currency: 'GBP' }, 'en-GB'), 'Ann pays Bob 12 chips (£0.60)');
  assert.equal(paymentLine({ from: ann, to: bob, chips: 1, minor_units: null, currency: null }), 'Ann pays Bob 1 chip');
  assert.equal(paymentLine({ from: thePools, to: ann, chips: 3 }), 'The pools pay Ann 3 chips');
  assert.equal(paymentLine({ from: bob, to: theBank, chips: 34 }), 'Bob pays the bank 34 chips');
  assert.equal(paymentLine({ from: theBank, to: thePools, chips: 2 }), 'The bank pays the pools 2 chips');
});

test('parties by name and by a key that tells a member from a name, the pools and the bank', () => {
  assert.equal(partyName(ann), 'Ann');
  assert.equal(partyName(thePools, true), 'The pools');
  assert.equal(partyName(theBank), 'the bank');
  assert.equal(partyKey(ann), 'member:a1');
  assert.equal(partyKey(bob), 'player:Bob');
  assert.equal(partyKey(thePools), 'pools');
  assert.equal(partyKey(theBank), 'bank');
});

test('nets are signed with a minus sign, square at 0, in money at the chip value', () => {
  assert.equal(chips(1), '1 chip');
  assert.equal(chips(-1), '-1 chip');
  assert.equal(netChips(12), '+12 chips');
  assert.equal(netChips(-7), '−7 chips');
  assert.equal(netChips(0), 'square');
  const value = { minor_units: 5, currency: 'GBP' };
  assert.equal(netMoney(-7, value, 'en-GB'), '−£0.35');
  assert.equal(netMoney(12, value, 'en-GB'), '+£0.60');
  assert.equal(netMoney(12, null), '');
  assert.equal(netMoney(0, value), '');
});

test('an amount typed is read as whole minor units, or refused when it cannot be', () => {
  assert.equal(minorUnits('0.05'), 5);
  assert.equal(minorUnits(' 1 '), 100);
  assert.equal(minorUnits('.5'), 50);
  assert.equal(minorUnits('0,05'), 5);
  assert.equal(minorUnits('2.'), 200);
  assert.equal(minorUnits('0.1'), 10);
  assert.equal(minorUnits('5', 0), 5);
  // A minus sign is kept: the server refuses it in its own words.
  assert.equal(minorUnits('-0.05'), -5);
  for (const bad of ['', '.', ' ', 'abc', '0.055', '1e3', '£1', '1.2.3']) assert.equal(minorUnits(bad), null, bad);
  assert.equal(minorUnits('0.5', 0), null, 'no decimals in yen');
  assert.equal(minorUnits('99999999999999999999'), null, 'too big to be a whole number of pence');
  assert.equal(amountText(5), '0.05');
  assert.equal(amountText(1234), '12.34');
  assert.equal(amountText(7, 0), '7');
});

test('where the pools go: each tournament by its rule, other tables keep theirs', () => {
  assert.deepEqual(whereThePoolsGo([], ['t1', 't2']), [`Chips left in the pools ${LEFTOVER.keep}.`]);
  assert.match(LEFTOVER.keep, /stay in the pools: the settle-up counts them as the pools'/);
  const drive = { name: 'Drive', leftover: 'bank', tables: ['t1'] };
  assert.deepEqual(whereThePoolsGo([drive], ['t1', 't2']), [
    `Chips left in the pools of Drive's tables ${LEFTOVER.bank}.`,
    `Chips left in the pools of the other table ${LEFTOVER.keep}.`,
  ]);
  assert.deepEqual(whereThePoolsGo([{ name: 'Cup', tables: [] }], []), [`Chips left in the pools of Cup's tables ${LEFTOVER.keep}.`]);
  for (const rule of ['share', 'carry']) assert.ok(LEFTOVER[rule].includes('round closes'), rule);
});

test('ledger accounts of leftover moves in words', () => {
  assert.equal(accountName('pool:pope', ['Ann']), 'the Pope pool');
  assert.equal(accountName('seat:1', ['Ann', 'Bob']), 'Bob');
  assert.equal(accountName('seat:4', ['Ann']), 'seat 5');
  assert.equal(accountName('bank', []), 'the bank');
});
