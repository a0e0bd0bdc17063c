// @ts-check
// The organiser: sign in or register, sessions, a session's tables at a glance, a new table
// (game from the catalogue, players in seat order, options with their defaults), and a
// table's join code with its QR code.

import { get, organiser, post } from './api.js';
import { button, h, message, mount } from './dom.js';
import { moneyScreen } from './money.js';
import { isLoopback, joinLink, publicBase, qrSvg } from './qr.js';
import { directorScreen } from './rulings.js';
import { gameName } from './table.js';
import { newTournament, scorerCodes, sessionTournaments, tournamentScreen } from './tournaments.js';

export function organiserRoute(parts, root) {
  if (!organiser.token) return signIn(root, null, () => organiserRoute(parts, root));
  if (parts[0] === 'session' && parts[2] === 'new') return newTable(parts[1], root);
  if (parts[0] === 'session' && parts[2] === 'tournament') return newTournament(parts[1], root);
  if (parts[0] === 'session' && parts[2] === 'money') return moneyScreen(parts[1], root);
  if (parts[0] === 'session' && parts[2] === 'director') return directorScreen(parts[1], root, parts[3], parts[4]);
  if (parts[0] === 'tournament' && parts[1] && parts[2] === 'codes') return scorerCodes(parts[1], root);
  if (parts[0] === 'tournament' && parts[1]) return tournamentScreen(parts[1], root);
  if (parts[0] === 'session') return session(parts[1], root);
  if (parts[0] === 'code') return joinCode(parts[1], root);
  return sessions(root);
}

export function top(title, back) {
  return h('header', { class: 'table-head' }, h('div', { class: 'head-line' },
    h('a', { href: back, class: 'back', 'aria-label': 'Back' }, '‹'), h('h1', {}, title),
    button('Sign out', () => { organiser.token = null; location.hash = '#/'; }, { class: 'small' })));
}

export function field(id, label, attrs = {}) {
  return [h('label', { for: id }, label), h('input', { id, name: id, required: true, ...attrs })];
}

export async function guarded(root, body) {
  try {
    await body();
  } catch (err) {
    if (err.status === 401) {
      organiser.token = null;
      return signIn(root, 'Your sign-in has expired: sign in again.',
        () => window.dispatchEvent(new Event('hashchange')));
    }
    root.append(message(err.message, 'error'));
  }
}

/// Sign-in (or registering); then `after` (by default the sessions).
/**
 * @param {HTMLElement} root
 * @param {string | null} [note]
 * @param {() => any} [after] what follows a sign-in (the sessions)
 */
export function signIn(root, note, after = () => sessions(root)) {
  const status = h('div', { 'aria-live': 'polite' }, note ? message(note, 'error') : null);
  const form = h('form', { class: 'card-box', 'aria-label': 'Sign in or register' },
    h('h2', {}, 'Sign in or register'),
    field('email', 'Email', { type: 'email', autocomplete: 'username' }),
    field('password', 'Password', { type: 'password', autocomplete: 'current-password', minlength: 8 }),
    h('details', {}, h('summary', {}, 'New here? Register'),
      field('name', 'Your name', { required: false, autocomplete: 'name' })),
    status,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'primary', value: 'login' }, 'Log in'),
      h('button', { type: 'submit', value: 'register' }, 'Register')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = (id) => form.querySelector(`#${id}`).value;
    const registering = e.submitter?.value === 'register';
    try {
      const body = registering
        ? { email: v('email'), name: v('name') || v('email').split('@')[0], password: v('password') }
        : { email: v('email'), password: v('password') };
      const answer = await post(registering ? '/auth/register' : '/auth/login', body);
      organiser.token = answer.token;
      after();
    } catch (err) {
      mount(status, message(err.message, 'error'));
    }
  });
  mount(root, top('Sign in', '#/'), form);
}

