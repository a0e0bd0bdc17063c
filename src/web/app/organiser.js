// The organiser: sign in or register, sessions, a session's tables at a glance, a new table
// (game from the catalogue, players in seat order, options with their defaults), and a
// table's join code with its QR code.

import { get, organiser, post } from './api.js';
import { button, h, message, mount } from './dom.js';
import { gameName } from './table.js';
import qrcode from './vendor/qrcode.mjs';

export function organiserRoute(parts, root) {
  if (!organiser.token) return signIn(root);
  if (parts[0] === 'session' && parts[2] === 'new') return newTable(parts[1], root);
  if (parts[0] === 'session') return session(parts[1], root);
  if (parts[0] === 'code') return joinCode(parts[1], root);
  return sessions(root);
}

function top(title, back) {
  return h('header', { class: 'table-head' }, h('div', { class: 'head-line' },
    h('a', { href: back, class: 'back', 'aria-label': 'Back' }, '‹'), h('h1', {}, title),
    button('Sign out', () => { organiser.token = null; location.hash = '#/'; }, { class: 'small' })));
}

function field(id, label, attrs = {}) {
  return [h('label', { for: id }, label), h('input', { id, name: id, required: true, ...attrs })];
}

async function guarded(root, body) {
  try {
    await body();
  } catch (err) {
    if (err.status === 401) {
      organiser.token = null;
      return signIn(root, 'Your sign-in has expired: sign in again.');
    }
    root.append(message(err.message, 'error'));
  }
}

function signIn(root, note) {
  const status = h('div', { 'aria-live': 'polite' }, note ? message(note, 'error') : null);
  const form = h('form', { class: 'card-box', 'aria-label': 'Organiser sign-in' },
    h('h2', {}, 'Organiser sign-in'),
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
      sessions(root);
    } catch (err) {
      mount(status, message(err.message, 'error'));
    }
  });
  mount(root, top('Organiser', '#/'), form);
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
    mount(root, top('Sessions', '#/'), form,
      page.items.length
        ? h('ul', { class: 'list', 'aria-label': 'Sessions' }, page.items.map((s) => h('li', {},
          h('a', { href: `#/session/${s.id}`, class: 'button' }, s.name),
          h('small', {}, new Date(s.created_at).toLocaleDateString()))))
        : message('No sessions yet: create one for tonight.'));
  });
}

async function session(id, root) {
  mount(root, top('Session', '#/organiser'), message('Loading…'));
  await guarded(root, async () => {
    const s = await get(`/sessions/${id}`, { token: organiser.token });
    const states = await Promise.all(s.tables.map((t) => get(`/tables/${t.id}`).catch(() => null)));
    mount(root, top(s.name, '#/organiser'),
      h('div', { class: 'row' },
        h('a', { class: 'button primary', href: `#/session/${id}/new` }, 'New table'),
        h('a', { class: 'button', href: `#/board/${id}` }, 'Big screen')),
      s.tables.length
        ? h('ul', { class: 'tables', 'aria-label': 'Tables' }, s.tables.map((t, i) => {
          const v = states[i]?.state || {};
          const turn = v.to_act != null ? `${t.players[v.to_act]} to act` : '';
          return h('li', { class: 'table-card' },
            h('h3', {}, `Table ${i + 1}: ${gameName(t.game)}`),
            h('p', {}, t.players.join(' · ')),
            h('p', { class: 'facts' }, [t.finished ? 'finished' : `deal ${v.deal ?? 1}`, turn, `${t.version} entries`].filter(Boolean).join(' · ')),
            h('div', { class: 'row' },
              h('a', { class: 'button', href: `#/table/${t.id}`, 'aria-label': `Score table ${i + 1}` }, 'Score'),
              h('a', { class: 'button', href: `#/code/${t.id}`, 'aria-label': `Join code for table ${i + 1}` }, 'Join code')));
        }))
        : message('No tables yet.'));
  });
}

function optionInput(opt) {
  const id = `opt-${opt.name}`;
  const value = opt.default === null ? '' : typeof opt.default === 'string' ? opt.default : JSON.stringify(opt.default);
  return h('div', { class: 'option' },
    h('label', { for: id }, opt.name.replaceAll('_', ' ')),
    h('input', { id, 'data-option': opt.name, 'data-default': value, value, placeholder: opt.default === null ? 'automatic' : '', autocomplete: 'off', spellcheck: 'false' }),
    h('small', {}, opt.description));
}

