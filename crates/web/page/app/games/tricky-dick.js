// @ts-check
// Tricky Dick's page: trick 1's four face-up cards, then the 64-card Squares picker laid out
// by colour and shape; the result form (trick chips and penalties per player).

import { cardFace, cardPart, squaresFace, squaresName, squaresPicker, SQUARES64 } from '../cards.js';
import { button, h } from '../dom.js';
import { dealOf, openTo } from '../legal.js';
import { keypadGrid, name, prompt, resultForm } from '../controls.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

export const deck = SQUARES64;

/// Tricky Dick is played in hands: its views, events and score sheet number hands, not deals.
/** @type {import('../types.js').Numbering} */
export const numbering = Object.freeze({ deal: 'hand', inGame: 'hands_in_game', sheet: 'hands', word: 'Hand' });

/** This module, for `dealOf`. @type {GamePage} */
const page = { numbering };

export const kinds = ['first_trick', 'play'];

/// Trick 1's four face-up cards, tapped in seat order, by table.
const firstTricks = new Map();

export function panel(ctx, k) {
  const v = ctx.view;
  if (k.has('first_trick')) {
    const open = new Set(openTo(v, 'first_trick')?.cards ?? SQUARES64);
    const chosen = firstTricks.get(ctx.table.id) || [];
    const rerender = () => ctx.setMode(ctx.mode);
    const seat = chosen.length;
    return [prompt(seat < 4 ? `Trick 1: ${name(ctx, seat)}'s face-up card` : 'Trick 1'),
      h('p', { class: 'chosen' }, chosen.map((c, s) => [name(ctx, s), ' ', squaresFace(c), ' '])),
      squaresPicker({
        legal: seat < 4 ? open : new Set(), chosen, label: 'Squares card',
        onPick: (card) => {
          const next = [...chosen, card];
          if (next.length === 4) {
            firstTricks.delete(ctx.table.id);
            ctx.send({ kind: 'first_trick', cards: next }, `trick 1: ${next.map(squaresName).join(', ')}`, { deal: dealOf(v, page) });
          } else {
            firstTricks.set(ctx.table.id, next);
            rerender();
          }
        },
      }),
      chosen.length ? button('Clear', () => { firstTricks.delete(ctx.table.id); rerender(); }) : null];
  }
  if (k.has('play')) {
    const m = openTo(v, 'play');
    const seat = m?.seat ?? v.to_act;
    return [prompt(`${name(ctx, seat)} to lay a card to trick ${m?.trick ?? v.current_trick?.number ?? ''}`),
      squaresPicker({
        legal: new Set(m?.cards ?? []), label: `Card for ${name(ctx, seat)}`,
        onPick: (card) => ctx.send({ kind: 'play', seat, card, ...(m?.trick ? { trick: m.trick } : {}) }, `${squaresName(card)} for ${name(ctx, seat)}`),
      })];
  }
  return null;
}

/// The whole hand at once: each player's trick chips (circles − squares of the tricks they
/// scored) and penalties, within the bounds of the server's result form.
export function result(ctx) {
  const v = ctx.view;
  const b = openTo(v, 'result') || /** @type {import('../types.js').LegalMove} */ ({});
  const [min, max] = [b.trick_chips_min ?? -16, b.trick_chips_max ?? 16];
  const [totalMin, totalMax] = [b.trick_chips_total_min ?? -48, b.trick_chips_total_max ?? 48];
  const penaltiesMax = b.penalties_max ?? 15;
  const hand = dealOf(v, page);
  const signed = (n) => (n < 0 ? `−${-n}` : String(n));
  return resultForm(ctx, {
    label: `Result of hand ${hand}`,
    // Each starts at 0, as most players pay no penalty: only the others are tapped. A row's
    // word says what it counts; its range is under it.
    fields: [keypadGrid({
      label: 'Trick chips and penalties', columns: ctx.players,
      rows: [
        { word: 'Chips', note: `${signed(min)}…${max}`, cells: ctx.players.map((p, s) => ({ id: `r-chips-${s}`, label: `${p} trick chips`, min, max, value: 0 })) },
        { word: 'Penalties', note: `0…${penaltiesMax}`, cells: ctx.players.map((p, s) => ({ id: `r-pen-${s}`, label: `${p} penalties`, max: penaltiesMax, value: 0 })) },
      ],
    })],
    check: (values) => {
      const chips = values('chips');
      const off = chips.findIndex((c) => !Number.isInteger(c) || c < min || c > max);
      if (off >= 0) return `${name(ctx, off)}'s trick chips are ${signed(min)} to ${max}`;
      const total = chips.reduce((a, c) => a + c, 0);
      if (total < totalMin || total > totalMax) return `the trick chips add up to ${signed(total)}: no hand gives more than ${totalMax} or less than ${signed(totalMin)}`;
      const pen = values('pen').findIndex((n) => !Number.isInteger(n) || n < 0 || n > penaltiesMax);
      if (pen >= 0) return `${name(ctx, pen)}'s penalties are 0 to ${penaltiesMax}`;
      return null;
    },
    build: (values) => ({ kind: 'result', trick_chips: values('chips'), penalties: values('pen') }),
  });
}

/// What the last trick was worth and to whom.
/** @type {GamePage['centre']} */
export function centre(v, name) {
  const last = v.last_trick;
  if (!last?.cards) return [];
  const worth = last.value ? `${last.value > 0 ? '+' : ''}${last.value} to ${last.scorers.map(name).join(', ')}` : 'worth nothing';
  const penalised = last.penalised?.length ? `; −1 to ${last.penalised.map(name).join(', ')}` : '';
  return [h('p', { class: 'last-trick', 'aria-label': `Trick ${last.trick}, won by ${name(last.winner)}` },
    `Trick ${last.trick} won by ${name(last.winner)}: `,
    last.cards.map((p) => [cardFace(p.card), ' ']),
    `${worth}${penalised}`)];
}

/// Trick 1's face-up cards, in seat order: "trick 1: Ann 4■, Bob 1●, …".
/** @type {GamePage['describe']} */
export function describe(m, who) {
  if (m.kind !== 'first_trick') return null;
  return ['trick 1: ', (m.cards || []).flatMap((c, s) => [s ? ', ' : '', `${who(s)} `, cardPart(c)])];
}
