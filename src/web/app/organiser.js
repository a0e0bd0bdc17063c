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
// Built from the catalogue (`GET /games`: each option's name, default and description) and the
// game's options type as the server's OpenAPI document describes it (`<Game>Options`, generated
// from the Rust type): a choice becomes a select, a yes/no a toggle, a number a number field,
// the first dealer the players' names, a rule with settings (trumps, game length) a select of
// rules with their own fields, and an order (trumps) a list reordered with buttons. Nothing is
// typed as JSON and no game is named here.

let spec = null;
async function optionSchemas() {
  if (!spec) spec = await get('/openapi.json').catch(() => ({}));
  return spec?.components?.schemas || {};
}

/// "tricks_plus_ten_for_exact" → "tricks plus ten for exact"; a suit by its symbol and name.
const SUIT_WORDS = { spades: '♠ spades', hearts: '♥ hearts', diamonds: '♦ diamonds', clubs: '♣ clubs', no_trumps: 'no trumps' };
function words(value) {
  return SUIT_WORDS[value] || String(value).replaceAll('_', ' ');
}

/// A schema with `$ref`s and one-element `oneOf`/`allOf` wrappers followed; the outermost
/// description kept.
function resolve(schemas, schema) {
  let s = schema || {};
  let description = s.description;
  for (let i = 0; i < 8; i += 1) {
    if (s.$ref) s = schemas[s.$ref.split('/').pop()] || {};
    else if ((s.oneOf || s.allOf)?.length === 1) s = (s.oneOf || s.allOf)[0];
    else break;
    description = description || s.description;
  }
  return { ...s, description: description || s.description };
}

function typeOf(s) {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  return t;
}