async function newTable(sessionId, root) {
  mount(root, top('New table', `#/session/${sessionId}`), message('Loading…'));
  await guarded(root, async () => {
    const games = await get('/games');
    const game = h('select', { id: 'game' }, games.map((g) => h('option', { value: g.id }, `${g.name} (${g.min_players}–${g.max_players})`)));
    const players = h('ol', { class: 'players', 'aria-label': 'Players in seat order' });
    const options = h('fieldset', {}, h('legend', {}, 'Options'));
    const status = h('div', { 'aria-live': 'polite' });
    const playerRow = (value = '') => {
      const li = h('li', {});
      const input = h('input', { value, required: true, autocomplete: 'off' });
      const up = button('↑', () => li.previousElementSibling && players.insertBefore(li, li.previousElementSibling), { class: 'small' });
      const remove = button('✕', () => { li.remove(); relabel(); }, { class: 'small' });
      li.append(input, up, remove);
      return li;
    };
    const relabel = () => [...players.children].forEach((li, i) => {
      const name = li.querySelector('input').value || `seat ${i}`;
      li.querySelector('input').setAttribute('aria-label', `Player ${i + 1}`);
      li.querySelectorAll('button')[0].setAttribute('aria-label', `Move ${name} up`);
      li.querySelectorAll('button')[1].setAttribute('aria-label', `Remove ${name}`);
    });
    const pick = () => {
      const g = games.find((x) => x.id === game.value);
      while (players.children.length < g.min_players) players.append(playerRow());
      while (players.children.length > g.max_players) players.lastElementChild.remove();
      relabel();
      mount(options, h('legend', {}, 'Options (defaults shown)'), g.options.map(optionInput));
    };
    game.addEventListener('change', pick);
    players.addEventListener('input', relabel);
    const form = h('form', { class: 'card-box', 'aria-label': 'New table' },
      h('label', { for: 'game' }, 'Game'), game,
      h('h3', {}, 'Players, in seat order from the first dealer'), players,
      button('Add a player', () => { players.append(playerRow()); relabel(); }),
      options, status,
      h('button', { type: 'submit', class: 'primary' }, 'Open the table'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const chosen = {};
      for (const input of options.querySelectorAll('input[data-option]')) {
        if (input.value === input.dataset.default) continue;
        const raw = input.value.trim();
        if (!raw) continue;
        try { chosen[input.dataset.option] = JSON.parse(raw); } catch { chosen[input.dataset.option] = raw; }
      }
      try {
        const t = await post('/tables', {
          game: game.value,
          players: [...players.querySelectorAll('input')].map((i) => i.value.trim()),
          options: chosen,
          session_id: sessionId,
        }, { token: organiser.token });
        location.hash = `#/code/${t.id}`;
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    });
    ['Ann', 'Bob', 'Cat', 'Dan'].forEach((p) => players.append(playerRow(p)));
    mount(root, top('New table', `#/session/${sessionId}`), form);
    pick();
  });
}

/// The QR code as an SVG element drawn from the vendored generator's modules.
function qrSvg(text) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `-4 -4 ${n + 8} ${n + 8}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `QR code for ${text}`);
  let d = '';
  for (let r = 0; r < n; r += 1) for (let c = 0; c < n; c += 1) if (qr.isDark(r, c)) d += `M${c} ${r}h1v1h-1z`;
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('x', -4); bg.setAttribute('y', -4); bg.setAttribute('width', n + 8); bg.setAttribute('height', n + 8); bg.setAttribute('fill', '#fff');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(bg, path);
  return svg;
}

async function joinCode(tableId, root) {
  mount(root, top('Join code', '#/organiser'), message('Minting a join code…'));
  await guarded(root, async () => {
    const table = await get(`/tables/${tableId}`);
    const code = await post(`/tables/${tableId}/join-codes`, undefined, { token: organiser.token });
    const link = `${location.origin}/?join=${code.code}`;
    const back = table.session_id ? `#/session/${table.session_id}` : '#/organiser';
    mount(root, top(`${gameName(table.game)}: join code`, back),
      h('section', { class: 'card-box code-box' },
        h('p', {}, table.players.join(' · ')),
        h('p', { class: 'join-code', 'aria-label': 'Join code', 'data-code': code.code }, code.code),
        qrSvg(link),
        h('p', {}, 'Scan to open this table, or type the code at ', h('b', {}, location.host), '.'),
        h('p', { class: 'facts' }, `Valid until ${new Date(code.expires_at).toLocaleTimeString()}`),
        h('a', { class: 'button', href: `#/table/${tableId}` }, 'Score this table here'),
        h('a', { class: 'button', href: back }, 'Back to the session')));
  });
}
