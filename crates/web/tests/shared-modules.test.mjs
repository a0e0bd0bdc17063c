// No shared page module reads a game's own view fields: what only one game's view has (Tridge's
// `funds`, Pope Joan's `board`, Nomination Whist's `nominations`, Tricky Dick's `hand`, …) is
// drawn by that game's page module (`games/<id>.js`) through the hooks the shared modules call
// (`GamePage` in page/app/types.js). The fields are read from the games' `View` structs in
// crates/rules, so a new game's fields are covered without a list kept by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const games = join(here, '../../rules/src/games');
const app = join(here, '../page/app');

/// Each game's view fields, from `pub struct View { … }` in its folder.
function viewFields() {
  const byGame = new Map();
  for (const game of readdirSync(games, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) {
    const dir = join(games, game);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.rs'))) {
      const source = readFileSync(join(dir, file), 'utf8');
      const body = /pub struct View \{([\s\S]*?)\n\}/.exec(source)?.[1];
      if (body) byGame.set(game, [...body.matchAll(/^\s*pub (\w+):/gm)].map((m) => m[1]));
    }
  }
  return byGame;
}

/// The fields exactly one game's view has.
function ownFields(byGame) {
  const count = new Map();
  for (const fields of byGame.values()) for (const f of new Set(fields)) count.set(f, (count.get(f) ?? 0) + 1);
  return [...count].filter(([, n]) => n === 1).map(([f]) => f).sort();
}

/// Names a shared module uses in another sense, and on what: the page's recording mode
/// (`ctx.mode`, `state.mode`: card by card or result), a club member who left (`m.active`), a
/// join code that no longer opens its table (`code.active`).
const OTHER_SENSES = { mode: ['ctx', 'state'], active: ['m', 'code'] };

/// The code of a module without its comments (a URL's `//` follows a colon, never a space).
function code(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/// Where `source` reads one of `fields`: `x.field`, `x?.field`, `x['field']`, `'field' in x`.
function reads(source, fields) {
  const found = [];
  const lines = code(source).split('\n');
  lines.forEach((line, i) => {
    for (const field of fields) {
      const access = new RegExp(`([\\w$]*)\\s*(?:\\?\\.|\\.)\\s*${field}\\b|\\[\\s*['"]${field}['"]\\s*\\]|['"]${field}['"]\\s+in\\b`, 'g');
      for (const m of line.matchAll(access)) {
        if (m[1] !== undefined && OTHER_SENSES[field]?.includes(m[1])) continue;
        found.push(`${i + 1}: ${field} in \`${line.trim()}\``);
      }
    }
  });
  return found;
}

test("the games' views are read from crates/rules, and each game has fields of its own", () => {
  const byGame = viewFields();
  const folders = readdirSync(games, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  assert.deepEqual([...byGame.keys()].sort(), folders.sort(), 'every game folder has a `pub struct View`');
  const own = ownFields(byGame);
  for (const f of ['funds', 'board', 'nominations', 'hand', 'last_trick', 'cards_won', 'pool_cards', 'contract']) {
    assert.ok(own.includes(f), `${f} is one game's own`);
  }
  for (const f of ['deal', 'dealer', 'to_act', 'legal_moves', 'trumps']) assert.ok(!own.includes(f), `${f} is shared`);
});

test("the check finds a game's field read in a shared module, and not a word that only contains it", () => {
  assert.equal(reads('const f = v.funds;', ['funds']).length, 1);
  assert.equal(reads("const f = v?.['board'];", ['board']).length, 1);
  assert.equal(reads("if ('hand' in v) {}", ['hand']).length, 1);
  assert.equal(reads('const n = v.hand_size; // v.funds', ['funds', 'hand']).length, 0);
  assert.equal(reads("import { openBoard } from './board.js';", ['board']).length, 0);
  assert.equal(reads('ctx.setMode(ctx.mode);', ['mode']).length, 0);
  assert.equal(reads('const m = v.mode;', ['mode']).length, 1);
});

test("no shared page module reads a game's own view fields", () => {
  const own = ownFields(viewFields());
  const shared = readdirSync(app).filter((f) => f.endsWith('.js'));
  assert.ok(shared.includes('table.js') && shared.includes('board.js') && existsSync(join(app, 'games')));
  const offences = shared.flatMap((file) => reads(readFileSync(join(app, file), 'utf8'), own).map((r) => `app/${file}:${r}`));
  assert.deepEqual(offences, [], `a game's own field belongs to its page module (games/<id>.js), drawn through a hook:\n${offences.join('\n')}`);
});
