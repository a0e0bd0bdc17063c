// Cards as the API writes them ("QS", "10H", "7D"), their symbols, their spoken names, and the
// card picker: suits as rows, ranks as columns, red suits red, only legal cards tappable.

import { h } from './dom.js';

export const SUITS = [
  { letter: 'S', word: 'spades', symbol: '♠', red: false },
  { letter: 'H', word: 'hearts', symbol: '♥', red: true },
  { letter: 'D', word: 'diamonds', symbol: '♦', red: true },
  { letter: 'C', word: 'clubs', symbol: '♣', red: false },
];
export const RANKS = ['A', 'K', 'Q', 'J', '10', '9', '8', '7', '6', '5', '4', '3', '2'];
const RANK_WORDS = {
  A: 'ace', K: 'king', Q: 'queen', J: 'jack', 10: 'ten', 9: 'nine', 8: 'eight', 7: 'seven',
  6: 'six', 5: 'five', 4: 'four', 3: 'three', 2: 'two',
};

export function parse(card) {
  const text = String(card).toUpperCase();
  const suit = SUITS.find((s) => s.letter === text.slice(-1));
  let rank = text.slice(0, -1);
  if (rank === 'T') rank = '10';
  return suit && RANK_WORDS[rank] ? { rank, suit } : null;
}

/// "seven of diamonds"
export function cardName(card) {
  const c = parse(card);
  return c ? `${RANK_WORDS[c.rank]} of ${c.suit.word}` : String(card);
}

/// "7♦"
export function cardText(card) {
  const c = parse(card);
  return c ? `${c.rank}${c.suit.symbol}` : String(card);
}

export function suitWord(suit) {
  const s = SUITS.find((x) => x.word === suit || x.letter === suit);
  return s ? `${s.symbol} ${s.word}` : String(suit).replaceAll('_', ' ');
}

export function suitSymbol(suit) {
  return SUITS.find((x) => x.word === suit)?.symbol ?? '';
}

export function isRed(suit) {
  return SUITS.find((x) => x.word === suit || x.letter === suit)?.red ?? false;
}

/// A card shown face up, with its accessible name.
export function cardFace(card, extra = {}) {
  const c = parse(card);
  return h('span', { class: `card${c?.suit.red ? ' red' : ''}`, role: 'img', 'aria-label': cardName(card), ...extra },
    cardText(card));
}

/// The picker. `deck` lists the cards of the game's deck; `legal` is a Set of the cards that
/// may be tapped now; `seen` a Set of cards already played this deal (greyed).
export function picker({ deck, legal, seen = new Set(), onPick, label = 'Card' }) {
  const ranks = RANKS.filter((r) => SUITS.some((s) => deck.includes(r + s.letter)));
  const rows = SUITS.filter((s) => ranks.some((r) => deck.includes(r + s.letter))).map((s) =>
    h('div', { class: `pick-row${s.red ? ' red' : ''}`, role: 'group', 'aria-label': s.word },
      h('span', { class: 'pick-suit', 'aria-hidden': 'true' }, s.symbol),
      ranks.map((r) => {
        const card = r + s.letter;
        if (!deck.includes(card)) return h('span', { class: 'pick-gap' });
        const ok = legal.has(card);
        return h('button', {
          type: 'button',
          class: `pick${seen.has(card) ? ' seen' : ''}`,
          'aria-label': cardName(card),
          title: seen.has(card) ? `${cardName(card)}: already played this deal` : cardName(card),
          disabled: !ok,
          'data-card': card,
          onclick: ok ? () => onPick(card) : null,
        }, r);
      })));
  return h('div', { class: 'picker', role: 'group', 'aria-label': label, style: null }, rows);
}

export const DECK52 = SUITS.flatMap((s) => RANKS.map((r) => r + s.letter));
