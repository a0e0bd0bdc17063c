// @ts-check
// Tournaments (issue #41): the organiser makes one from a session (ticks who came, picks the
// game, format, rounds, deals or minutes per round and scoring), sees the next round's tables
// before starting it (`GET /tournaments/{id}/rounds/next`, a dry run), starts and closes rounds
// and sees which tables still play; a player picks themself from the entrants and reads their
// guide card. Between rounds the organiser enters a late arrival or withdraws an entrant (from the
// next round on); while a round plays, its tables' scorer codes are one screen (a join code and QR
// code per table, to show or print). Routes: #/session/<id>/tournament (new) · #/tournament/<id> ·
// #/tournament/<id>/codes · #/guide/<id> · #/guide/<id>/<member id>. The guide is read with whatever token the page has: the organiser's
// (a member's own account) or the session's share link (`/?share=…#/guide/<id>`).

import { call, download, get, newKey, organiser } from './api.js';
import { clockText, clockWords, currentRound, dealsDone, formatWords, MOVES, remainingMs, stillPlaying, totalText } from './clock.js';
import { button, h, message, mount } from './dom.js';
import { dealOf, numberingOf } from './legal.js';
import { canonical, field, guarded, optionControls, signIn, top } from './organiser.js';
import { reopened } from './money.js';
import { gameModule, loadGame } from './panels.js';
import { isLoopback, joinLink, publicBase, qrSvg, reusableCode } from './qr.js';
import { gameName } from './table.js';

const auth = () => ({ token: organiser.token });

/// Scoring kinds in words.
const SCORING = { points: "the game's own points", chips: 'net chips', places: 'points by place at the table' };
/// What a table short of its deals scores, in words.
const UNFINISHED = { as_played: 'the deals it finished count', average: 'every seat scores the table average', void: 'every seat scores 0' };

/// Where a stops game's leftover chips go when a round closes, in words.
const LEFTOVER = {
  keep: 'stay in the pools (counted as the pools\' in the settle-up)',
  share: "shared among the table's players",
  bank: 'go to the bank (the club keeps them)',
  carry: "carried to the next round's table of the same number",
};

/// What a round not played scores (a bye; before a late arrival's first round), in words.
const MISSED = { average: "the round's average", zero: 'nothing', fixed: 'a fixed score' };

/// The set-up in one line: "Nomination Whist · Progressive (winner moves up) · 4 rounds · …".
/**
 * @param {any} t a TournamentView
 * @returns {string}
 */
export function setupLine(t) {
  return [
    gameName(t.game),
    formatWords(t.format),
    `${t.rounds} round${t.rounds === 1 ? '' : 's'}`,
    t.deals_per_round ? `${t.deals_per_round} deal${t.deals_per_round === 1 ? '' : 's'} a round` : null,
    t.minutes_per_round ? `${t.minutes_per_round} minutes a round` : null,
    `scored by ${SCORING[t.scoring.kind] ?? t.scoring.kind}${t.scoring.points ? ` (${t.scoring.points.join(', ')})` : ''}`,
  ].filter(Boolean).join(' · ');
}

/// A round's table: "Table 2" and its seats in order, seat 1 marked as the first dealer.
/**
 * @param {{ number: number, seats: { seat: number, name: string }[] }} t
 * @param {...any} extra
 */
function tableCard(t, ...extra) {
  return h('li', { class: 'table-card round-table', 'data-number': t.number },
    h('h3', {}, `Table ${t.number}`),
    h('ol', { class: 'round-seats', 'aria-label': `Table ${t.number} seats` }, t.seats.map((s) =>
      h('li', {}, s.name, s.seat === 1 ? h('small', {}, ' (deals first)') : null))),
    ...extra);
}

/// Names of club members from the entrants, for byes.
/**
 * @param {any} t
 * @param {string[]} ids
 */
function names(t, ids) {
  return ids.map((id) => t.entrants.find((e) => e.member_id === id)?.name ?? 'someone');
}

/**
 * @param {string} sessionId
 * @param {HTMLElement} root
 */
