// @ts-check
// Pope Joan's page: the turn-up, the runs (stops.js), Pope in lieu, who holds the Pope when
// someone goes out; the result form with the Pope's holder.

import { cardFace, cardText, DECK52 } from '../cards.js';
import { button, h, message } from '../dom.js';
import { openTo } from '../legal.js';
import { chosen, name, numberPad, prompt, seatOrNull, seatPad } from '../controls.js';
import { poolList, runsPanel, stopsResult } from '../stops.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

/// The 8♦ is taken out.
export const deck = DECK52.filter((c) => c !== '8D');

/// The Pope: the nine of diamonds.
const POPE = '9D';

export const kinds = ['turn_up', 'play', 'stop', 'pope_in_lieu', 'pope_holder'];

/** Its pools can hold chips when a round closes (a tournament's `leftover` rule). */
export const pools = true;

function own(ctx, k, where) {
  if (where !== 'after') return [];
  const v = ctx.view;
  const parts = [];
  if (k.has('pope_in_lieu')) {
    const open = new Set(openTo(v, 'pope_in_lieu')?.seats ?? ctx.players.map((_, s) => s));
    parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': 'Pope in lieu' },
      ctx.players.map((p, s) => button(`${p}: Pope in lieu`, () => ctx.send({ kind: 'pope_in_lieu', seat: s }, `Pope in lieu for ${p}`), { disabled: !open.has(s) }))));
  }
  if (k.has('pope_holder')) {
    // The server lists the seats that may hold it and says apart whether the spare hand may.
    const open = openTo(v, 'pope_holder');
    const ok = (s) => !open || (s == null ? open.spare_hand === true : (open.seats || []).includes(s));
    parts.push(prompt('Who holds the Pope (9♦)?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Pope holder' },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'pope_holder', seat: s }, `the Pope held by ${p}`), { disabled: !ok(s) })),
        button('The spare hand', () => ctx.send({ kind: 'pope_holder', seat: null }, 'the Pope in the spare hand'), { disabled: !ok(null) })));
  }
  return parts;
}

export function panel(ctx, k) {
  return runsPanel(ctx, k, own);
}

/// The whole deal: stops.js's form; when the 9♦ was played, each hand's cards at that moment
/// (the Pope's stake is paid by them), else who still holds it (exempt from paying).
export function result(ctx) {
  const seats = ctx.players.map((_, s) => s);
  const bounds = openTo(ctx.view, 'result') || /** @type {import('../types.js').LegalMove} */ ({});
  const hands = bounds.hand_sizes || ctx.players.map(() => ctx.view.hand_size ?? 20);
  const show = (form, id, on) => { const el = form.querySelector(`#${id}`); if (el) el.hidden = !on; };
  return stopsResult(ctx, {
    fields: () => [
      h('fieldset', { id: 'r-pope-counts', hidden: true }, h('legend', {}, 'Cards in each hand when the 9♦ was played'),
        seats.map((s) => numberPad(`${name(ctx, s)} cards when the 9♦ was played`, `r-pope-${s}`, { max: hands[s] }))),
      h('div', { id: 'r-pope-holder-box' }, seatPad(ctx, 'The Pope (9♦) still held by', 'r-holder', { none: 'nobody / the spare hand' })),
    ],
    fill: (values, form, played) => {
      const pope = played.has(POPE);
      show(form, 'r-pope-counts', pope);
      show(form, 'r-pope-holder-box', !pope);
    },
    check: (values, form, played) => {
      const left = values('left');
      if (played.has(POPE)) {
        const counts = values('pope');
        const open = seats.filter((s) => counts[s] == null);
        if (open.length) return `cards when the 9♦ was played still to choose: ${open.map((s) => name(ctx, s)).join(', ')}`;
        const off = seats.find((s) => counts[s] < left[s] || counts[s] > hands[s]);
        if (off != null) return `${name(ctx, off)} held between ${left[off]} and ${hands[off]} cards when the 9♦ was played`;
        return null;
      }
      if (!chosen(form, 'r-holder')) return 'who still holds the Pope (9♦)? (or nobody / the spare hand)';
      const holder = seatOrNull(form, 'r-holder');
      if (holder != null && left[holder] === 0) return `${name(ctx, holder)} went out: cannot hold the 9♦`;
      return null;
    },
    finish: (move, form, played) => {
      if (played.has(POPE)) {
        move.pope_cards_left = seats.map((s) => Number(form.querySelector(`#r-pope-${s}`).value));
      } else {
        const holder = seatOrNull(form, 'r-holder');
        if (holder != null) move.pope_holder = holder;
      }
    },
  });
}

/// The card the live run waits for.
/** @type {GamePage['live']} */
export function live(v) {
  return v.run?.next ?? null;
}

/// The live run, the board's divisions with their chips, the plays missed.
/** @type {GamePage['centre']} */
export function centre(v, name) {
  const out = [];
  if (v.run) out.push(h('p', { class: 'run' }, 'Run: ', cardFace(v.run.last), ` by ${name(v.run.by)}, next `, cardFace(v.run.next)));
  if (v.board) out.push(poolList(v.board));
  for (const m of v.missed_plays || []) out.push(message(`Missed play: ${name(m.seat)} held ${cardText(m.card)}`, 'warn'));
  return out;
}

/** @type {GamePage['describe']} */
export function describe(m, who) {
  return m.kind === 'pope_holder' ? `the Pope held by ${who(m.seat)}` : null;
}
