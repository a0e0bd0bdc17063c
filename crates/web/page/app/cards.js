// @ts-check
// Cards as the API writes them ("QS", "10H", "7D"; Tricky Dick's Squares cards "3BS"), their
// symbols, their spoken names, and the card picker: suits as rows, ranks as columns, red suits
// red, only legal cards tappable. `cardFace` and `cardPart` show either kind of card, so a
// Squares card is never shown in its raw notation.

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

/** @typedef {{ letter: string, word: string, symbol: string, red: boolean }} Suit */

/**
 * @param {string} card
 * @returns {{ rank: string, suit: Suit } | null} null for what is not a card
 */
export function parse(card) {
  const text = String(card).toUpperCase();
  const suit = SUITS.find((s) => s.letter === text.slice(-1));
  let rank = text.slice(0, -1);
  if (rank === 'T') rank = '10';
  return suit && RANK_WORDS[rank] ? { rank, suit } : null;
}

/// "seven of diamonds"
/**
 * @param {string} card
 * @returns {string}
 */
export function cardName(card) {
  const c = parse(card);
  return c ? `${RANK_WORDS[c.rank]} of ${c.suit.word}` : String(card);
}

/// "7♦" (a Squares card in words: "3 blue square")
/**
 * @param {string} card
 * @returns {string}
 */
export function cardText(card) {
  if (isSquares(card)) return squaresName(card);
  const c = parse(card);
  return c ? `${c.rank}${c.suit.symbol}` : String(card);
}

/**
 * @param {string} suit a word ("hearts") or a letter ("H")
 * @returns {string} "♥ hearts"
 */
export function suitWord(suit) {
  const s = SUITS.find((x) => x.word === suit || x.letter === suit);
  return s ? `${s.symbol} ${s.word}` : String(suit).replaceAll('_', ' ');
}

/**
 * @param {string} suit
 * @returns {string}
 */
export function suitSymbol(suit) {
  return SUITS.find((x) => x.word === suit)?.symbol ?? '';
}

/**
 * @param {string} suit
 * @returns {boolean}
 */
export function isRed(suit) {
  return SUITS.find((x) => x.word === suit || x.letter === suit)?.red ?? false;
}

/// A card shown face up, with its accessible name: a Squares card as its number and coloured shape.
/**
 * @param {string} card
 * @param {Record<string, any>} [extra] more attributes
 * @returns {HTMLElement}
 */
export function cardFace(card, extra = {}) {
  if (isSquares(card)) return squaresFace(card);
  const c = parse(card);
  return h('span', { class: `card${c?.suit.red ? ' red' : ''}`, role: 'img', 'aria-label': cardName(card), ...extra },
    cardText(card));
}

let pickers = 0;

/// The picker. `deck` lists the cards of the game's deck; `legal` is a Set of the cards that
/// may be tapped now; `seen` a Set of cards already played this deal (greyed).
/**
 * @param {{ deck: string[], legal: Set<string>, seen?: Set<string>, onPick: (card: string) => void, label?: string }} options
 * @returns {HTMLElement}
 */
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
          // The name starts with what the button shows ("10♠, ten of spades"), so voice control
          // and screen readers agree with the eye.
          'aria-label': `${cardText(card)}, ${cardName(card)}`,
          title: seen.has(card) ? `${cardName(card)}: already played this deal` : cardName(card),
          disabled: !ok,
          'data-card': card,
          onclick: ok ? () => onPick(card) : null,
        }, r);
      })));
  const keys = `pick-keys-${++pickers}`;
  const group = h('div', { class: 'picker', role: 'group', 'aria-label': label, 'aria-describedby': keys }, rows,
    h('p', { class: 'pick-keys', id: keys }, 'Keys: the rank, then the suit (7 D; T or 10 for a ten), then Enter.'));
  group.addEventListener('keydown', pickerKeys(group));
  return group;
}

/// The picker from the keyboard: a rank (A K Q J T 10 9 … 2) goes to the first card of that
/// rank that can be played, a suit letter (S H D C) then to that rank's card of the suit (or,
/// with no rank typed, to the suit's first); Enter plays it. Any card in three keys (four for
/// "1 0").
/**
 * @param {HTMLElement} group
 * @returns {(e: KeyboardEvent) => void}
 */
