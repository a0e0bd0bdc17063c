// @ts-check
// The clubs: the account's clubs (make one, join one by an invitation's code), a club's home
// (its season's table, the next and last sessions, its members) and starting a session by
// ticking who came. Members, invitations and roles are members.js.
// Hash routes: #/clubs · #/club/<id> · #/club/<id>/start · #/club/<id>/members ·
// #/club/<id>/member/<member id> (a member's history).

import { get, organiser, post } from './api.js';
import { button, h, message, mount } from './dom.js';
import { memberScreen, membersScreen, runs } from './members.js';
import { field, guarded, signIn, top } from './organiser.js';
import { gameName } from './table.js';

export function clubRoute(parts, root) {
  if (!organiser.token) return signIn(root, null, () => clubRoute(parts, root));
  const id = parts[1];
  if (parts[0] === 'club' && id && parts[2] === 'start') return startSession(id, root);
  if (parts[0] === 'club' && id && parts[2] === 'members') return membersScreen(id, root);
  if (parts[0] === 'club' && id && parts[2] === 'member' && parts[3]) return memberScreen(id, parts[3], root);
  if (parts[0] === 'club' && id) return home(id, root);
  return clubs(root);
}

const auth = () => ({ token: organiser.token });

async function clubs(root) {
  mount(root, top('Clubs', '#/organiser'), message('Loading…'));
  await guarded(root, async () => {
    const page = await get('/clubs?limit=100', auth());
    const status = h('div', { 'aria-live': 'polite' });
    const make = h('form', { class: 'card-box', 'aria-label': 'New club' },
      field('club-name', 'New club', { placeholder: 'Thursday Whist Club', maxlength: 100 }),
      h('button', { type: 'submit', class: 'primary' }, 'Create club'));
    make.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        const club = await post('/clubs', { name: make.querySelector('#club-name').value.trim() }, auth());
        location.hash = `#/club/${club.id}`;
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    const join = h('form', { class: 'card-box', 'aria-label': 'Join a club' },
      field('invitation-code', 'Invitation code', { autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false' }),
      h('button', { type: 'submit' }, 'Join the club'));
    join.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        const code = join.querySelector('#invitation-code').value.trim().toUpperCase();
        const club = await post('/clubs/join', { code }, auth());
        location.hash = `#/club/${club.id}`;
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    mount(root, top('Clubs', '#/organiser'),
      page.items.length
        ? h('ul', { class: 'list', 'aria-label': 'Your clubs' }, page.items.map((c) => h('li', {},
          h('a', { href: `#/club/${c.id}`, class: 'button' }, c.name),
          h('small', {}, `You are its ${c.role}`))))
        : message('You belong to no club yet: make one, or join one with an invitation code.'),
      status, make, join);
  });
}

/// The season whose dates hold today, else the latest to start.
function currentSeason(seasons) {
  const today = new Date().toISOString().slice(0, 10);
  const sorted = [...seasons].sort((a, b) => (a.starts < b.starts ? 1 : -1));
  return sorted.find((s) => s.starts <= today && today <= s.ends) ?? sorted[0] ?? null;
}

/// The figure a season ranks by, from its scoring: [heading, row → value].
/**
 * @param {any} season
 * @returns {[string, (row: any) => any]}
 */
function seasonFigure(season) {
  switch (season.scoring?.kind) {
    case 'net_chips': return ['Chips', (r) => r.net_chips];
    case 'points': return ['Points', (r) => r.points];
    // Tied seats share their places' points: halves and thirds are shown as such.
    default: return ['League points', (r) => (r.league_points == null ? null : Number(r.league_points.toFixed(2)))];
  }
}

/// The club's current season as a table, or null when the club has none (or the server keeps no
/// seasons).
async function seasonSection(clubId) {
  let seasons;
  try {
    seasons = (await get(`/clubs/${clubId}/seasons?limit=100`, auth())).items;
  } catch (err) {
    if (err.status === 404 || err.status === 403) return null;
    throw err;
  }
  const season = currentSeason(seasons);
  if (!season) return h('section', { class: 'card-box', 'aria-labelledby': 'season-head' },
    h('h2', { id: 'season-head' }, 'Season'), message('No season yet.'));
  const standings = await get(`/clubs/${clubId}/seasons/${season.id}/standings`, auth());
  const [heading, figure] = seasonFigure(season);
  const rows = standings.rows || [];
  return h('section', { class: 'card-box', 'aria-labelledby': 'season-head' },
    h('h2', { id: 'season-head' }, `Season: ${season.name}`),
    h('p', { class: 'came' }, `${season.starts} to ${season.ends}`),
    rows.length
      ? h('div', { class: 'scroll' }, h('table', { class: 'sheet league', 'aria-label': `${season.name} standings` },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Place'), h('th', { scope: 'col' }, 'Member'),
          h('th', { scope: 'col' }, 'Nights'), h('th', { scope: 'col' }, heading))),
        h('tbody', {}, rows.map((r) => h('tr', {},
          h('td', {}, r.place), h('th', { scope: 'row' }, r.name), h('td', {}, r.nights), h('td', {}, figure(r) ?? '–'))))))
      : message('Nobody has played in this season yet.'));
}

