// @ts-check
// The game catalogue (`GET /api/v1/games`) as the page needs it: each game's name. Read once
// per page load and kept in localStorage, so a table opened without a signal is still named;
// before the first answer a game is named from its id ("pope-joan" → "Pope Joan").

import { get } from './api.js';

const KEY = 'tk.gameNames';
let names = {};
try {
  names = JSON.parse(localStorage.getItem(KEY) || '{}') || {};
} catch {
  names = {};
}
let loaded = null;

/// Reads the catalogue once; resolves when the names are known (or the server did not answer).
/** @returns {Promise<void>} */
export function loadCatalogue() {
  loaded ??= get('/games').then((games) => {
    names = Object.fromEntries(games.map((g) => [g.id, g.name]));
    try {
      localStorage.setItem(KEY, JSON.stringify(names));
    } catch {
      // Storage full: the names are still known until the page is closed.
    }
  }, () => {
    loaded = null;
  });
  return loaded;
}

/**
 * @param {string} id
 * @returns {string} "pope-joan" → "Pope Joan" until the catalogue says
 */
export function gameName(id) {
  return names[id] || String(id).split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