export async function newTournament(sessionId, root) {
  const back = `#/session/${sessionId}`;
  mount(root, top('New tournament', back), message('Loading…'));
  await guarded(root, async () => {
    const [games, s] = await Promise.all([get('/games'), get(`/sessions/${sessionId}`, auth())]);
    // The club's rule for leftover pools is the form's first choice ('keep' if it cannot be read).
    const clubLeftover = await get(`/clubs/${s.club_id}/leftover`, auth()).then((r) => r.leftover, () => 'keep');
    const roster = s.members || [];
    if (!roster.length) {
      mount(root, top('New tournament', back),
        message("A tournament's entrants are the club's members who came: start the session from the club, ticking who came."));
      return;
    }
    const status = h('div', { 'aria-live': 'polite' });
    const count = h('p', { class: 'came', 'aria-live': 'polite' });
    const ticks = h('div', { class: 'checks who-came' }, roster.map((m) => h('label', { class: 'tick' },
      h('input', { type: 'checkbox', value: m.id, checked: true }), h('span', {}, m.name))));
    const recount = () => { count.textContent = `${ticks.querySelectorAll('input:checked').length} entrants`; };
    ticks.addEventListener('change', recount);
    recount();
    const game = h('select', { id: 'tournament-game' }, games.map((g) => h('option', { value: g.id }, `${g.name} (${g.min_players}–${g.max_players} a table)`)));
    const format = h('select', { id: 'tournament-format' },
      h('option', { value: 'progressive' }, 'Progressive (a whist drive: winners move up)'),
      h('option', { value: 'rotation' }, 'Rotation (all meet all, as evenly as can be)'),
      h('option', { value: 'swiss' }, 'Swiss (tables by standings, no repeats)'),
      h('option', { value: 'fixed' }, 'Fixed (the same tables all night)'));
    const move = h('select', { id: 'tournament-move' }, Object.entries(MOVES).map(([v, words]) => h('option', { value: v }, words[0].toUpperCase() + words.slice(1))));
    const moveRow = h('div', { class: 'option' }, h('label', { for: 'tournament-move' }, 'Who moves after a round'), move);
    format.addEventListener('change', () => { moveRow.hidden = format.value !== 'progressive'; });
    const num = (id, label, attrs = {}) => [h('label', { for: id }, label),
      h('input', { id, name: id, type: 'number', inputmode: 'numeric', step: 1, min: 1, ...attrs })];
    const scoring = h('select', { id: 'tournament-scoring' }, Object.entries(SCORING).map(([v, words]) => h('option', { value: v }, words[0].toUpperCase() + words.slice(1))));
    const places = h('input', { id: 'tournament-places', inputmode: 'numeric', autocomplete: 'off', value: '4, 2, 1, 0' });
    const placesRow = h('div', { class: 'option', hidden: true }, h('label', { for: 'tournament-places' }, 'Points for 1st, 2nd, … (separated by commas)'), places);
    scoring.addEventListener('change', () => { placesRow.hidden = scoring.value !== 'places'; });
    const unfinished = h('select', { id: 'tournament-unfinished' }, Object.entries(UNFINISHED).map(([v, words]) => h('option', { value: v }, words[0].toUpperCase() + words.slice(1))));
    const choice = (/** @type {string} */ id, /** @type {Record<string, string>} */ words, /** @type {string} */ chosen) =>
      h('select', { id }, Object.entries(words).map(([v, w]) => h('option', { value: v, selected: v === chosen }, w[0].toUpperCase() + w.slice(1))));
    const leftover = choice('tournament-leftover', LEFTOVER, clubLeftover);
    const leftoverRow = h('div', { class: 'option', hidden: true },
      h('label', { for: 'tournament-leftover' }, 'Chips left in the pools when a round closes'), leftover);
    /** A missed round's score: a choice, and the points when fixed. */
    const missed = (/** @type {string} */ id, /** @type {string} */ label, /** @type {string} */ chosen) => {
      const kind = choice(id, MISSED, chosen);
      const points = h('input', { id: `${id}-points`, type: 'number', inputmode: 'numeric', step: 1, value: 0, 'aria-label': `${label}: the fixed score` });
      const pointsRow = h('div', { class: 'option', hidden: true }, h('label', { for: `${id}-points` }, 'Fixed score'), points);
      kind.addEventListener('change', () => { pointsRow.hidden = kind.value !== 'fixed'; });
      return {
        nodes: [h('label', { for: id }, label), kind, pointsRow],
        read: () => (kind.value === 'fixed' ? { kind: 'fixed', points: Number(points.value || 0) } : { kind: kind.value }),
      };
    };
    const bye = missed('tournament-bye', 'A bye (sitting a round out) scores', 'average');
    const late = missed('tournament-late', 'A late arrival, for each round missed, scores', 'zero');
    const options = h('details', { class: 'option' }, h('summary', {}, 'Game options (defaults unless changed)'));
    let controls = [];
    const pick = () => {
      const g = games.find((x) => x.id === game.value);
      // A seat option names a seat at one table: a tournament's tables are seated by the movement.
      controls = optionControls({ ...g, options: g.options.filter((o) => o.kind?.type !== 'seat') }, () => []);
      mount(options, h('summary', {}, 'Game options (defaults unless changed)'), controls.map((c) => c.node));
      // Only a stops game's module says its pools can hold chips at a round's close.
      const picked = game.value;
      loadGame(picked).then((m) => { if (game.value === picked) leftoverRow.hidden = !m?.pools; }, () => {});
    };
    game.addEventListener('change', pick);
    pick();
    const form = h('form', { class: 'card-box', 'aria-label': 'New tournament' },
      field('tournament-name', 'Name', { value: 'Drive', maxlength: 200 }),
      h('fieldset', {}, h('legend', {}, 'Who plays (in seeding order)'), ticks, count),
      h('label', { for: 'tournament-game' }, 'Game'), game,
      options,
      h('label', { for: 'tournament-format' }, 'Format'), format,
      moveRow,
      num('tournament-rounds', 'Rounds', { value: 4, max: 100, required: true }),
      h('div', { class: 'row' },
        h('div', {}, num('tournament-seats-min', 'Fewest at a table', { placeholder: "game's" })),
        h('div', {}, num('tournament-seats-max', 'Most at a table', { placeholder: "game's" }))),
      num('tournament-deals', 'Deals per round (leave empty to play by the clock)'),
      num('tournament-minutes', "Minutes per round (the board's clock)"),
      h('label', { for: 'tournament-scoring' }, 'Scoring'), scoring,
      placesRow,
      h('label', { for: 'tournament-unfinished' }, 'A table short of its deals at the close'), unfinished,
      ...bye.nodes,
      ...late.nodes,
      leftoverRow,
      status,
      h('button', { type: 'submit', class: 'primary' }, 'Make the tournament'));
    const key = newKey();
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const value = (id) => form.querySelector(`#${id}`).value.trim();
      const n = (id) => (value(id) === '' ? undefined : Number(value(id)));
      const entrants = [...ticks.querySelectorAll('input:checked')].map((i) => i.value);
      if (!entrants.length) return mount(status, message('Tick who plays first.', 'error'));
      const chosen = {};
      for (const c of controls) {
        const v = c.read();
        if (v === undefined || canonical(v) === canonical(c.default)) continue;
        chosen[c.name] = v;
      }
      const [min, max] = [n('tournament-seats-min'), n('tournament-seats-max')];
      const body = {
        name: value('tournament-name'),
        game: game.value,
        options: Object.keys(chosen).length ? chosen : undefined,
        format: format.value === 'progressive' ? { kind: 'progressive', move: move.value } : { kind: format.value },
        seats: min || max ? { min: min ?? max, max: max ?? min } : undefined,
        rounds: n('tournament-rounds'),
        deals_per_round: n('tournament-deals'),
        minutes_per_round: n('tournament-minutes'),
        entrants,
        scoring: {
          ...(scoring.value === 'places'
            ? { kind: 'places', points: places.value.split(/[\s,]+/).filter(Boolean).map(Number) }
            : { kind: scoring.value }),
          bye: bye.read(),
          late: late.read(),
        },
        unfinished: unfinished.value,
        leftover: leftoverRow.hidden ? undefined : leftover.value,
      };
      try {
        // One key for the form: a retry after a lost answer makes one tournament, not two.
        const made = await call('POST', `/sessions/${sessionId}/tournaments`, { ...auth(), body, headers: { 'Idempotency-Key': key } });
        location.hash = `#/tournament/${made.id}`;
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    mount(root, top('New tournament', back), h('p', { class: 'came' }, s.name), form);
  });
}

/// A round's tables as they stand: each ordinary table's game state says whether it still plays.
/**
 * @param {any} t the tournament
 * @param {any} round
 * @param {(tableId: string) => Promise<any>} read
 * @returns {Promise<Map<string, { playing: boolean, words: string }>>}
 */
export async function roundProgress(t, round, read) {
  const out = new Map();
  await loadGame(t.game).catch(() => {});
  const page = gameModule(t.game);
  const n = numberingOf(page);
  await Promise.all(round.tables.map(async (rt) => {
    try {
      const table = await read(rt.table_id);
      const deal = dealOf(table.state, page);
      const playing = stillPlaying(table, deal, t.deals_per_round);
      const done = dealsDone(table, deal, table.state[n.inGame]);
      const of = t.deals_per_round ? ` of ${t.deals_per_round}` : '';
      const plural = (t.deals_per_round ?? done) === 1 ? '' : 's';
      out.set(rt.table_id, { playing, words: playing ? `playing: ${done}${of} ${n.word.toLowerCase()}${plural} done` : `done: ${done} ${n.word.toLowerCase()}${done === 1 ? '' : 's'}` });
    } catch {
      out.set(rt.table_id, { playing: true, words: 'not read' });
    }
  }));
  return out;
}

/**
 * @param {string} id
 * @param {HTMLElement} root
 * @param {string | null} [note] what the last change did, said once the screen is drawn again
 */
export async function tournamentScreen(id, root, note = null) {
  mount(root, top('Tournament', '#/organiser'), message('Loading…'));
  await guarded(root, async () => {
    const t = await get(`/tournaments/${id}`, auth());
    const back = `#/session/${t.session_id}`;
    // A reopened session's result says so beside its standings, ever after.
    const reopenings = t.finished_at ? (await get(`/tournaments/${id}/results`, auth())).reopenings : null;
    const status = h('div', { class: 'screen-status', 'aria-live': 'polite' }, note ? message(note, 'ok') : null);
    const say = (text, kind = 'error') => mount(status, message(text, kind));
    const again = (/** @type {string | null} */ said = null) => tournamentScreen(id, root, said);
    /** @type {any} */
    const round = currentRound(t.played_rounds);
    const open = round && !round.closed_at ? round : null;
    const sections = [];
    if (open) {
      const progress = await roundProgress(t, open, (tid) => get(`/tables/${tid}`, auth()));
      const playing = open.tables.filter((rt) => progress.get(rt.table_id)?.playing);
      const left = remainingMs(open.started_at, t.minutes_per_round, Date.now());
      sections.push(h('section', { class: 'card-box', 'aria-labelledby': 'round-head' },
        h('h2', { id: 'round-head' }, `Round ${open.round} of ${t.rounds}: playing`),
        left != null ? h('p', { class: 'came round-clock' }, `Clock: ${clockText(left)} (${clockWords(left)})`) : null,
        h('p', { class: 'still-playing', role: 'status' }, playing.length
          ? `Still playing: ${playing.map((rt) => `table ${rt.number}`).join(', ')}`
          : 'Every table has finished its deals.'),
        h('ul', { class: 'tables', 'aria-label': `Round ${open.round} tables` }, open.tables.map((rt) => {
          const p = progress.get(rt.table_id);
          return tableCard(rt,
            h('p', { class: `facts table-progress${p?.playing ? '' : ' done'}`, 'data-playing': String(Boolean(p?.playing)) }, p?.words ?? ''),
            h('div', { class: 'row' },
              h('a', { class: 'button', href: `#/table/${rt.table_id}`, 'aria-label': `Score table ${rt.number}` }, 'Score'),
              h('a', { class: 'button', href: `#/code/${rt.table_id}`, 'aria-label': `Join code for table ${rt.number}` }, 'Join code')));
        })),
        open.byes.length ? h('p', { class: 'came' }, `Sitting out: ${names(t, open.byes).join(', ')}`) : null,
        h('div', { class: 'row' },
          button('Refresh', () => again()),
          h('a', { class: 'button', href: `#/tournament/${id}/codes` }, 'Scorer codes'),
          button(`Close round ${open.round}`, async () => {
            if (playing.length && !window.confirm(`${playing.length} table${playing.length === 1 ? ' is' : 's are'} still playing: close round ${open.round} anyway? They are scored as the tournament says.`)) return;
            try {
              await call('POST', `/tournaments/${id}/rounds/${open.round}/close`, auth());
              again();
            } catch (err) {
              say(err.message);
            }
          }, { class: 'primary' }))));
    } else if (!t.finished_at) {
      // Before starting: the tables the round would seat, from the dry run.
      let planned = null;
      try {
        planned = await get(`/tournaments/${id}/rounds/next`, auth());
      } catch (err) {
        if (err.status === 401) throw err;
        say(err.message);
      }
      const key = newKey();
      sections.push(h('section', { class: 'card-box', 'aria-labelledby': 'next-head' },
        h('h2', { id: 'next-head' }, planned ? `Round ${planned.round} of ${t.rounds}: the tables before starting` : 'The next round'),
        planned ? h('ul', { class: 'tables', 'aria-label': `Round ${planned.round} tables` }, planned.tables.map((pt) => tableCard(pt))) : null,
        planned?.byes.length ? h('p', { class: 'came' }, `Sitting out: ${names(t, planned.byes).join(', ')}`) : null,
        planned ? button(`Start round ${planned.round}`, async (e) => {
          const b = e.currentTarget; // null once the handler awaits
          b.disabled = true;
          try {
            await call('POST', `/tournaments/${id}/rounds`, { ...auth(), headers: { 'Idempotency-Key': key } });
            again();
          } catch (err) {
            b.disabled = false;
            say(err.message);
          }
        }, { class: 'primary' }) : null));
    } else {
      sections.push(h('section', { class: 'card-box' }, h('h2', {}, 'Finished'), message(`All ${t.rounds} rounds are played.`, 'ok')));
    }
    const entrants = await entrantsSection(t, again);
    if (entrants) sections.push(entrants);
    if (t.standings.length && t.played_rounds.some((r) => r.closed_at)) sections.push(standingsTable(t, reopenings));
    const save = (e) => {
      e.preventDefault();
      download(e.currentTarget.getAttribute('href')).catch((err) => say(err.message));
    };
    mount(root, top(t.name, back),
      h('p', { class: 'came setup' }, setupLine(t)),
      status,
      ...sections,
      h('section', { class: 'card-box', 'aria-labelledby': 'guides-head' },
        h('h2', { id: 'guides-head' }, 'Guide cards'),
        h('p', { class: 'came' }, 'Where each player sits now and next.'),
        h('ul', { class: 'chips', 'aria-label': 'Entrants' }, t.entrants.filter((e) => e.until_round == null).map((e) =>
          h('li', {}, h('a', { href: `#/guide/${id}/${e.member_id}`, 'aria-label': `${e.name}'s guide card` }, e.name))))),
      h('div', { class: 'row' },
        h('a', { class: 'button', href: `/api/v1/tournaments/${id}/results.csv`, download: '', onclick: save }, 'Results (CSV)'),
        h('a', { class: 'button', href: `/api/v1/tournaments/${id}/results.pdf`, download: '', onclick: save }, 'Results (PDF)'),
        h('a', { class: 'button', href: back }, 'Back to the session')));
  });
}

/// Late arrivals and withdrawals, from the next round to be started: a picker of the club's
/// members not entered, and of the entrants still playing with a confirm step before one is
/// withdrawn. A refusal's sentence is shown beside the controls and nothing changes; a change
/// draws the screen again, with the next round's tables as they now are.
/**
 * @param {any} t the tournament
 * @param {(note: string) => any} again draws the screen again, saying `note`
 * @returns {Promise<HTMLElement | null>} null once no round is left to start
 */
async function entrantsSection(t, again) {
  const next = t.played_rounds.length + 1;
  if (t.finished_at || next > t.rounds) return null;
  /** @type {any[]} */
  let members = [];
  let unread = null;
  try {
    members = (await get(`/clubs/${t.club_id}/members`, auth())).items;
  } catch (err) {
    if (err.status === 401) throw err;
    unread = err.message;
  }
  const entered = new Set(t.entrants.map((e) => e.member_id));
  const free = members.filter((m) => m.active && !m.anonymised && !entered.has(m.id));
  const playing = t.entrants.filter((e) => e.until_round == null);
  const gone = t.entrants.filter((e) => e.until_round != null);
  const from = `from round ${next}`;
  const status = h('div', { class: 'screen-status', 'aria-live': 'polite' });
  const refused = (/** @type {any} */ err) => mount(status, message(err.message, 'error'));
  const late = h('select', { id: 'late-member' }, h('option', { value: '' }, 'Choose a club member'),
    free.map((m) => h('option', { value: m.id }, m.guest ? `${m.name} (guest)` : m.name)));
  const enter = button(`Enter ${from}`, async (e) => {
    const b = e.currentTarget;
    const member = free.find((m) => m.id === late.value);
    if (!member) return mount(status, message('Choose who arrived first.', 'error'));
    b.disabled = true;
    try {
      await call('POST', `/tournaments/${t.id}/entrants`, { ...auth(), body: { member_id: member.id } });
      again(`${member.name} plays ${from}.`);
    } catch (err) {
      b.disabled = false;
      refused(err);
    }
  });
  const leaving = h('select', { id: 'withdraw-member' }, h('option', { value: '' }, 'Choose an entrant'),
    playing.map((e) => h('option', { value: e.member_id }, e.name)));
  // The confirm step: who and from when, in words, before anything is sent.
  const confirm = h('div', { class: 'confirm', 'aria-live': 'polite' });
  leaving.addEventListener('change', () => mount(confirm));
  const withdraw = button(`Withdraw ${from}`, () => {
    const who = playing.find((e) => e.member_id === leaving.value);
    if (!who) return mount(status, message('Choose who is leaving first.', 'error'));
    mount(status);
    mount(confirm,
      h('p', { class: 'confirm-ask' }, `Withdraw ${who.name}? They sit at no table ${from} on.`),
      h('div', { class: 'row' },
        button(`Yes, withdraw ${who.name}`, async (e) => {
          const b = e.currentTarget;
          b.disabled = true;
          try {
            await call('DELETE', `/tournaments/${t.id}/entrants/${who.member_id}`, auth());
            again(`${who.name} is withdrawn ${from}.`);
          } catch (err) {
            b.disabled = false;
            refused(err);
          }
        }, { class: 'danger' }),
        button(`Keep ${who.name}`, () => mount(confirm))));
  });
  const arrived = unread
    ? message(`The club's members cannot be read: ${unread}`, 'error')
    : free.length
      ? [h('label', { for: 'late-member' }, 'Late arrival'), h('div', { class: 'pick-line' }, late, enter)]
      : h('p', { class: 'came' }, 'Every member of the club is entered.');
  return h('section', { class: 'card-box', 'aria-labelledby': 'entrants-head' },
    h('h2', { id: 'entrants-head' }, 'Late arrivals and withdrawals'),
    h('p', { class: 'came' }, `A change counts ${from}: its tables are seated again.`),
    arrived,
    h('label', { for: 'withdraw-member' }, 'Withdraw'), h('div', { class: 'pick-line' }, leaving, withdraw),
    confirm,
    gone.length ? h('p', { class: 'came' }, `Withdrawn: ${gone.map((e) => `${e.name} (${e.until_round ? `played to round ${e.until_round}` : 'played no round'})`).join(', ')}`) : null,
    status);
}

/// A table's join code to hand out: one it has that still opens it for a while
/// (`reusableCode`), else a new one.
/**
 * @param {string} tableId
 * @returns {Promise<{ code: string, expires_at: string }>}
 */
export async function tableCode(tableId) {
  const issued = await get(`/tables/${tableId}/join-codes`, auth());
  return reusableCode(issued, Date.now()) ?? call('POST', `/tables/${tableId}/join-codes`, auth());
}

/// The open round's scorer codes: each table's join code and QR code, big enough to scan from
/// the table, to put on a screen or print (a table a page). A code that still opens its table
/// is handed out again rather than a new one made, so a second visit shows the same codes. The
/// organiser's alone: a board opened with a share link never shows a join code (one opened by
/// the organiser's own sign-in shows them in its round band, board.js).
/**
 * @param {string} id
 * @param {HTMLElement} root
 */
export async function scorerCodes(id, root) {
  const back = `#/tournament/${id}`;
  mount(root, top('Scorer codes', back), message("Finding the tables' codes…"));
  await guarded(root, async () => {
    const t = await get(`/tournaments/${id}`, auth());
    const title = `${t.name}: scorer codes`;
    /** @type {any} */
    const round = currentRound(t.played_rounds);
    if (!round || round.closed_at) {
      mount(root, top(title, back),
        message('No round is playing: the codes are for the tables of a round under way.'),
        h('a', { class: 'button', href: back }, 'Back to the tournament'));
      return;
    }
    const [base, codes] = await Promise.all([publicBase(), Promise.all(round.tables.map((rt) => tableCode(rt.table_id)))]);
    const host = base.replace(/^https?:\/\//, '');
    const until = (/** @type {string} */ at) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    mount(root, top(title, back),
      h('div', { class: 'codes-intro' },
        h('p', { class: 'came' }, `Round ${round.round} of ${t.rounds}: a phone at each table scans its code (or types it at `, h('b', {}, host), ') to score the table.'),
        isLoopback(base)
          ? message('Phones cannot open this address (it is this machine itself): start the server with scripts/serve --lan, or set PUBLIC_URL.', 'warn')
          : null,
        h('div', { class: 'row' },
          button('Print', () => window.print(), { class: 'primary' }),
          h('a', { class: 'button', href: back }, 'Back to the tournament'))),
      h('ul', { class: 'code-sheets', 'aria-label': `Round ${round.round} scorer codes` }, round.tables.map((rt, i) =>
        h('li', { class: 'code-sheet', 'data-number': rt.number, 'data-table': rt.table_id },
          h('h2', {}, `Table ${rt.number}`),
          h('p', { class: 'code-event' }, `${t.name} · round ${round.round}`),
          h('p', { class: 'code-players' }, rt.seats.map((s) => s.name).join(' · ')),
          qrSvg(joinLink(base, codes[i].code), `QR code to score table ${rt.number}`),
          h('p', { class: 'code-line' }, h('span', {}, 'Join code'),
            h('b', { class: 'join-code', 'data-code': codes[i].code }, codes[i].code)),
          h('p', { class: 'code-how' }, `Scan it, or type it at ${host}. Valid until ${until(codes[i].expires_at)}.`)))));
  });
}

/**
 * @param {any} t
 * @param {any[] | null} [reopenings] the session's, beside the final standings
 */
function standingsTable(t, reopenings = null) {
  return h('section', { class: 'card-box', 'aria-labelledby': 'standings-head' },
    h('h2', { id: 'standings-head' }, t.finished_at ? 'Final standings' : 'Standings so far'),
    reopened(reopenings),
    h('div', { class: 'scroll' }, h('table', { class: 'sheet', 'aria-label': 'Standings' },
      h('thead', {}, h('tr', {}, ['Place', 'Player', 'Total', 'Rounds won'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, t.standings.map((s) => h('tr', {},
        h('td', {}, s.place), h('th', { scope: 'row' }, s.name), h('td', {}, totalText(s.total)), h('td', {}, s.rounds_won)))))));
}

/// The session's tournaments, for the session's screen: each with its round, and a way to make one.
/**
 * @param {any} s the session
 * @returns {Promise<HTMLElement>}
 */
export async function sessionTournaments(s) {
  let list = [];
  try {
    list = (await get(`/sessions/${s.id}/tournaments`, auth())).items;
  } catch (err) {
    if (err.status === 401) throw err;
  }
  return h('section', { class: 'card-box', 'aria-labelledby': 'tournaments-head' },
    h('h2', { id: 'tournaments-head' }, 'Tournaments'),
    list.length
      ? h('ul', { class: 'list', 'aria-label': 'Tournaments' }, list.map((t) => {
        const r = currentRound(t.played_rounds);
        const where = t.finished_at ? 'finished' : r ? `round ${r.round} of ${t.rounds}${r.closed_at ? ' closed' : ' playing'}` : 'not started';
        return h('li', {}, h('a', { class: 'button', href: `#/tournament/${t.id}` }, t.name), h('small', {}, `${gameName(t.game)} · ${where}`));
      }))
      : null,
    s.members?.length
      ? h('a', { class: 'button', href: `#/session/${s.id}/tournament` }, 'New tournament')
      : h('p', { class: 'came' }, 'A tournament needs a club session, started by ticking who came.'));
}

// ---- The player's guide card -----------------------------------------------------------------

/// The reading token is the page's (a share link in the address, else the signed-in account).
/**
 * @param {string[]} parts the route: ['guide', tournament, member?]
 * @param {HTMLElement} root
 */
export async function guideRoute(parts, root) {
  const [, id, member] = parts;
  mount(root, message('Loading…'));
  let t;
  try {
    t = await get(`/tournaments/${id}`);
  } catch (err) {
    if (err.status === 401) return signIn(root, 'Sign in to read your guide card.', () => guideRoute(parts, root));
    return mount(root, top('Guide card', '#/'), message(err.message, 'error'));
  }
  if (!member) return pickYourself(t, root);
  try {
    const card = await get(`/tournaments/${id}/guide/${member}`);
    mount(root, top(t.name, `#/guide/${id}`), guideCard(t, card),
      h('a', { class: 'button', href: `#/guide/${id}` }, `Not ${card.name}? Choose yourself`));
  } catch (err) {
    mount(root, top(t.name, `#/guide/${id}`), message(err.message, 'error'));
  }
}

/**
 * @param {any} t
 * @param {HTMLElement} root
 */
function pickYourself(t, root) {
  const entrants = t.entrants.filter((e) => e.until_round == null);
  mount(root, top(t.name, '#/'),
    h('section', { class: 'card-box', 'aria-labelledby': 'pick-head' },
      h('h2', { id: 'pick-head' }, 'Who are you?'),
      h('p', { class: 'came' }, 'Choose your name to see where you sit.'),
      h('ul', { class: 'list pick-yourself', 'aria-label': 'Entrants' }, entrants.map((e) =>
        h('li', {}, h('a', { class: 'button', href: `#/guide/${t.id}/${e.member_id}` }, e.name))))));
}

/// One player's guide card: now (big) and next.
/**
 * @param {any} t the tournament
 * @param {any} card the GuideCard
 * @returns {HTMLElement}
 */
export function guideCard(t, card) {
  const place = (/** @type {any} */ p, /** @type {string} */ when) => h('div', { class: `guide-place guide-${when.toLowerCase()}` },
    h('h3', {}, when),
    h('p', { class: 'guide-text' }, p.text),
    p.table != null ? h('p', { class: 'guide-where', 'aria-hidden': 'true' }, h('span', {}, 'Table ', h('b', {}, p.table)), h('span', {}, 'Seat ', h('b', {}, p.seat))) : null);
  const last = card.now && card.now.round === t.rounds && t.finished_at;
  return h('section', { class: 'card-box guide-card', 'aria-label': `${card.name}'s guide card`, 'data-member': card.member_id },
    h('h2', {}, card.name),
    card.now ? place(card.now, last ? 'Last round' : 'Now') : h('p', { class: 'came' }, 'No round has started yet.'),
    card.next ? place(card.next, 'Next')
      : card.next_pending ? h('p', { class: 'came guide-pending' }, 'Next round: seated from this round\'s results, once it closes.')
        : h('p', { class: 'came' }, t.finished_at ? 'The tournament is over.' : 'No more rounds after this one.'));
}

/// The guide cards of a member in their club's latest session, for the member's own page: the
/// tournaments they play in, each card linkable.
/**
 * @param {string} clubId
 * @param {string} memberId
 * @returns {Promise<HTMLElement | null>}
 */
export async function memberGuides(clubId, memberId) {
  try {
    const page = await get(`/sessions?club_id=${clubId}&limit=1`, auth());
    const s = page.items[0];
    if (!s) return null;
    const mine = (await get(`/sessions/${s.id}/tournaments`, auth())).items
      .filter((t) => !t.finished_at && t.entrants.some((e) => e.member_id === memberId && e.until_round == null));
    if (!mine.length) return null;
    const cards = await Promise.all(mine.map(async (t) => [t, await get(`/tournaments/${t.id}/guide/${memberId}`, auth())]));
    return h('section', { class: 'card-box', 'aria-labelledby': 'guides-head' },
      h('h2', { id: 'guides-head' }, 'Tonight'),
      cards.map(([t, card]) => [h('h3', {}, t.name), guideCard(t, card),
        h('a', { class: 'button', href: `#/guide/${t.id}/${memberId}` }, 'Open the guide card')]));
  } catch {
    return null;
  }
}