/// A session as the club's home shows it: who came, its tables and how far they are.
function sessionCard(heading, s) {
  const date = new Date(s.created_at).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
  return h('section', { class: 'card-box', 'aria-label': heading },
    h('h2', {}, heading),
    h('h3', {}, `${s.name} · ${date}`),
    s.members?.length ? h('p', { class: 'came' }, `Who came: ${s.members.map((m) => m.name).join(', ')}`) : null,
    s.tables.length
      ? h('ul', { class: 'list', 'aria-label': `${heading}: tables` }, s.tables.map((t, i) => h('li', { class: 'club-table' },
        h('span', {}, h('b', {}, `Table ${i + 1}: ${gameName(t.game)}`), ` · ${t.finished ? 'finished' : 'playing'}`),
        h('span', { class: 'came' }, t.players.join(' · ')))))
      : message('No tables yet.'),
    h('a', { class: 'button', href: `#/session/${s.id}` }, `Open ${s.name}`));
}

/// The next session (the newest, while it has no tables or some still play) and the last one.
function nextAndLast(sessions) {
  const [newest, ...rest] = sessions;
  if (!newest) return [null, null];
  const open = !newest.tables.length || newest.tables.some((t) => !t.finished);
  return open ? [newest, rest[0] ?? null] : [null, newest];
}

async function home(id, root) {
  mount(root, top('Club', '#/clubs'), message('Loading…'));
  await guarded(root, async () => {
    const [club, members] = await Promise.all([get(`/clubs/${id}`, auth()), get(`/clubs/${id}/members?limit=100`, auth())]);
    // Each section stands alone: one the server refuses says so in its place, the rest is shown.
    const alone = (what) => what.catch((err) => {
      if (err.status === 401) throw err;
      return h('section', { class: 'card-box' }, message(err.message, 'error'));
    });
    const [season, sessions] = await Promise.all([
      alone(seasonSection(id)),
      alone(get(`/sessions?club_id=${id}&limit=2`, auth())
        .then((page) => Promise.all(page.items.map((s) => get(`/sessions/${s.id}`, auth()))))),
    ]);
    const [next, last] = Array.isArray(sessions) ? nextAndLast(sessions) : [null, null];
    const active = members.items.filter((m) => m.active !== false);
    mount(root, top(club.name, '#/clubs'),
      h('p', { class: 'came' }, `You are its ${club.role}.`),
      runs(club.role)
        ? h('div', { class: 'row' },
          h('a', { class: 'button primary', href: `#/club/${id}/start` }, 'Start a session'),
          h('a', { class: 'button', href: `#/club/${id}/members` }, 'Members and invitations'))
        : null,
      season,
      next ? sessionCard('Next session', next) : null,
      last ? sessionCard('Last session', last) : null,
      Array.isArray(sessions) ? null : sessions,
      Array.isArray(sessions) && !next && !last ? message('No sessions yet.') : null,
      h('section', { class: 'card-box', 'aria-labelledby': 'members-head' },
        h('h2', { id: 'members-head' }, `Members (${active.length})`),
        h('ul', { class: 'chips', 'aria-label': 'Members' }, active.map((m) => h('li', {},
          h('a', { href: `#/club/${id}/member/${m.id}`, 'aria-label': `${m.name}'s history` }, m.name),
          m.guest ? h('small', {}, ' (guest)') : null)))));
  });
}

async function startSession(id, root) {
  mount(root, top('Start a session', `#/club/${id}`), message('Loading…'));
  await guarded(root, async () => {
    const [club, members] = await Promise.all([get(`/clubs/${id}`, auth()), get(`/clubs/${id}/members?limit=100`, auth())]);
    const status = h('div', { 'aria-live': 'polite' });
    const count = h('p', { class: 'came', 'aria-live': 'polite' });
    const ticks = h('div', { class: 'checks who-came' });
    const tickRow = (m, checked = false) => h('label', { class: 'tick' },
      h('input', { type: 'checkbox', value: m.id, checked }),
      h('span', {}, m.name), m.guest ? h('small', {}, ' (guest)') : null);
    const recount = () => {
      const n = ticks.querySelectorAll('input:checked').length;
      count.textContent = n === 1 ? '1 ticked' : `${n} ticked`;
    };
    members.items.filter((m) => m.active !== false).forEach((m) => ticks.append(tickRow(m)));
    ticks.addEventListener('change', recount);
    recount();
    const today = new Date().toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
    // A guest who turns up unannounced joins the club's list as a guest and is ticked at once.
    const guestName = h('input', { id: 'guest-name', autocomplete: 'off', maxlength: 100 });
    const addGuest = button('Add the guest', async () => {
      const name = guestName.value.trim();
      if (!name) return mount(status, message('Type the guest\'s name first.', 'error'));
      try {
        const m = await post(`/clubs/${id}/members`, { name, guest: true }, auth());
        ticks.append(tickRow(m, true));
        guestName.value = '';
        recount();
        mount(status, message(`${m.name} added as a guest and ticked.`, 'ok'));
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    const form = h('form', { class: 'card-box', 'aria-label': 'Start a session' },
      field('session-name', 'Session name', { value: `${club.name}, ${today}`, maxlength: 200 }),
      h('fieldset', {}, h('legend', {}, 'Who came'), ticks, count),
      h('div', { class: 'guest-row' }, h('label', { for: 'guest-name' }, 'A guest who came'), guestName, addGuest),
      status,
      h('button', { type: 'submit', class: 'primary' }, 'Start the session'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const came = [...ticks.querySelectorAll('input:checked')].map((i) => i.value);
      if (!came.length) return mount(status, message('Tick who came first.', 'error'));
      try {
        const s = await post('/sessions', { name: form.querySelector('#session-name').value.trim(), club_id: id, members: came }, auth());
        location.hash = `#/session/${s.id}`;
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    mount(root, top('Start a session', `#/club/${id}`), h('p', { class: 'came' }, club.name), form);
  });
}