async function sessions(root) {
  if (location.hash !== '#/organiser') history.replaceState(null, '', '#/organiser');
  mount(root, top('Sessions', '#/'), message('Loading…'));
  await guarded(root, async () => {
    const page = await get('/sessions?limit=100', { token: organiser.token });
    const form = h('form', { class: 'card-box row', 'aria-label': 'New session' },
      field('session-name', 'New session', { placeholder: 'Tuesday club night' }),
      h('button', { type: 'submit', class: 'primary' }, 'Create session'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      await guarded(root, async () => {
        const s = await post('/sessions', { name: form.querySelector('#session-name').value }, { token: organiser.token });
        location.hash = `#/session/${s.id}`;
      });
    });
    mount(root, top('Sessions', '#/'),
      h('a', { class: 'button', href: '#/clubs' }, 'Your clubs'),
      form,
      page.items.length
        ? h('ul', { class: 'list', 'aria-label': 'Sessions' }, page.items.map((s) => h('li', {},
          h('a', { href: `#/session/${s.id}`, class: 'button' }, s.name),
          h('small', {}, new Date(s.created_at).toLocaleDateString()))))
        : message('No sessions yet: create one for tonight.'));
  });
}

/// The big screen reads the session with a share link of its own (read-only, for the evening),
/// not with the organiser's token: the screen's browser may be anyone's. The link's address is
/// opened here; the organiser can put it on any screen.
async function bigScreen(id, root) {
  await guarded(root, async () => {
    const link = await post(`/sessions/${id}/share-links`, { label: 'Big screen' }, { token: organiser.token });
    const url = new URL(link.url, location.href);
    location.assign(`${location.origin}/${url.search}${url.hash}`);
  });
}

async function session(id, root) {
  mount(root, top('Session', '#/organiser'), message('Loading…'));
  await guarded(root, async () => {
    const s = await get(`/sessions/${id}`, { token: organiser.token });
    const states = await Promise.all(s.tables.map((t) => get(`/tables/${t.id}`, { token: organiser.token }).catch(() => null)));
    const tournaments = await sessionTournaments(s);
    // A club's session goes back to its club's home, where it was started.
    const back = s.club_id ? `#/club/${s.club_id}` : '#/organiser';
    mount(root, top(s.name, back),
      s.members?.length
        ? h('p', { class: 'came' }, `Who came: ${s.members.map((m) => m.name).join(', ')}`)
        : null,
      h('div', { class: 'row' },
        h('a', { class: 'button primary', href: `#/session/${id}/new` }, 'New table'),
        button('Big screen', () => bigScreen(id, root)),
        h('a', { class: 'button', href: `#/session/${id}/money` }, 'Money'),
        h('a', { class: 'button', href: `#/session/${id}/director` }, 'Director: rulings and flags')),
      tournaments,
      s.tables.length
        ? h('ul', { class: 'tables', 'aria-label': 'Tables' }, s.tables.map((t, i) => {
          const v = states[i]?.state || {};
          const turn = v.to_act != null ? `${t.players[v.to_act]} to act` : '';
          const check = (s.verification || []).find((x) => x.table_id === t.id);
          return h('li', { class: 'table-card' },
            h('h3', {}, `Table ${i + 1}: ${gameName(t.game)}`),
            h('p', {}, t.players.join(' · ')),
            h('p', { class: 'facts' }, [t.finished ? 'finished' : `deal ${v.deal ?? 1}`, turn, `${t.version} entries`].filter(Boolean).join(' · ')),
            check ? h('p', { class: `verification${check.disputed ? ' disputed' : ''}`, 'aria-label': `Table ${i + 1} verification`, 'data-unverified': check.unverified, 'data-disputed': check.disputed },
              check.deals ? `${check.unverified} unverified · ${check.disputed} disputed of ${check.deals} finished` : 'no finished deals yet') : null,
            h('div', { class: 'row' },
              h('a', { class: 'button', href: `#/table/${t.id}`, 'aria-label': `Score table ${i + 1}` }, 'Score'),
              h('a', { class: 'button', href: `#/code/${t.id}`, 'aria-label': `Join code for table ${i + 1}` }, 'Join code')));
        }))
        : message('No tables yet.'));
  });
}

