// Cards as the API writes them (page/app/cards.js): parsed, named, shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  cardName, cardText, DECK52, isRed, isSquares, parse, plainText, RANKS, SQUARES64, squaresName, SUITS, suitSymbol, suitWord,
} from '../page/app/cards.js';

test('a card parses to its rank and suit, a ten written either way, in any case', () => {
  assert.deepEqual(parse('QS'), { rank: 'Q', suit: SUITS[0] });
  assert.equal(parse('10H').rank, '10');
  assert.equal(parse('TH').rank, '10');
  assert.equal(parse('7d').suit.word, 'diamonds');
  assert.equal(parse('1H'), null, 'there is no rank 1');
  assert.equal(parse('QX'), null, 'nor a suit X');
  assert.equal(parse(''), null);
});

test('cards have spoken names and short faces', () => {
  assert.equal(cardName('7D'), 'seven of diamonds');
  assert.equal(cardName('10S'), 'ten of spades');
  assert.equal(cardName('AH'), 'ace of hearts');
  assert.equal(cardText('QS'), 'Q♠');
  assert.equal(cardText('10H'), '10♥');
  assert.equal(cardName('ZZ'), 'ZZ', 'what is not a card is shown as it came');
});

test('a Squares card is named in words, never in its notation', () => {
  assert.equal(isSquares('3BS'), true);
  assert.equal(isSquares('3bs'), true);
  assert.equal(isSquares('3S'), false, 'a three of spades is no Squares card');
  assert.equal(isSquares('5BS'), false, 'Squares numbers run 1 to 4');
  assert.equal(squaresName('3BS'), '3 blue square');
  assert.equal(squaresName('1RH'), '1 red heart');
  assert.equal(cardText('4GT'), '4 green triangle');
});

test('suits: red ones red, words with symbols', () => {
  assert.equal(isRed('hearts'), true);
  assert.equal(isRed('D'), true);
  assert.equal(isRed('spades'), false);
  assert.equal(suitWord('clubs'), '♣ clubs');
  assert.equal(suitWord('no_trumps'), 'no trumps');
  assert.equal(suitSymbol('diamonds'), '♦');
});

test('the decks: 52 and 64 different cards, in picker order', () => {
  assert.equal(DECK52.length, 52);
  assert.equal(new Set(DECK52).size, 52);
  assert.equal(DECK52[0], 'AS', 'spades first, ace high');
  assert.equal(DECK52[RANKS.length], 'AH');
  assert.ok(DECK52.every((c) => parse(c)));
  assert.equal(SQUARES64.length, 64);
  assert.equal(new Set(SQUARES64).size, 64);
  assert.ok(SQUARES64.every(isSquares));
});

test('a sentence of strings is plain text as it is', () => {
  assert.equal(plainText(['7♦', ' for ', ['Cat']]), '7♦ for Cat');
});