/// One option's control: `read()` gives its value, `node` is what is shown.
function control(schemas, name, schema, value, players, path) {
  const s = resolve(schemas, schema);
  const id = `opt-${path}`;
  const label = name === 'first_dealer' ? 'First dealer' : words(name).replace(/^./, (c) => c.toUpperCase());
  const note = s.description ? h('small', {}, s.description) : null;
  const wrap = (...kids) => h('div', { class: 'option', 'data-option': path }, ...kids);
  // A rule with settings: a select of the rules, then the chosen rule's own fields.
  if (s.discriminator && s.oneOf) {
    const key = s.discriminator.propertyName;
    const variants = Object.entries(s.discriminator.mapping || {});
    const select = h('select', { id }, variants.map(([v]) => h('option', { value: v, selected: value?.[key] === v }, words(v))));
    const fields = h('div', { class: 'option-fields' });
    let inner = [];
    const draw = () => {
      const variant = resolve(schemas, { $ref: (s.discriminator.mapping || {})[select.value] });
      const same = value?.[key] === select.value ? value : {};
      inner = Object.entries(variant.properties || {}).filter(([k]) => k !== key)
        .map(([k, sub]) => [k, control(schemas, k, sub, same[k] ?? sub.example, players, `${path}-${k}`)]);
      mount(fields, inner.map(([, c]) => c.node));
    };
    select.addEventListener('change', draw);
    draw();
    return {
      node: wrap(h('label', { for: id }, label), select, note, fields),
      read: () => Object.fromEntries([[key, select.value], ...inner.map(([k, c]) => [k, c.read()]).filter(([, v]) => v !== undefined)]),
    };
  }
  const items = s.items ? resolve(schemas, s.items) : null;
  // An order of choices (trumps): the list, reordered with buttons.
  if (typeOf(s) === 'array' && items?.enum) {
    const list = h('ol', { class: 'order', 'aria-label': label });
    const row = (v) => {
      const li = h('li', { 'data-value': v }, h('span', {}, words(v)));
      li.append(button('↑', () => { if (li.previousElementSibling) list.insertBefore(li, li.previousElementSibling); relabel(); }, { class: 'small' }));
      return li;
    };
    const relabel = () => [...list.children].forEach((li) => li.querySelector('button').setAttribute('aria-label', `Move ${words(li.dataset.value)} up`));
    (Array.isArray(value) ? value : items.enum).forEach((v) => list.append(row(v)));
    relabel();
    return { node: wrap(h('p', { class: 'option-label' }, label), list, note), read: () => [...list.children].map((li) => li.dataset.value) };
  }
  // Numbers deal by deal (hand sizes): number buttons would not fit; a list of numbers.
  if (typeOf(s) === 'array') {
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
  if (s.enum) {
    const select = h('select', { id }, s.enum.map((v) => h('option', { value: v, selected: v === value }, words(v))));
    return { node: wrap(h('label', { for: id }, label), select, note), read: () => select.value };
  }
  if (typeOf(s) === 'boolean') {
    const box = h('input', { id, type: 'checkbox', role: 'switch', checked: Boolean(value) });
    return { node: wrap(h('label', { for: id, class: 'toggle' }, box, ` ${label}`), note), read: () => box.checked };
  }
  if (name === 'first_dealer') {
    // Seats by the players' names, never numbers from 0.
    const select = h('select', { id });
    const fill = () => {
      const chosen = select.value === '' ? Number(value ?? 0) : Number(select.value);
      mount(select, players().map((p, seat) => h('option', { value: seat, selected: seat === chosen }, p || `Player ${seat + 1}`)));
    };
    fill();
    return { node: wrap(h('label', { for: id }, label), select, note), read: () => Number(select.value), refresh: fill };
  }
  if (typeOf(s) === 'integer' || typeOf(s) === 'number') {
    const input = h('input', { id, type: 'number', inputmode: 'numeric', value: value ?? '', min: s.minimum, max: s.maximum, step: 1 });
    return { node: wrap(h('label', { for: id }, label), input, note), read: () => (input.value === '' ? undefined : Number(input.value)) };
  }
  const input = h('input', { id, autocomplete: 'off', value: value ?? '' });
  return { node: wrap(h('label', { for: id }, label), input, note), read: () => input.value || undefined };
}

/// A value as JSON with its keys sorted, for comparing with a default.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

/// The game's options as controls, each starting at its default.
async function optionControls(game, players) {
  const schemas = await optionSchemas();
  const props = optionsSchema(schemas, game)?.properties || {};
  return game.options.map((opt) => {
    const schema = props[opt.name] || {};
    const c = control(schemas, opt.name, { ...schema, description: schema.description || resolve(schemas, schema).description || opt.description }, opt.default, players, opt.name);
    return { name: opt.name, default: opt.default, ...c };
  });
}

/// `<Game>Options` in the server's document: the schema whose properties are the catalogue's
/// option names (the catalogue and the type are generated from the same Rust type).
function optionsSchema(schemas, game) {
  const names = game.options.map((o) => o.name).sort().join(',');
  return Object.entries(schemas)
    .filter(([k]) => k.endsWith('Options'))
    .map(([, v]) => v)
    .find((v) => Object.keys(v.properties || {}).sort().join(',') === names);
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
      const name = li.querySelector('input').value || `seat ${i}`;
      li.querySelector('input').setAttribute('aria-label', `Player ${i + 1}`);
      li.querySelectorAll('button')[0].setAttribute('aria-label', `Move ${name} up`);
      li.querySelectorAll('button')[1].setAttribute('aria-label', `Remove ${name}`);
    });
    let controls = [];
    const names = () => [...players.querySelectorAll('input')].map((i) => i.value.trim());
    const pick = async () => {
      const g = games.find((x) => x.id === game.value);
      while (players.children.length < g.min_players) players.append(playerRow());
      while (players.children.length > g.max_players) players.lastElementChild.remove();
      relabel();
      controls = await optionControls(g, names);
      mount(options, h('legend', {}, 'Options (defaults shown)'), controls.map((c) => c.node));
    };
    game.addEventListener('change', pick);
    players.addEventListener('input', () => { relabel(); controls.forEach((c) => c.refresh?.()); });
    const form = h('form', { class: 'card-box', 'aria-label': 'New table' },
      h('label', { for: 'game' }, 'Game'), game,
      h('h3', {}, 'Players, in seat order from the first dealer'), players,
      button('Add a player', () => { players.append(playerRow()); relabel(); }),
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

/// The address phones open: the server's PUBLIC_URL when it has one; else this page's own
/// address, unless that is loopback (the organiser's machine itself), which no phone reaches.
async function publicBase() {
  try {
    const info = await get('/info');
    if (info?.public_url) return info.public_url;
  } catch {
    // An older server without /info: the page's address.
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(location.hostname) || location.hostname.startsWith('127.');
  if (loopback) return `${location.protocol}//${location.host}`; // shown with a warning below
  return location.origin;
}

async function joinCode(tableId, root) {
  mount(root, top('Join code', '#/organiser'), message('Minting a join code…'));
  await guarded(root, async () => {
    const table = await get(`/tables/${tableId}`);
    const code = await post(`/tables/${tableId}/join-codes`, undefined, { token: organiser.token });
    const base = await publicBase();
    const link = `${base}/?join=${code.code}`;
    const back = table.session_id ? `#/session/${table.session_id}` : '#/organiser';
    mount(root, top(`${gameName(table.game)}: join code`, back),
      h('section', { class: 'card-box code-box' },
        h('p', {}, table.players.join(' · ')),
        h('p', { class: 'join-code', 'aria-label': 'Join code', 'data-code': code.code }, code.code),
        qrSvg(link),
        /^https?:\/\/(localhost|127\.|\[::1\])/.test(base)
          ? message('Phones cannot open this address (it is this machine itself): start the server with scripts/serve --lan, or set PUBLIC_URL.', 'warn')
          : null,
        h('p', {}, 'Scan to open this table, or type the code at ', h('b', {}, base.replace(/^https?:\/\//, '')), '.'),
        h('p', { class: 'facts' }, `Valid until ${new Date(code.expires_at).toLocaleTimeString()}`),
        h('a', { class: 'button', href: `#/table/${tableId}` }, 'Score this table here'),
        h('a', { class: 'button', href: back }, 'Back to the session')));
  });
}