// ---- Table options as controls ---------------------------------------------------------------
// Built from the catalogue alone (`GET /games`: each option's label, description, kind and
// default): a choice becomes a select, a toggle a switch, a number a number field, a seat the
// players' names, a list of numbers a field of numbers, a suit order a list reordered with
// buttons, and a rule (trumps, game length) a select of rules with the chosen rule's own field.
// Every word shown is the catalogue's; nothing is typed as JSON and no game is named here.

/// One control for `kind`: `read()` gives its value, `node` is what is shown.
function control(kind, label, description, value, players, path) {
  const id = `opt-${path}`;
  const note = description ? h('small', {}, description) : null;
  const wrap = (...kids) => h('div', { class: 'option', 'data-option': path }, ...kids);
  switch (kind.type) {
    case 'rule': {
      const select = h('select', { id }, kind.rules.map((r) => h('option', { value: r.value, selected: value?.rule === r.value }, r.label)));
      const fields = h('div', { class: 'option-fields' });
      let inner = null;
      const draw = () => {
        const rule = kind.rules.find((r) => r.value === select.value);
        const f = rule?.field;
        const start = f && value?.rule === select.value ? value[f.name] : f?.default;
        inner = f ? [f.name, control(f.kind, f.label, null, start, players, `${path}-${f.name}`)] : null;
        mount(fields, inner ? [inner[1].node] : []);
      };
      select.addEventListener('change', draw);
      draw();
      return {
        node: wrap(h('label', { for: id }, label), select, note, fields),
        read: () => {
          const v = { rule: select.value };
          if (inner) {
            const inside = inner[1].read();
            if (inside !== undefined) v[inner[0]] = inside;
          }
          return v;
        },
      };
    }
    case 'suit_order': {
      const words = Object.fromEntries(kind.entries.map((e) => [e.value, e.label]));
      const list = h('ol', { class: 'order', 'aria-label': label });
      // The first entry cannot go higher: its ↑ is disabled rather than a button that does nothing.
      const relabel = () => [...list.children].forEach((li, i) => {
        const up = li.querySelector('button');
        up.setAttribute('aria-label', `Move ${words[li.dataset.value]} up`);
        up.disabled = i === 0;
        up.title = i === 0 ? `${words[li.dataset.value]} is first` : '';
      });
      const row = (v) => {
        const li = h('li', { 'data-value': v }, h('span', {}, words[v] ?? v));
        li.append(button('↑', () => { if (li.previousElementSibling) list.insertBefore(li, li.previousElementSibling); relabel(); }, { class: 'small' }));
        return li;
      };
      (Array.isArray(value) ? value : kind.entries.map((e) => e.value)).forEach((v) => list.append(row(v)));
      relabel();
      return { node: wrap(h('p', { class: 'option-label' }, label), list, note), read: () => [...list.children].map((li) => li.dataset.value) };
    }
    case 'numbers': {
      // Numbers deal by deal (hand sizes): number buttons would not fit; a list of numbers.
      const input = h('input', { id, inputmode: 'numeric', autocomplete: 'off', value: Array.isArray(value) ? value.join(', ') : '', placeholder: 'automatic' });
      return {
        node: wrap(h('label', { for: id }, `${label} (numbers separated by commas)`), input, note),
        read: () => {
          const raw = input.value.trim();
          if (!raw) return null;
          return raw.split(/[\s,]+/).filter(Boolean).map(Number);
        },
      };
    }
    case 'choice': {
      const select = h('select', { id }, kind.choices.map((c) => h('option', { value: c.value, selected: c.value === value }, c.label)));
      return { node: wrap(h('label', { for: id }, label), select, note), read: () => select.value };
    }
    case 'toggle': {
      const box = h('input', { id, type: 'checkbox', role: 'switch', checked: Boolean(value) });
      return { node: wrap(h('label', { for: id, class: 'toggle' }, box, ` ${label}`), note), read: () => box.checked };
    }
    case 'seat': {
      // Seats by the players' names, never numbers from 0.
      const select = h('select', { id });
      const fill = () => {
        const chosen = select.value === '' ? Number(value ?? 0) : Number(select.value);
        mount(select, players().map((p, seat) => h('option', { value: seat, selected: seat === chosen }, p || `Player ${seat + 1}`)));
      };
      fill();
      return { node: wrap(h('label', { for: id }, label), select, note), read: () => Number(select.value), refresh: fill };
    }
    default: {
      // A number (and anything newer than this page, offered as a number): left empty, the
      // game works it out when its default is null.
      const input = h('input', { id, type: 'number', inputmode: 'numeric', value: value ?? '', min: kind.min, max: kind.max, step: 1, placeholder: value == null ? 'automatic' : '' });
      return { node: wrap(h('label', { for: id }, label), input, note), read: () => (input.value === '' ? undefined : Number(input.value)) };
    }
  }
}

