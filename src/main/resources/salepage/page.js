// The sale page (io.flashstock.salepage): polls ./data once a second and draws it. No libraries, nothing fetched
// from elsewhere: charts are inline SVG.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const CODE_COLOURS = ['#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#475569'];
const codeColours = {};
// The answer's timestamp, and when it last moved: an answer that stops moving (a stuck pod) shows as stale.
let lastAt = null;
let lastMove = 0;

function el(tag, attrs, text) {
  const node = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    node.setAttribute(name, value);
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function colourOf(code) {
  if (!(code in codeColours)) {
    codeColours[code] = CODE_COLOURS[Object.keys(codeColours).length % CODE_COLOURS.length];
  }
  return codeColours[code];
}

function set(id, text) {
  document.getElementById(id).textContent = text;
}

function fmtSeconds(seconds) {
  return seconds < 1 ? Math.round(seconds * 1000) + ' ms' : seconds.toFixed(1) + ' s';
}

// Stacked bars, one per second, the oldest on the left: layers = [{colour, values}].
function chart(layers) {
  const seconds = layers.length ? layers[0].values.length : 60;
  const totals = new Array(seconds).fill(0);
  layers.forEach(layer => layer.values.forEach((v, i) => { totals[i] += v; }));
  const peak = Math.max(1, ...totals);
  const svg = el('svg:svg', { viewBox: `0 0 ${seconds * 10} 60`, preserveAspectRatio: 'none' });
  const base = new Array(seconds).fill(0);
  for (const layer of layers) {
    layer.values.forEach((v, i) => {
      if (v > 0) {
        const h = (v / peak) * 56;
        base[i] += h;
        svg.appendChild(el('svg:rect', { x: i * 10 + 1, y: 60 - base[i], width: 8, height: h, fill: layer.colour }));
      }
    });
  }
  return { svg, peak: Math.max(...totals) };
}

function itemCard(item) {
  const card = el('div', { class: 'item', 'data-sku': item.sku });
  const known = item.available !== null;
  const stock = known ? item.available + item.reserved + item.sold : null;
  const head = el('div', { class: 'head' });
  head.appendChild(el('span', { class: 'sku' }, item.sku));
  const figures = el('span', { class: 'figures' });
  for (const [name, value] of [['available', item.available], ['reserved', item.reserved], ['sold', item.sold],
    ['stock', stock]]) {
    figures.append(name + ' ');
    figures.appendChild(el('b', { class: name }, value === null ? '…' : String(value)));
    figures.append('  ');
  }
  head.appendChild(figures);
  card.appendChild(head);

  const bar = el('div', { class: 'bar' });
  for (const name of ['sold', 'reserved', 'available']) {
    const seg = el('div', { class: 'seg ' + name, title: name });
    seg.style.width = stock ? (100 * item[name] / stock) + '%' : '0%';
    bar.appendChild(seg);
  }
  card.appendChild(bar);

  const charts = el('div', { class: 'charts' });
  const bought = item.purchasesPerSecond;
  const sales = chart([{ colour: '#16a34a', values: bought }]);
  const lastMinute = bought.reduce((a, b) => a + b, 0);
  const salesBox = el('div', { class: 'chart' });
  const title = el('div', { class: 'title' }, 'purchases/s, last minute: now ');
  title.appendChild(el('b', { class: 'rate' }, String(bought[bought.length - 1])));
  title.append(`, peak ${sales.peak}, total `);
  title.appendChild(el('b', { class: 'minute' }, String(lastMinute)));
  salesBox.append(title, sales.svg);
  charts.appendChild(salesBox);

  const codes = Object.keys(item.refusalsPerSecond);
  const refusals = chart(codes.map(code => ({ colour: colourOf(code), values: item.refusalsPerSecond[code] })));
  const refusedBox = el('div', { class: 'chart' });
  refusedBox.appendChild(el('div', { class: 'title' }, `refusals/s by code, last minute: peak ${refusals.peak}`));
  refusedBox.appendChild(refusals.svg);
  const legend = el('div', { class: 'codes' });
  for (const code of codes) {
    const total = item.refusalsPerSecond[code].reduce((a, b) => a + b, 0);
    const entry = el('span', { 'data-code': code });
    const swatch = el('i', { class: 'sw' });
    swatch.style.background = colourOf(code);
    entry.appendChild(swatch);
    entry.append(`${code} ${total}`);
    legend.appendChild(entry);
  }
  refusedBox.appendChild(legend);
  charts.appendChild(refusedBox);
  card.appendChild(charts);
  return card;
}

function render(data) {
  if (data.at !== lastAt) {
    lastAt = data.at;
    lastMove = Date.now();
  }
  const moving = Date.now() - lastMove < 3500;
  const status = document.getElementById('status');
  status.className = moving ? 'status live' : 'status stale';
  status.dataset.at = data.at;
  status.textContent = (moving ? 'live' : 'not moving') + ' · updated ' + new Date(data.at).toLocaleTimeString();

  const latency = data.latency;
  set('p99', latency.p99Ms === null ? '–' : (latency.p99Ms < 10 ? latency.p99Ms.toFixed(2) : Math.round(latency.p99Ms)) + ' ms');
  set('p99-window', latency.seconds ? `last ${latency.seconds} s, this pod` : 'this pod');
  set('purchases', String(latency.purchases));
  set('relay', data.relay ? fmtSeconds(data.relay.lagSeconds) : 'n/a');
  set('relay-pending', data.relay ? `${data.relay.pending} pending` : `(${data.strategy}: no relay)`);
  set('events', data.events ? fmtSeconds(data.events.lagSeconds) : 'off');
  set('events-backlog', data.events ? `${data.events.backlog} unpublished` : '');
  set('pod', `${data.pod.name} · lease ${data.pod.lease}`);
  set('strategy', data.strategy);

  const pods = document.getElementById('pods');
  pods.replaceChildren();
  if (data.pods === null) {
    pods.appendChild(el('li', {}, 'Redis did not answer: pods unknown'));
  } else {
    for (const pod of data.pods) {
      const text = `${pod.self ? pod.name + ' (this pod) · ' : ''}lease ${pod.lease} · ${pod.strategy} · ` +
        `renewed, ${Math.round(pod.leaseMs / 1000)} s left`;
      pods.appendChild(el('li', { class: pod.self ? 'self' : '' }, text));
    }
  }

  set('items-note', `(the ${data.maxItems} most recently active at most)`);
  const items = document.getElementById('items');
  items.replaceChildren(...data.items.map(itemCard));
  document.getElementById('no-items').hidden = data.items.length > 0;
}

async function poll() {
  try {
    const response = await fetch('data', { cache: 'no-store' });
    if (!response.ok) {
      throw new Error('HTTP ' + response.status);
    }
    render(await response.json());
  } catch (e) {
    const status = document.getElementById('status');
    status.className = 'status stale';
    status.textContent = 'not updating: ' + e.message;
  }
  setTimeout(poll, 1000);
}

poll();
