// @ts-check
// Newmarket's page: the layout (pool cards and stakes), the runs (stops.js); the result form
// with each pool's winner.

import { cardFace, cardText, DECK52 } from '../cards.js';
import { h } from '../dom.js';
import { openTo } from '../legal.js';
import { chosen, options, prompt, seatOrNull, seatPad } from '../controls.js';
import { nextCardLine, poolList, runsPanel, stopsResult } from '../stops.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

/// The whole pack in the picker, so its rows keep their columns: the cards taken out of the
/// pack are shown but never tappable (the server never lists them as legal).
export const deck = DECK52;

export const kinds = ['layout', 'play', 'stop'];

/** Its pools can hold chips when a round closes (a tournament's `leftover` rule). */
export const pools = true;

export function panel(ctx, k) {
  return runsPanel(ctx, k, (_, kk, where) => (where === 'before' && kk.has('layout') ? [layout(ctx)] : []));
}

/// The layout: a pool card of each rank in four different suits, every seat's stake.
function layout(ctx) {
  const v = ctx.view;
  const open = openTo(v, 'layout');
  const pool = open?.pool_cards || [];
  const ranks = [['A', 'Ace'], ['K', 'King'], ['Q', 'Queen'], ['J', 'Knave']];
  const byRank = (r) => pool.filter((c) => c.slice(0, -1) === r);
  const note = h('p', { class: 'msg', role: 'status' });
  const form = h('form', { class: 'result', 'aria-label': 'Layout' },
    prompt('The layout: the pool cards and each player’s stake'),
    ranks.map(([r, word], i) => [h('label', { for: `l-pool-${i}` }, word),
      h('select', { id: `l-pool-${i}` }, options(byRank(r).map((c) => [c, cardText(c)])))]),
    h('fieldset', {}, h('legend', {}, 'Stakes'),
      ctx.players.map((p, s) => [h('label', { for: `l-stake-${s}` }, `${p} stakes on`),
        h('select', { id: `l-stake-${s}` }, options(ranks.map(([, word], i) => [i, word])))])),
    note, h('button', { type: 'submit' }, 'Record layout'));
  // Four different suits to start: ♠ ♥ ♦ ♣ in rank order.
  ranks.forEach((_, i) => { const sel = form.querySelector(`#l-pool-${i}`); if (sel && sel.options[i]) sel.selectedIndex = i; });
  ctx.players.forEach((_, s) => { const sel = form.querySelector(`#l-stake-${s}`); if (sel) sel.selectedIndex = s % 4; });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const cards = ranks.map((_, i) => form.querySelector(`#l-pool-${i}`).value);
    if (new Set(cards.map((c) => c.slice(-1))).size !== 4) {
      note.textContent = 'the pool cards must be of four different suits';
      note.className = 'msg warn';
      return;
    }
    const stakes = ctx.players.map((_, s) => cards[Number(form.querySelector(`#l-stake-${s}`).value)]);
    ctx.send({ kind: 'layout', pool_cards: cards, stakes }, `layout ${cards.map(cardText).join(' ')}`);
  });
  return form;
}

/// The whole deal: stops.js's form, with who won each pool (seat buttons or nobody).
export function result(ctx) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || /** @type {import('../types.js').LegalMove} */ ({});
  const pool = bounds.pool_cards || v.pool_cards || [];
  return stopsResult(ctx, {
    fields: () => h('fieldset', {}, h('legend', {}, 'Pool cards won'),
      pool.map((c, i) => seatPad(ctx, `${cardText(c)} pool won by`, `r-pool-${i}`, { none: 'nobody' }))),
    check: (values, form) => {
      const open = pool.filter((_, i) => !chosen(form, `r-pool-${i}`));
      return open.length ? `say who won the ${open.map(cardText).join(', ')} pool (or nobody)` : null;
    },
    finish: (move, form) => {
      // Newmarket has no specials: its pools are won by playing the pool cards.
      delete move.specials;
      // Only the pools won are listed, by their pool card: a pool card left out was not won.
      move.pool_winners = pool.flatMap((c, i) => {
        const seat = seatOrNull(form, `r-pool-${i}`);
        return seat == null ? [] : [{ pool_card: c, seat }];
      });
    },
  });
}

/// The card the live run waits for.
/** @type {GamePage['live']} */
export function live(v) {
  return v.next_card ?? null;
}

/// The next card, the pool cards, the pools with their chips.
/** @type {GamePage['centre']} */
export function centre(v) {
  const out = [];
  if (v.next_card) out.push(nextCardLine(v.next_card));
  if (v.pool_cards?.length) out.push(h('p', { class: 'run' }, 'Pool cards: ', v.pool_cards.map((c) => cardFace(c))));
  if (v.pools) out.push(poolList(v.pools));
  return out;
}
