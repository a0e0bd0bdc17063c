// @ts-check
// Dividend's page: a card picker, or "who won this trick" (seat buttons) when the table is
// recorded trick by trick; the result form (cards won, tens and units buttons per seat, the
// last seat's figure filled in so that they add up to 52).

import { DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { autoFill, keypadGrid, name, playPicker, prompt, resultForm } from '../controls.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

export const deck = DECK52;

export const kinds = ['play', 'trick'];

export function panel(ctx, k) {
  const v = ctx.view;
  const parts = [];
  const trick = v.current_trick;
  if (k.has('trick') && trick && !(trick.plays || []).length && v.recording !== 'card_by_card') {
    parts.push(prompt(`Who won trick ${trick.number}? (${name(ctx, trick.leader)} led)`),
      h('div', { class: 'choices seats4', role: 'group', 'aria-label': `Winner of trick ${trick.number}` },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'trick', winner: s, number: trick.number }, `trick ${trick.number} won by ${p}`),
          { 'aria-label': `${p} won trick ${trick.number}` }))));
  }
  if (k.has('play') && v.recording !== 'trick_by_trick') parts.push(playPicker(ctx));
  return parts.length ? parts : null;
}

export function result(ctx) {
  const seats = ctx.players.map((_, s) => s);
  return resultForm(ctx, {
    label: `Result of deal ${ctx.view.deal}`,
    fields: [keypadGrid({
      label: 'Cards won', columns: ctx.players,
      rows: [{ word: 'Cards won', cells: seats.map((s) => ({ id: `r-won-${s}`, label: `${name(ctx, s)} cards won`, max: 52 })) }],
    })],
    // The pack is 52 cards: once all seats but one are chosen, the last one's figure follows.
    fill: (values, form) => {
      for (const s of seats) {
        if (form.querySelector(`#r-won-${s}`)?.dataset.auto === '1') autoFill(form, `r-won-${s}`, null);
      }
      const won = values('won');
      const open = seats.filter((s) => won[s] == null);
      const sum = won.reduce((a, b) => a + (b ?? 0), 0);
      if (open.length === 1 && sum <= 52) autoFill(form, `r-won-${open[0]}`, 52 - sum);
    },
    check: (values) => {
      const won = values('won');
      const so = won.reduce((a, b) => a + (b ?? 0), 0);
      if (so > 52) return `cards won add up to ${so}, more than 52`;
      const open = seats.filter((s) => won[s] == null).map((s) => name(ctx, s));
      if (open.length) return `cards won still to choose: ${open.join(', ')}`;
      // A trick is four cards: any other count is one the server would refuse.
      const odd = seats.find((s) => won[s] % 4 !== 0);
      if (odd != null) return `${name(ctx, odd)}'s ${won[odd]} cards are not whole tricks of four`;
      return so === 52 ? null : `cards won add up to ${so}, not 52`;
    },
    build: (values) => ({ kind: 'result', cards_won: values('won') }),
  });
}

/// The cards a seat has won this deal ("12 cards won"; "12 cards" on the board's tiles).
/** @type {GamePage['seatBits']} */
export function seatBits(v, s, short = false) {
  return v.cards_won ? [`${v.cards_won[s]} cards${short ? '' : ' won'}`] : [];
}

/** @type {GamePage['describe']} */
export function describe(m, who) {
  return m.kind === 'trick' ? `trick ${m.number ?? ''} won by ${who(m.winner)}`.replace('  ', ' ') : null;
}