export function pickerKeys(group) {
  let rank = '';
  return (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toUpperCase();
    const open = /** @type {HTMLButtonElement[]} */ ([...group.querySelectorAll('button[data-card]:not(:disabled)')]);
    const rankOf = (/** @type {HTMLButtonElement} */ b) => parse(b.dataset.card ?? '')?.rank;
    let target;
    const suit = SUITS.find((x) => x.letter === key);
    if (suit) {
      target = open.find((b) => rank && b.dataset.card === rank + suit.letter)
        ?? (rank ? null : open.find((b) => parse(b.dataset.card ?? '')?.suit === suit));
      rank = '';
    } else if (key === '0' && rank === '1') {
      rank = '10';
    } else if (RANKS.includes(key) || key === '1' || key === 'T') {
      rank = key === 'T' ? '10' : key;
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    target ??= rank ? open.find((b) => rankOf(b) === rank) : null;
    target?.focus();
  };
}

export const DECK52 = SUITS.flatMap((s) => RANKS.map((r) => r + s.letter));

// ---- The 64-card Squares deck (Tricky Dick): "3BS" = number, colour, shape ----------------------

export const SQ_COLOURS = [
  { letter: 'R', word: 'red' }, { letter: 'Y', word: 'yellow' },
  { letter: 'G', word: 'green' }, { letter: 'B', word: 'blue' },
];
export const SQ_SHAPES = [
  { letter: 'S', word: 'square', symbol: '■' }, { letter: 'T', word: 'triangle', symbol: '▲' },
  { letter: 'H', word: 'heart', symbol: '♥' }, { letter: 'C', word: 'circle', symbol: '●' },
];
export const SQUARES64 = [1, 2, 3, 4].flatMap((n) => SQ_COLOURS.flatMap((c) => SQ_SHAPES.map((s) => `${n}${c.letter}${s.letter}`)));

/// True for a Squares card ("3BS": number 1–4, colour R Y G B, shape S T H C; any case). The
/// notations cannot be confused: a 52-card card ends in its suit after a rank with no colour.
/**
 * @param {string} card
 * @returns {boolean}
 */
export function isSquares(card) {
  return /^[1-4][RYGB][STHC]$/i.test(String(card));
}

/// A card inside a sentence: a Squares card as its face (number and coloured shape), any other
/// as text ("7♦"). `plainText` turns such a sentence back into words.
/**
 * @param {string} card
 * @returns {string | HTMLElement}
 */
export function cardPart(card) {
  return isSquares(card) ? squaresFace(card) : cardText(card);
}

/// A sentence of strings and card faces as plain text, for labels kept as strings.
/**
 * @param {any} parts a `Sentence` (types.js): strings and card faces, nested
 * @returns {string}
 */
export function plainText(parts) {
  return [parts].flat(Infinity).map((p) => (typeof p === 'string' ? p : p?.getAttribute?.('aria-label') ?? p?.textContent ?? '')).join('');
}

/// "3 blue square"
/**
 * @param {string} card
 * @returns {string}
 */
export function squaresName(card) {
  const [n, c, s] = String(card).toUpperCase();
  const colour = SQ_COLOURS.find((x) => x.letter === c);
  const shape = SQ_SHAPES.find((x) => x.letter === s);
  return colour && shape ? `${n} ${colour.word} ${shape.word}` : String(card);
}

/// A shape's symbol as text, never as a coloured emoji (♥ would be drawn red on some phones
/// whatever the card's colour): U+FE0E asks for the text presentation.
function shapeSymbol(letter) {
  const symbol = SQ_SHAPES.find((x) => x.letter === letter)?.symbol;
  return symbol ? `${symbol}\uFE0E` : letter;
}

/// "3▲" in its colour.
/**
 * @param {string} card
 * @returns {HTMLElement}
 */
export function squaresFace(card) {
  const [n, c, s] = String(card).toUpperCase();
  const colour = SQ_COLOURS.find((x) => x.letter === c);
  return h('span', { class: `sq sq-${colour?.word ?? 'none'}`, role: 'img', 'aria-label': squaresName(card), title: squaresName(card) },
    `${n}${shapeSymbol(s)}`);
}

/// The Squares picker: one 4×4 block per colour (numbers as rows, shapes as columns), two
/// blocks a row on a phone; only the cards of `legal` are tappable, `chosen` are marked.
/**
 * @param {{ legal: Set<string>, chosen?: string[], onPick: (card: string) => void, label?: string }} options
 * @returns {HTMLElement}
 */
export function squaresPicker({ legal, chosen = [], onPick, label = 'Card' }) {
  return h('div', { class: 'sq-picker', role: 'group', 'aria-label': label },
    SQ_COLOURS.map((c) => h('div', { class: `sq-block sq-${c.word}`, role: 'group', 'aria-label': c.word },
      [1, 2, 3, 4].flatMap((n) => SQ_SHAPES.map((s) => {
        const card = `${n}${c.letter}${s.letter}`;
        const ok = legal.has(card) && !chosen.includes(card);
        return h('button', {
          type: 'button',
          class: `pick sq-pick${chosen.includes(card) ? ' seen' : ''}`,
          'aria-label': squaresName(card),
          disabled: !ok,
          'data-card': card,
          onclick: ok ? () => onPick(card) : null,
        }, `${n}${shapeSymbol(s.letter)}`);
      })))));
}
