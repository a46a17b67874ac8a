// DOM helpers shared by the views: building elements, page sections, cards, the tooltip and
// the colour theme that canvases read from the style sheet.

function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class')
      el.setAttribute('class', v);
    else if (k === 'text')
      el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function')
      el.addEventListener(k.slice(2), v);
    else
      el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// A page section with its link in the top bar; `note` is a one-line explanation under the title.
function section(id, title, note) {
  const body = h('div', {class: 'section-body'});
  const el =
      h('section', {id, class: 'panel', 'aria-labelledby': id + '-title'},
        h('div', {class: 'section-head'}, h('h2', {id: id + '-title', text: title}),
          note ? h('p', {class: 'note', text: note}) : null),
        body);
  document.getElementById('main').append(el);
  document.getElementById('nav').append(h('a', {href: '#' + id, text: title}));
  return body;
}

// One figure with its label and an optional line under it; `tone` is "good", "warn" or "bad".
function card(label, value, sub, tone) {
  return h(
      'div', {class: 'card' + (tone ? ' ' + tone : '')},
      h('div', {class: 'card-label', text: label}), h('div', {class: 'card-value'}, value),
      sub ? h('div', {class: 'card-sub'}, sub) : null);
}

// A horizontal bar of parts: [{value, label, cls}], with a legend under it.
function stackedBar(parts, total, ariaLabel) {
  const sum = total || parts.reduce((a, p) => a + p.value, 0);
  const bar = h('div', {class: 'stack', role: 'img', 'aria-label': ariaLabel || ''});
  const legend = h('div', {class: 'stack-legend'});
  for (const p of parts) {
    if (!(p.value > 0)) continue;
    const share = sum > 0 ? p.value / sum : 0;
    bar.append(h('span', {
      class: 'stack-part ' + (p.cls || ''),
      style: p.color ? `background:${p.color}` : null,
      title: `${p.label}: ${p.text || ''} (${fmtPct(share)})`
    }));
    bar.lastChild.style.width = (100 * share).toFixed(3) + '%';
    legend.append(h(
        'span', {class: 'stack-key'},
        h('i', {class: 'swatch ' + (p.cls || ''), style: p.color ? `background:${p.color}` : null}),
        `${p.label} ${p.text || ''} · ${fmtPct(share)}`));
  }
  return h('div', {class: 'stack-wrap'}, bar, legend);
}

function banner(text, tone) {
  return h('p', {class: 'banner ' + (tone || '')}, text);
}

// The one floating tooltip: views hand it rows of [label, value] or plain text lines.
const tooltip = {
  el: null,
  show(clientX, clientY, title, rows) {
    const el = this.el || (this.el = document.getElementById('tooltip'));
    el.replaceChildren(
        h('div', {class: 'tip-title', text: title}),
        h('table', null,
          rows.map(([k, v]) => h('tr', null, h('th', {text: k}), h('td', null, v)))));
    el.hidden = false;
    const pad = 14;
    const r = el.getBoundingClientRect();
    let x = clientX + pad;
    let y = clientY + pad;
    if (x + r.width > window.innerWidth - 4) x = Math.max(4, clientX - pad - r.width);
    if (y + r.height > window.innerHeight - 4) y = Math.max(4, clientY - pad - r.height);
    el.style.left = x + 'px';
    el.style.top = y + 'px';
  },
  hide() {
    if (this.el) this.el.hidden = true;
  },
};

// Colours of the current scheme, read from the style sheet's custom properties.
function themeColors() {
  const cs = getComputedStyle(document.documentElement);
  const get = (name) => cs.getPropertyValue(name).trim();
  return {
    dark: get('--scheme') === 'dark',
    bg: get('--panel'),
    fg: get('--fg'),
    muted: get('--muted'),
    grid: get('--grid'),
    border: get('--border'),
    accent: get('--accent'),
    bad: get('--bad'),
    laneAlt: get('--lane-alt'),
    select: get('--select'),
    font: get('--font-ui'),
    mono: get('--font-mono'),
  };
}

const themeListeners = [];
function onThemeChange(fn) {
  themeListeners.push(fn);
}
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  for (const fn of themeListeners) fn();
});

// A canvas sized to its box in CSS pixels at the device's pixel ratio; returns the 2D context.
function fitCanvas(canvas, width, height) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(width * dpr));
  const hgt = Math.max(1, Math.round(height * dpr));
  if (canvas.width !== w || canvas.height !== hgt) {
    canvas.width = w;
    canvas.height = hgt;
  }
  canvas.style.width = width + 'px';
  canvas.style.height = height + 'px';
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

// `text` cut with an ellipsis to fit `width` pixels in the context's font.
function fitText(ctx, text, width) {
  if (width <= 0) return '';
  const full = ctx.measureText(text).width;
  if (full <= width) return text;
  const perChar = full / text.length;
  let n = Math.floor(width / perChar) - 1;
  if (n < 1) return '';
  let cut = text.slice(0, n) + '…';
  while (n > 1 && ctx.measureText(cut).width > width) cut = text.slice(0, --n) + '…';
  return n >= 1 ? cut : '';
}