/// A value as JSON with its keys sorted, for comparing with a default.
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

/// The game's options as controls, each starting at its default.
export function optionControls(game, players) {
  return game.options.map((opt) => {
    const c = control(opt.kind, opt.label, opt.description, opt.default, players, opt.name);
    return { name: opt.name, default: opt.default, ...c };
  });
}

/// A seat's member id (`members` in the table body) from a roster entry: the club member's id,
/// which the session view gives as `id` (`roster_id` is what its tables' `members` name).
function memberId(m) {
  return m.id;
}

async function newTable(sessionId, root) {
  mount(root, top('New table', `#/session/${sessionId}`), message('Loading…'));
  await guarded(root, async () => {
    const [games, sessionView] = await Promise.all([get('/games'), get(`/sessions/${sessionId}`, { token: organiser.token })]);
    // A session with a roster (a club's, started by ticking who came) seats its members: each
    // seat is chosen from them, never typed, so a player is the same member at every table.
    const roster = sessionView.members || [];
    const game = h('select', { id: 'game' }, games.map((g) => h('option', { value: g.id }, `${g.name} (${g.min_players}–${g.max_players})`)));
    const players = h('ol', { class: 'players', 'aria-label': 'Players in seat order' });
    const options = h('fieldset', {}, h('legend', {}, 'Options'));
    const status = h('div', { 'aria-live': 'polite' });
    const seatOf = (li) => li.firstElementChild;
    const nameAt = (li) => {
      const el = seatOf(li);
      if (el.tagName === 'SELECT') return el.value ? el.selectedOptions[0].textContent : '';
      return el.value.trim();
    };
    // `typed`: a seat for someone not on the roster, by name (the server finds or enters them).
    const playerRow = (value = '', typed = false) => {
      const li = h('li', {});
      const input = roster.length && !typed
        ? h('select', { required: true },
          h('option', { value: '' }, 'Choose who sits here'),
          roster.map((m) => h('option', { value: memberId(m), selected: memberId(m) === value }, m.name)))
        : h('input', { value, required: true, autocomplete: 'off' });
      const up = button('↑', () => {
        if (li.previousElementSibling) players.insertBefore(li, li.previousElementSibling);
        relabel();
        controls.forEach((c) => c.refresh?.());
      }, { class: 'small' });
      const remove = button('✕', () => { li.remove(); relabel(); controls.forEach((c) => c.refresh?.()); }, { class: 'small' });
      li.append(input, up, remove);
      return li;
    };
    const relabel = () => [...players.children].forEach((li, i) => {
      const name = nameAt(li) || `seat ${i + 1}`;
      seatOf(li).setAttribute('aria-label', `Player ${i + 1}`);
      li.querySelectorAll('button')[0].setAttribute('aria-label', `Move ${name} up`);
      li.querySelectorAll('button')[0].disabled = i === 0;
      li.querySelectorAll('button')[1].setAttribute('aria-label', `Remove ${name}`);
    });
    let controls = [];
    const names = () => [...players.children].map(nameAt);
    const pick = async () => {
      const g = games.find((x) => x.id === game.value);
      while (players.children.length < g.min_players) players.append(playerRow());
      while (players.children.length > g.max_players) players.lastElementChild.remove();
      relabel();
      controls = optionControls(g, names);
      mount(options, h('legend', {}, 'Options (defaults shown)'), controls.map((c) => c.node));
    };
    game.addEventListener('change', pick);
    players.addEventListener('input', () => { relabel(); controls.forEach((c) => c.refresh?.()); });
    players.addEventListener('change', () => { relabel(); controls.forEach((c) => c.refresh?.()); });
    const form = h('form', { class: 'card-box', 'aria-label': 'New table' },
      h('label', { for: 'game' }, 'Game'), game,
      h('h3', {}, 'Players, in seat order from the first dealer'),
      roster.length ? h('p', { class: 'came' }, `From who came: ${roster.map((m) => m.name).join(', ')}`) : null,
      players,
      h('div', { class: 'row' },
        button('Add a player', () => { players.append(playerRow()); relabel(); }),
        roster.length ? button('Add someone by name', () => { players.append(playerRow('', true)); relabel(); }) : null),
      options, status,
      h('button', { type: 'submit', class: 'primary' }, 'Open the table'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      // Only what differs from the default is sent: the server fills in the rest.
      const chosen = {};
      for (const c of controls) {
        const value = c.read();
        if (value === undefined || canonical(value) === canonical(c.default)) continue;
        chosen[c.name] = value;
      }
      const body = { game: game.value, players: names(), options: chosen, session_id: sessionId };
      if (roster.length) {
        const seated = [...players.children].map((li) => (seatOf(li).tagName === 'SELECT' ? seatOf(li).value : null));
        const twice = seated.find((id, i) => id && seated.indexOf(id) !== i);
        if (twice) {
          const who = roster.find((m) => memberId(m) === twice)?.name ?? 'A member';
          return mount(status, message(`${who} sits twice: choose someone else for one seat.`, 'error'));
        }
        // Only the seats chosen from the roster are named; a seat typed by name is left out.
        body.members = seated.flatMap((member, seat) => (member ? [{ seat, member }] : []));
      }
      try {
        const t = await post('/tables', body, { token: organiser.token });
        location.hash = `#/code/${t.id}`;
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    // Seats start with who came and sits at no table of the session yet (everyone once all do),
    // four at most: a second table of the evening starts with the rest.
    const seated = new Set(sessionView.tables.flatMap((t) => t.players));
    const free = roster.filter((m) => !seated.has(m.name));
    if (roster.length) (free.length ? free : roster).slice(0, 4).forEach((m) => players.append(playerRow(memberId(m))));
    else ['Ann', 'Bob', 'Cat', 'Dan'].forEach((p) => players.append(playerRow(p)));
    mount(root, top('New table', `#/session/${sessionId}`), form);
    pick();
  });
}

async function joinCode(tableId, root) {
  mount(root, top('Join code', '#/organiser'), message('Minting a join code…'));
  await guarded(root, async () => {
    const table = await get(`/tables/${tableId}`, { token: organiser.token });
    const code = await post(`/tables/${tableId}/join-codes`, undefined, { token: organiser.token });
    const base = await publicBase();
    const link = joinLink(base, code.code);
    const back = table.session_id ? `#/session/${table.session_id}` : '#/organiser';
    mount(root, top(`${gameName(table.game)}: join code`, back),
      h('section', { class: 'card-box code-box' },
        h('p', {}, table.players.join(' · ')),
        h('p', { class: 'join-code', 'aria-label': 'Join code', 'data-code': code.code }, code.code),
        qrSvg(link),
        isLoopback(base)
          ? message('Phones cannot open this address (it is this machine itself): start the server with scripts/serve --lan, or set PUBLIC_URL.', 'warn')
          : null,
        h('p', {}, 'Scan to open this table, or type the code at ', h('b', {}, base.replace(/^https?:\/\//, '')), '.'),
        h('p', { class: 'facts' }, `Valid until ${new Date(code.expires_at).toLocaleTimeString()}`),
        h('a', { class: 'button', href: `#/table/${tableId}` }, 'Score this table here'),
        h('a', { class: 'button', href: back }, 'Back to the session')));
  });
}
