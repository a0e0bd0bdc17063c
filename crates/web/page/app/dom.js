// @ts-check
// Tiny DOM helpers: h(tag, attributes, ...children). No framework, no build step.

/** A child of `h` and `mount`: nodes, text, nothing, or lists of them. @typedef {Node | string | number | null | undefined | false | any[]} Child */

/**
 * An element. Typed `any`: the page reads and hangs its own things on what it makes (an input's
 * `value`, a pad's `sync`), and the elements found again by `querySelector` would need a cast
 * each; typing `h` by its tag is left for later.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs] attributes; `on<event>` functions are listeners
 * @param {...Child} children
 * @returns {any} the element (an HTMLElement of `tag`)
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      el.className = value;
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * @template {Element} E
 * @param {E} parent
 * @param {...Child} children
 * @returns {E}
 */
export function mount(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
  return parent;
}

/// A button that is at least 44 px tall (see style.css) with an accessible name.
/**
 * @param {Child} label
 * @param {((e: MouseEvent & { target: any, currentTarget: any }) => any) | null} onclick
 * @param {Record<string, any>} [attrs]
 * @returns {HTMLElement}
 */
export function button(label, onclick, attrs = {}) {
  return h('button', { type: 'button', onclick, ...attrs }, label);
}

/// A polite status line; `role=alert` for refusals.
/**
 * @param {Child} text
 * @param {'info' | 'ok' | 'warn' | 'error' | string} [kind]
 * @returns {HTMLElement}
 */
export function message(text, kind = 'info') {
  return h('p', { class: `msg ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/// Fits what a box of fixed height says inside it: the text of its first child is made smaller,
/// a step at a time down to `smallest` of its size, until none of it is cut off (a long
/// sentence on a small phone). The box keeps its height, so nothing below it moves.
/**
 * @param {HTMLElement} box
 * @param {number} [smallest]
 */
export function fitText(box, smallest = 0.7) {
  const text = /** @type {HTMLElement | null} */ (box.firstElementChild);
  if (!text) return;
  text.style.fontSize = '';
  for (let size = 1; box.scrollHeight > box.clientHeight + 1 && size > smallest + 0.001;) {
    size -= 0.05;
    text.style.fontSize = `${size.toFixed(2)}em`;
  }
}
