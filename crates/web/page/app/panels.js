// @ts-check
// The entry panel for the next move. Only legal choices are enabled; the choices come from the
// server's legal moves (legal.js). Each game's page code is one module, `games/<game id>.js`,
// loaded by the game's id as the table (and the catalogue) names it; this module names no game,
// so adding a game's page is adding that one file.
//
// The contract (corrections re-enter a deal with the game's own panels by passing a `send`
// that collects moves instead of posting them):
//   entryPanel(ctx) → DOM nodes, synchronous. While the game's module is still loading it
//   shows "Loading…" and calls `ctx.setMode(ctx.mode)` once it is there, to be drawn again.
//   ctx = { game, view, table, log, players, mode, setMode, send(move, label, extra), waiting? }
//   A result, and a deal's first move where the panel knows it, is sent with `extra.deal`,
//   the deal it was entered for (the server refuses it for any other).
//
// A game's module exports:
//   deck      the cards of its deck, in picker order;
//   kinds     the move kinds its card-by-card panel offers controls for;
//   panel(ctx, kinds)  the card-by-card panel for the kinds open now (null: nothing to offer);
//   result(ctx)        the form for a whole deal at once.
// The panel and the form get `ctx` with `deck` and `page` (the module itself) added.
// Its optional hooks say what is its own elsewhere on the screen (the header's facts, a seat's
// bits, the centre, its moves in words, a deal's summary, a score-sheet cell; `GamePage` in
// types.js); the shared modules read no field only one game's view has.

import { DECK52 } from './cards.js';
import { button, h, message } from './dom.js';
import { kinds } from './legal.js';
import { generic } from './controls.js';

/// Loads a game's page module (once); resolves to the module.
/** @typedef {import('./types.js').GamePage} GamePage */
/** @typedef {import('./types.js').PanelContext} PanelContext */

/** @type {Map<string, GamePage>} */
const modules = new Map();
/** @type {Map<string, Promise<GamePage>>} */
const loading = new Map();

/**
 * @param {string} game the game's id
 * @returns {Promise<GamePage>}
 */
export function loadGame(game) {
  if (modules.has(game)) return Promise.resolve(modules.get(game));
  if (!loading.has(game)) {
    loading.set(game, import(`./games/${encodeURIComponent(game)}.js`).then((m) => {
      modules.set(game, m);
      return m;
    }, (err) => {
      loading.delete(game);
      throw err;
    }));
  }
  return loading.get(game);
}

/// A game's page module if it is loaded already.
/**
 * @param {string} game
 * @returns {GamePage | null}
 */
export function gameModule(game) {
  return modules.get(game) ?? null;
}

/**
 * @param {PanelContext} ctx
 * @returns {any} the panel's nodes
 */
export function entryPanel(ctx) {
  const k = kinds(ctx.view);
  if (!k.size || ctx.table.finished) return message('The game is over: nothing more to record.');
  const game = gameModule(ctx.game);
  if (!game) {
    loadGame(ctx.game).then(() => ctx.setMode?.(ctx.mode), () => {});
    return message('Loading…');
  }
  const g = { ...ctx, deck: game.deck ?? DECK52, page: game };
  // `waiting`: the card-by-card side waits for the server (offline, an entry queued): it says
  // so, and Result stays a tap away.
  const resultMode = k.has('result') && (ctx.mode === 'result' || (k.size === 1 && !ctx.waiting));
  // The switch stays for the whole deal, the side not open now disabled (a deal under way is
  // entered card by card): taken away at the deal's first entry, it would move the panel below
  // it up under the scorer's finger.
  const cardsOpen = [...k].some((x) => x !== 'result');
  const toggle = game.result && game.panel
    ? h('div', { class: 'modes', role: 'group', 'aria-label': 'Recording mode' },
      button('Card by card', () => ctx.setMode('cards'), {
        'aria-pressed': String(!resultMode), disabled: !cardsOpen, title: cardsOpen ? null : 'only a result can be entered now',
      }),
      button('Result', () => ctx.setMode('result'), {
        'aria-pressed': String(resultMode), disabled: !k.has('result'), title: k.has('result') ? null : 'this deal is under way: card by card',
      }))
    : null;
  if (ctx.waiting && !resultMode) return [toggle, message(ctx.waiting)];
  const body = resultMode ? game.result?.(g) : game.panel?.(g, k);
  if (!body) return [toggle, generic(g, k)];
  // Kinds this game's panel has no control for yet: the move as JSON, checked by the server
  // (those it has are a tap away on "Card by card", not repeated under the result form).
  const handled = new Set([...(game.kinds || []), 'result']);
  const rest = new Set([...k].filter((x) => !handled.has(x)));
  return [toggle, body, rest.size ? h('details', { class: 'other' }, h('summary', {}, 'Other entries'), generic(g, rest)) : null];
}
