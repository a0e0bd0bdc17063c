// Dividend's page: a card picker, or "who won this trick" (seat buttons) when the table is
// recorded trick by trick; the result form (cards won, adding up to 52).

import { DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { name, perSeat, playPicker, prompt, resultForm } from '../controls.js';

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
  return resultForm(ctx, {
    label: `Result of deal ${ctx.view.deal}`,
    fields: [perSeat(ctx, 'won', 'Cards won', 52)],
    check: (values) => {
      const t = values('won').reduce((a, b) => a + b, 0);
      return t === 52 ? null : `cards won add up to ${t}, not 52`;
    },
    build: (values) => ({ kind: 'result', cards_won: values('won') }),
  });
}
