// @ts-check
// The phone page: start (join a table, organiser sign-in), the organiser's screens and the
// table. Hash routes: #/ · #/sign-in (anyone's sign-in or registering) · #/organiser · #/session/<id> · #/session/<id>/new · #/session/<id>/money (the settle-up) · #/code/<table> · #/table/<id> · #/table/<id>/assign/<deal> (a director's assigned ruling)
// · #/board/<session> (the big screen) · #/tournament/<id> · #/tournament/<id>/codes · #/guide/<tournament>[/<member>] · #/clubs · #/club/<id> · #/club/<id>/start · #/club/<id>/members.
// A QR code opens /?join=CODE: the start screen with the code filled in.

import { organiser, phone, post, setScorerToken } from './api.js';
import { clubRoute } from './clubs.js';
import { h, message, mount } from './dom.js';
import { organiserRoute, signIn } from './organiser.js';
import { openBoard } from './board.js';
import { openTable } from './table.js';
import { guideRoute } from './tournaments.js';

const app = /** @type {HTMLElement} */ (document.getElementById('app'));

/// Each route draws into a screen of its own. A screen left behind keeps drawing when its reads
/// answer (or its stream speaks), but into an element no longer on the page: never over the
/// screen that replaced it (a join code minted after a tap on Back once covered the new screen).
function screen() {
  return mount(app, h('div', { class: 'screen' })).firstElementChild;
}

function start(root, note) {
  const params = new URLSearchParams(location.search);
  const code = h('input', {
    id: 'join-code', name: 'code', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
    maxlength: 9, inputmode: 'text', required: true, value: params.get('join') || '', placeholder: 'K7QPM2XD',
  });
  const name = h('input', { id: 'phone-name', name: 'phone', autocomplete: 'off', required: true, value: phone.name, placeholder: "Ann's phone" });
  const status = h('div', { 'aria-live': 'polite' }, note ? message(note, 'error') : null);
  const form = h('form', { class: 'card-box', 'aria-label': 'Join a table', onsubmit: join },
    h('h2', {}, 'Join a table'),
    h('label', { for: 'join-code' }, 'Join code'), code,
    h('label', { for: 'phone-name' }, "This phone's name"), name,
    status,
    h('button', { type: 'submit', class: 'primary' }, 'Join'));
  async function join(e) {
    e.preventDefault();
    phone.name = name.value.trim();
    try {
      const answer = await post('/auth/join', { code: code.value.trim().toUpperCase(), name: phone.name || undefined });
      setScorerToken(answer.subject, answer.token);
      history.replaceState(null, '', `/#/table/${answer.subject}`);
      route();
    } catch (err) {
      mount(status, message(err.message, 'error'));
    }
  }
  mount(root,
    h('header', { class: 'brand' }, h('img', { src: '/app/icon.svg', alt: '', width: 40, height: 40 }), h('h1', {}, 'Tablekeeper')),
    form,
    // One account for organisers, treasurers and club members alike: signed in, the sessions
    // and the clubs are a tap away (a member joins a club there with an invitation code).
    organiser.token
      ? h('section', { class: 'card-box', 'aria-labelledby': 'account-head' }, h('h2', { id: 'account-head' }, 'Your account'),
        h('a', { class: 'button', href: '#/organiser' }, 'Your sessions'),
        h('a', { class: 'button', href: '#/clubs' }, 'Your clubs'))
      : h('section', { class: 'card-box', 'aria-labelledby': 'account-head' }, h('h2', { id: 'account-head' }, 'Members and organisers'),
        h('p', { class: 'why' }, 'Club members, treasurers and organisers sign in here; new here, register.'),
        h('a', { class: 'button', href: '#/sign-in' }, 'Sign in / register')));
  if (!code.value) code.focus();
}

export function route() {
  const root = /** @type {HTMLElement} */ (screen());
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] === 'table' && parts[1]) {
    const deal = parts[2] === 'assign' ? Number(parts[3]) : NaN;
    return openTable(parts[1], root, Number.isInteger(deal) && deal > 0 ? deal : null);
  }
  if (parts[0] === 'board' && parts[1]) return openBoard(parts[1], root);
  // Anyone's sign-in (or registering), then the start screen with their sessions and clubs.
  if (parts[0] === 'sign-in') {
    if (!organiser.token) return signIn(root, null, () => { location.hash = '#/'; });
    history.replaceState(null, '', '#/');
    return start(root);
  }
  if (parts[0] === 'guide' && parts[1]) return guideRoute(parts, root);
  if (['organiser', 'session', 'code', 'tournament'].includes(parts[0])) return organiserRoute(parts, root);
  if (['clubs', 'club'].includes(parts[0])) return clubRoute(parts, root);
  return start(root);
}

window.addEventListener('hashchange', route);
route();

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch(() => { /* the page works without it */ });
}
