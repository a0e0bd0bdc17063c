// @ts-check
// A join code made scannable, shared by the screens that show one (a table's join code, a
// round's scorer codes): the QR code drawn as SVG from the vendored generator, and the address
// a phone opens.

import { get } from './api.js';
import qrcode from './vendor/qrcode.mjs';

/// The QR code as an SVG element drawn from the vendored generator's modules.
/**
 * @param {string} text what it encodes (a join link)
 * @param {string} [label] its accessible name
 * @returns {SVGSVGElement}
 */
export function qrSvg(text, label = `QR code for ${text}`) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `-4 -4 ${n + 8} ${n + 8}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  let d = '';
  for (let r = 0; r < n; r += 1) for (let c = 0; c < n; c += 1) if (qr.isDark(r, c)) d += `M${c} ${r}h1v1h-1z`;
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('x', '-4'); bg.setAttribute('y', '-4'); bg.setAttribute('width', String(n + 8)); bg.setAttribute('height', String(n + 8)); bg.setAttribute('fill', '#fff');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(bg, path);
  return svg;
}

/// The address phones open: the server's PUBLIC_URL when it has one; else this page's own
/// address, unless that is loopback (the organiser's machine itself), which no phone reaches.
/** @returns {Promise<string>} */
export async function publicBase() {
  try {
    const info = await get('/info');
    if (info?.public_url) return info.public_url;
  } catch {
    // An older server without /info: the page's address.
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(location.hostname) || location.hostname.startsWith('127.');
  if (loopback) return `${location.protocol}//${location.host}`; // the screens showing it warn (`isLoopback`)
  return location.origin;
}

/// The address a phone opens to join with `code`: the start screen with the code filled in.
/**
 * @param {string} base from `publicBase`
 * @param {string} code
 * @returns {string}
 */
export function joinLink(base, code) {
  return `${base}/?join=${code}`;
}

/// Whether `base` is this machine itself, which no phone reaches.
/** @param {string} base */
export function isLoopback(base) {
  return /^https?:\/\/(localhost|127\.|\[::1\])/.test(base);
}

/// How long a join code must still open its table to be handed out again (codes last 12
/// hours): a code shown for a round does not run out during it.
export const REUSE_FOR_MS = 60 * 60_000;

/// The join code to hand out again from a table's issued codes (`GET /tables/{id}/join-codes`,
/// newest first): the newest that opens the table (`active`: neither expired nor withdrawn)
/// for `REUSE_FOR_MS` more at least; null when there is none and a new one is to be made.
/**
 * @template {{ active: boolean, expires_at: string }} C
 * @param {C[]} issued
 * @param {number} now ms since the epoch
 * @returns {C | null}
 */
export function reusableCode(issued, now) {
  return issued.find((code) => code.active && Date.parse(code.expires_at) - now >= REUSE_FOR_MS) ?? null;
}
