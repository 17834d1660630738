// SinkScope web page: draws one analysed run from the JSON in #sinkscope-data.
// Plain JavaScript, no libraries: the page must open from disk, offline, for
// years. Each head's data is deflated and decoded only when it is selected.
'use strict';

(function() {
const SVG_NS = 'http://www.w3.org/2000/svg';
// The same family as the CSS, so that measured text matches drawn text.
const FONT_FAMILY = '"DejaVu Sans", "Segoe UI", system-ui, -apple-system, sans-serif';
const MASKED = '#e4e4e4';  // causal attention's missing cells
const REFERENCE_GREY = [0.47, 0.47, 0.47];
const THRESHOLD_RED = [0.698, 0.094, 0.169];
const DASHES = ['', '7 4', '2 3', '7 3 2 3'];  // solid, dashed, dotted, dash-dot (as the desktop)
const MIN_HEAD_VIEW_WEIGHT = 0.01;

const state = {
  data: null,
  L: 0,
  H: 0,
  T: 0,
  layer: 0,
  head: 0,
  pinned: null,      // {query, key} kept in the readout and the URL, or null
  current: null,     // the selected head, decoded: {weights, views}
  generation: 0,     // guards against a slow decode drawing over a newer selection
  cache: new Map(),  // head index -> Promise of the decoded head
};

// ---------------------------------------------------------------- helpers
const byId = (id) => document.getElementById(id);

function svgEl(tag, attrs, parent) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  if (parent) parent.appendChild(node);
  return node;
}

function svgText(parent, x, y, text, attrs) {
  const node = svgEl('text', Object.assign({x, y}, attrs), parent);
  node.textContent = text;
  return node;
}

function clearSvg(svg, width, height) {
  svg.replaceChildren();
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
}

// A view the writer left out (an older or partial page) says so instead of staying blank.
function emptyView(svg) {
  clearSvg(svg, 300, 40);
  svgText(svg, 4, 24, 'This view is not in this page.', {class: 'empty-note'});
}

function css(rgb, alpha) {
  const [r, g, b] = rgb.map((c) => Math.round(255 * Math.min(1, Math.max(0, c))));
  return alpha === undefined ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${alpha})`;
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

// The colour map's entry for t in [0, 1], as the writer defines it: round(t * 255).
function mapColour(t) {
  const map = state.data.colormap;
  return map[Math.round(clamp(Number.isFinite(t) ? t : 0, 0, 1) * (map.length - 1))];
}

// SinkScope's diverging map (blue, white at 0, red), t in [-1, 1].
function divergingColour(t) {
  const end = t < 0 ? [0.23, 0.30, 0.75] : [0.71, 0.02, 0.15];
  const f = Math.min(1, Math.abs(t));
  return end.map((c) => 0.97 + f * (c - 0.97));
}

let measureContext = null;
function textWidth(text, px, weight) {
  measureContext = measureContext || document.createElement('canvas').getContext('2d');
  measureContext.font = `${weight || 'normal'} ${px}px ${FONT_FAMILY}`;
  return measureContext.measureText(text).width;
}

// Long tokens and titles are cut with an ellipsis rather than overrunning.
function fitText(text, px, maxWidth) {
  if (textWidth(text, px) <= maxWidth) return text;
  let cut = text;
  while (cut.length > 1 && textWidth(cut + '…', px) > maxWidth) cut = cut.slice(0, -1);
  return cut + '…';
}

function wrapText(text, px, maxWidth, weight) {
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, px, weight) > maxWidth) {
      lines.push(line);
      line = word;
    } else
      line = next;
  }
  if (line) lines.push(line);
  return lines;
}

// Numbers for people: 4 significant digits, no trailing zeros.
function fmt(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return String(v);
  const n = Number(v);
  if (n !== 0 && (Math.abs(n) >= 1e5 || Math.abs(n) < 1e-3)) return n.toExponential(2);
  return String(Number(n.toPrecision(4)));
}

// Tick positions at 1, 2 or 5 times a power of ten, about `target` of them.
function niceTicks(lo, hi, target, integer) {
  const raw = (hi - lo) / Math.max(1, target);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  // The step nearest the wish from above or a little below, so that short axes get more than two
  // ticks.
  let step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw * 0.75) || 10 * power;
  if (integer) step = Math.max(1, Math.round(step));
  const ticks = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return {ticks, step};
}

function tickText(v, step) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return v.toFixed(Math.min(decimals, 6));
}

function sinkThreshold() {
  const eps = (state.data.parameters || []).find((p) => p[0] === 'eps');
  return eps && Number.isFinite(parseFloat(eps[1])) ? parseFloat(eps[1]) : 0.3;
}

// The writer may say yes as true, 1 or "true" (a CSV cell read as a number).
const isYes = (v) => v === true || v === 1 || v === 'true' || v === '1';

// Whether the selected head's first token is a sink: the summary says so, or α₀ > ε.
function headIsSink() {
  const summary = (state.current && state.current.views.summary) || [];
  const flag = summary.find((e) => e.key === 'is_sink');
  if (flag) return isYes(flag.value);
  const alpha0 = summary.find((e) => e.key === 'alpha0');
  return !!alpha0 && Number(alpha0.value) > sinkThreshold();
}

// Panel widths are read once per redraw: reading one after drawing another
// would make the browser lay out the whole page again for each panel.
const panelWidths = new Map();
function measurePanels() {
  panelWidths.clear();
  for (const node of document.querySelectorAll('#panels svg, #panels canvas'))
    panelWidths.set(node, node.parentElement.clientWidth);
}

function availableWidth(node) {
  return Math.max(260, Math.floor(panelWidths.get(node) || node.parentElement.clientWidth));
}

// ---------------------------------------------------------------- decoding
function base64Bytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function inflate(text) {
  // The stream's own reader and writer, not Blob and Response: those never
  // finish in a sandboxed frame without an origin (a notebook's output cell).
  try {
    const stream = new DecompressionStream('deflate');
    const writer = stream.writable.getWriter();
    const written = writer.write(base64Bytes(text)).then(() => writer.close());
    const reader = stream.readable.getReader();
    const chunks = [];
    let length = 0;
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
    }
    await written;
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return bytes;
  } catch (error) {  // the browser's own words would not say what is wrong
    throw new Error(`its compressed data is damaged (${error.message})`);
  }
}

async function decodeHead(index) {
  const [weights, json] =
      await Promise.all([inflate(state.data.attention[index]), inflate(state.data.heads[index])]);
  const T = state.T;
  const expected = state.data.causal ? (T * (T + 1)) / 2 : T * T;
  if (weights.length !== expected)
    throw new Error(`head ${index}: ${weights.length} attention bytes, expected ${expected}`);
  return {weights, views: JSON.parse(new TextDecoder().decode(json))};
}

// One decode per head, shared by everyone who asks; a failure is not cached.
function loadHead(index) {
  if (!state.cache.has(index)) {
    const pending = decodeHead(index);
    pending.catch(() => state.cache.delete(index));
    state.cache.set(index, pending);
  }
  return state.cache.get(index);
}

// The weight of query i on key j (q / 255), or null where the causal mask hides it.
function weight(i, j) {
  const bytes = state.current.weights;
  if (!state.data.causal) return bytes[i * state.T + j] / 255;
  return j > i ? null : bytes[(i * (i + 1)) / 2 + j] / 255;
}

// ---------------------------------------------------------------- selection
function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const int = (name) =>
      (params.has(name) && /^-?\d+$/.test(params.get(name)) ? Number(params.get(name)) : null);
  return {layer: int('layer'), head: int('head'), query: int('query'), key: int('key')};
}

function writeHash() {
  let hash = `#layer=${state.layer}&head=${state.head}`;
  if (state.pinned) hash += `&query=${state.pinned.query}&key=${state.pinned.key}`;
  if (location.hash === hash) return;
  try {
    history.replaceState(null, '', hash);
  } catch (e) {
    // A sandboxed frame (a notebook's output cell) may not change its address:
    // the selection still works, it is just not kept in the URL.
  }
}

function applyHash() {
  const wanted = readHash();
  const outline = (state.data.overview && state.data.overview.outline) || [0, 0];
  const layer = wanted.layer !== null ? wanted.layer : Math.max(0, outline[0]);
  const head = wanted.head !== null ? wanted.head : Math.max(0, outline[1]);
  const inRange = (v) => v !== null && v >= 0 && v < state.T;
  state.pinned =
      inRange(wanted.query) && inRange(wanted.key) ? {query: wanted.query, key: wanted.key} : null;
  select(layer, head);
}

function select(layer, head) {
  state.layer = clamp(layer, 0, state.L - 1);
  state.head = clamp(head, 0, state.H - 1);
  byId('layer-select').value = String(state.layer);
  byId('head-select').value = String(state.head);
  writeHash();
  markOverviewSelection();
  const generation = ++state.generation;
  delete document.body.dataset.ready;
  const index = state.layer * state.H + state.head;
  loadHead(index)
      .then((decoded) => {
        if (generation !== state.generation) return;
        state.current = decoded;
        drawHead();
        document.body.dataset.ready = `${state.layer},${state.head}`;
        // In a frame (a notebook's output cell), the page around it hears it
        // too: a sandboxed frame's own document cannot be read from outside.
        if (window.parent !== window)
          window.parent.postMessage(
              {sinkscope: 'ready', layer: state.layer, head: state.head}, '*');
      })
      .catch((error) => {
        if (generation === state.generation)
          showError(`Could not read layer ${state.layer}, head ${state.head} from this page: ${
              error.message}`);
      });
}

function onKey(event) {
  // A focused select handles its own arrows; typing elsewhere is left alone.
  if (event.altKey || event.ctrlKey || event.metaKey ||
      /^(SELECT|INPUT|TEXTAREA)$/.test(event.target.tagName))
    return;
  const moves = {ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0]};
  const move = moves[event.key];
  if (!move) return;
  event.preventDefault();
  select(state.layer + move[0], state.head + move[1]);
}

function showError(message, kind) {
  byId('error').textContent = message;
  byId('error').hidden = false;
  document.body.dataset.error = kind || 'head';
}

function hideError() {
  byId('error').hidden = true;
  delete document.body.dataset.error;
}

// ---------------------------------------------------------------- page text
function fillStaticText() {
  const d = state.data;
  byId('page-title').textContent = byId('page-title').title = d.title || '';
  byId('sentence').textContent = d.sentence || '';
  byId('sentence').classList.toggle('long', (d.sentence || '').length > 160);
  byId('sentence').hidden = !d.sentence;  // a capture without a sentence
  byId('model-name').textContent = d.model.name || '';
  const sha = d.model.sha256 || '';
  byId('model-hash').textContent = sha ? `sha256 ${sha.slice(0, 12)}…` : '';
  byId('model-hash').title = sha;
  byId('precision').textContent =
      d.precision ? `Precision: ${d.precision}.`.replace(/\.\.$/, '.') : '';
  byId('model-sha256').textContent = sha || 'not recorded';
  byId('version-made-by').textContent = d.version_made_by || 'SinkScope';
  byId('command').textContent = d.command || '';
  const table = byId('parameters');
  for (const [name, value] of d.parameters || []) {
    const row = table.insertRow();
    row.appendChild(document.createElement('th')).textContent = name;
    row.insertCell().textContent = value;
  }
}

function fillSelects() {
  const fill = (select, count, label) => {
    for (let k = 0; k < count; ++k) select.add(new Option(`${label} ${k}`, String(k)));
  };
  fill(byId('layer-select'), state.L, 'layer');
  fill(byId('head-select'), state.H, 'head');
  byId('layer-select')
      .addEventListener('change', (e) => select(Number(e.target.value), state.head));
  byId('head-select')
      .addEventListener('change', (e) => select(state.layer, Number(e.target.value)));
}

function copyCommand() {
  const button = byId('copy-command');
  const done = (text) => {
    button.textContent = text;
    setTimeout(() => {
      button.textContent = 'Copy';
    }, 1500);
  };
  // Pages opened from disk may lack the clipboard: then the command is selected for the reader to
  // copy.
  const select = () => {
    getSelection().selectAllChildren(byId('command'));
    done('Selected');
  };
  if (navigator.clipboard)
    navigator.clipboard.writeText(byId('command').textContent).then(() => done('Copied'), select);
  else
    select();
}

function drawSummary() {
  const views = state.current.views;
  const box = byId('summary');
  box.replaceChildren();
  Object.assign(
      box.appendChild(document.createElement('p')),
      {className: 'finding', textContent: views.finding || ''});
  const table = box.appendChild(document.createElement('table'));
  for (const entry of views.summary || []) {
    const row = table.insertRow();
    row.dataset.key = entry.key;
    row.appendChild(document.createElement('th')).textContent = entry.name;
    const cell = row.insertCell();
    cell.dataset.value = String(entry.value);
    cell.textContent = entry.text !== undefined ? entry.text : fmt(entry.value);
    if (entry.key === 'is_sink' && isYes(entry.value)) cell.className = 'yes';
  }
}

function drawHeadings() {
  const where = `layer ${state.layer}, head ${state.head}`;
  byId('summary-heading').textContent = `Summary · ${where}`;
  byId('attention-heading').textContent = `Attention map · ${where}`;
  byId('head-view-heading').textContent = `Head view · ${where}`;
}

// ---------------------------------------------------------------- tooltip
// Every drawn mark with a data-tip shows it on hover (plots, overview, scene).
function setUpTooltip() {
  const tip = byId('tooltip');
  document.addEventListener('mouseover', (event) => {
    const mark = event.target.closest && event.target.closest('[data-tip]');
    tip.hidden = !mark;
    if (mark) tip.textContent = mark.dataset.tip;
  });
  document.addEventListener('mousemove', (event) => {
    if (tip.hidden) return;
    const x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = `${Math.max(4, x)}px`;
    tip.style.top = `${event.clientY + 16}px`;
  });
}

// ---------------------------------------------------------------- colour bar
function drawColourBar(svg, x, y, height, lo, hi, label, colourAt) {
  const id = `bar-${svg.id}`;
  const gradient =
      svgEl('linearGradient', {id, x1: 0, y1: 1, x2: 0, y2: 0}, svgEl('defs', {}, svg));
  for (let k = 0; k <= 10; ++k)
    svgEl('stop', {offset: k / 10, 'stop-color': css(colourAt(k / 10))}, gradient);
  svgEl(
      'rect', {x, y, width: 12, height, fill: `url(#${id})`, stroke: '#999', 'stroke-width': 0.5},
      svg);
  const {ticks, step} = niceTicks(lo, hi, 4, false);
  for (const v of ticks) {
    const ty = y + height - ((v - lo) / (hi - lo)) * height;
    svgEl('line', {x1: x + 12, x2: x + 16, y1: ty, y2: ty, stroke: '#666'}, svg);
    svgText(svg, x + 19, ty + 4, tickText(v, step), {class: 'tick'});
  }
  svgText(svg, 0, 0, label, {
    class: 'axis-label',
    transform: `translate(${x + 60},${y + height / 2}) rotate(90)`,
    'text-anchor': 'middle'
  });
}

// ---------------------------------------------------------------- overview
function heatColour(map, v) {
  const [lo, hi] = map.range;
  if (map.categories && map.categories.length) {
    const c = map.categories[Math.round(v)];
    return (c && c.colour) || state.data.palette[Math.round(v) % state.data.palette.length];
  }
  if (map.scale === 'diverging')
    return divergingColour(v / Math.max(Math.abs(lo), Math.abs(hi), 1e-12));
  if (map.scale === 'log')
    return mapColour(
        (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
  return mapColour((v - lo) / (hi - lo || 1));
}

function drawOverview() {
  const map = state.data.overview;
  const svg = byId('overview');
  if (!map) {
    emptyView(svg);
    return;
  }
  const rowLabels =
      map.row_labels.length ? map.row_labels : [...Array(map.rows).keys()].map(String);
  const colLabels =
      map.col_labels.length ? map.col_labels : [...Array(map.cols).keys()].map(String);
  const width = availableWidth(svg);
  const left = Math.max(...rowLabels.map((s) => textWidth(s, 12))) + 28;
  const cell = clamp(Math.floor((width - left - 90) / map.cols), 6, 56);
  const upright = Math.max(...colLabels.map((s) => textWidth(s, 12))) + 4 <= cell;
  const top = upright ? 22 : Math.max(...colLabels.map((s) => textWidth(s, 12))) + 10;
  const height = top + cell * map.rows + 8;
  clearSvg(svg, Math.min(width, left + cell * map.cols + 90), height);
  const stride = Math.ceil(14 / cell);
  rowLabels.forEach((label, r) => {
    if (r % stride === 0)
      svgText(
          svg, left - 6, top + (r + 0.5) * cell + 4, label, {class: 'tick', 'text-anchor': 'end'});
  });
  colLabels.forEach((label, c) => {
    if (c % stride !== 0) return;
    const x = left + (c + 0.5) * cell;
    svgText(
        svg, x, top - 6, label,
        upright ? {class: 'tick', 'text-anchor': 'middle'} :
                  {class: 'tick', transform: `rotate(-90 ${x + 4} ${top - 6})`});
  });
  svgText(svg, 0, 0, map.row_title || '', {
    class: 'axis-label',
    transform: `translate(12,${top + (cell * map.rows) / 2}) rotate(-90)`,
    'text-anchor': 'middle'
  });
  const cells = svgEl('g', {}, svg);
  for (let r = 0; r < map.rows; ++r)
    for (let c = 0; c < map.cols; ++c) {
      const v = map.values[r * map.cols + c];
      const hidden = map.hidden[r * map.cols + c] || v === null;
      svgEl(
          'rect', {
            x: left + c * cell,
            y: top + r * cell,
            width: cell,
            height: cell,
            class: 'overview-cell',
            fill: hidden ? MASKED : css(heatColour(map, v)),
            'data-layer': r,
            'data-head': c,
            'data-value': hidden ? '' : String(v),
            'data-tip': `${map.row_title || 'row'} ${r}, ${map.col_title || 'column'} ${c}\n${
                map.quantity || 'value'}: ${hidden ? 'none' : fmt(v)}`,
          },
          cells);
    }
  cells.addEventListener('click', (event) => {
    const target = event.target;
    if (target.dataset.layer !== undefined)
      select(Number(target.dataset.layer), Number(target.dataset.head));
  });
  svgEl(
      'rect', {
        id: 'overview-frame',
        width: cell,
        height: cell,
        fill: 'none',
        'pointer-events': 'none',
        stroke: css(state.data.selected_colour),
        'stroke-width': 3,
        'data-cell': cell,
        'data-left': left,
        'data-top': top
      },
      svg);
  if (!map.categories.length)
    drawColourBar(
        svg, left + cell * map.cols + 14, top, Math.max(60, cell * map.rows), map.range[0],
        map.range[1], map.quantity || '',
        (t) => heatColour(map, map.range[0] + t * (map.range[1] - map.range[0])));
  markOverviewSelection();
}

// Moving the frame is enough when only the selection changes.
function markOverviewSelection() {
  const frame = byId('overview-frame');
  if (!frame) return;
  frame.setAttribute('x', Number(frame.dataset.left) + state.head * Number(frame.dataset.cell));
  frame.setAttribute('y', Number(frame.dataset.top) + state.layer * Number(frame.dataset.cell));
}

// ---------------------------------------------------------------- attention map
const mapLayout = {};  // where the last drawn map's cells are, for the hover

function drawAttentionMap() {
  const canvas = byId('attention-map');
  const T = state.T;
  const tokens = state.data.tokens;
  const labels = tokens.map((t) => fitText(t, 12, 110));
  const labelWidth = Math.max(...labels.map((t) => textWidth(t, 12)));
  const width = availableWidth(canvas);
  const left = labelWidth + 10;
  const top = labelWidth * 0.72 + 16;
  const right = Math.max(labelWidth * 0.72, 84);  // the last slanted label, or the colour bar
  const grid = Math.max(T, Math.min(width - left - right, 760));
  const cell = grid / T;
  const cssWidth = Math.min(width, left + grid + right);
  const cssHeight = top + grid + 10;
  const dpr = window.devicePixelRatio || 1;
  Object.assign(canvas, {width: Math.round(cssWidth * dpr), height: Math.round(cssHeight * dpr)});
  Object.assign(canvas.style, {width: `${cssWidth}px`, height: `${cssHeight}px`});
  Object.assign(mapLayout, {left, top, cell, grid});
  const ctx = canvas.getContext('2d');
  drawCells(ctx, dpr, left, top, cell);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  drawMapLabels(ctx, labels, left, top, cell);
  drawCanvasColourBar(ctx, left + grid + 14, top, grid);
}

// Cells are filled on whole device pixels, so neighbours share edges without seams or blur.
function drawCells(ctx, dpr, left, top, cell) {
  const T = state.T;
  const edge = (k, origin) => Math.round((origin + k * cell) * dpr);
  const colours = state.data.colormap.map((c) => css(c));
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.imageSmoothingEnabled = false;
  for (let i = 0; i < T; ++i) {
    const y0 = edge(i, top), y1 = edge(i + 1, top);
    for (let j = 0; j < T; ++j) {
      const w = weight(i, j);
      if (w === null) {  // the rest of a causal row is masked: one rectangle
        ctx.fillStyle = MASKED;
        ctx.fillRect(edge(j, left), y0, edge(T, left) - edge(j, left), y1 - y0);
        break;
      }
      ctx.fillStyle = colours[Math.round(w * (colours.length - 1))];
      ctx.fillRect(edge(j, left), y0, edge(j + 1, left) - edge(j, left), y1 - y0);
    }
  }
}

// Every token is labelled while labels fit; otherwise every k-th one.
function drawMapLabels(ctx, labels, left, top, cell) {
  const rowStride = Math.ceil(14 / cell),
        colStride = Math.ceil(19 / cell);  // slanted labels need more room
  const sink = headIsSink();
  ctx.textBaseline = 'middle';
  for (let k = 0; k < labels.length; ++k) {
    const lit = k === 0 && sink;
    ctx.fillStyle = lit ? css(state.data.sink_colour) : '#222';
    ctx.font = `${lit ? 'bold ' : ''}12px ${FONT_FAMILY}`;
    ctx.textAlign = 'right';
    if (k % rowStride === 0) ctx.fillText(labels[k], left - 5, top + (k + 0.5) * cell);
    if (k % colStride) continue;
    ctx.save();
    ctx.translate(left + (k + 0.5) * cell, top - 5);
    ctx.rotate(-Math.PI / 4);
    ctx.textAlign = 'left';
    ctx.fillText(labels[k], 0, 0);
    ctx.restore();
  }
}

function drawCanvasColourBar(ctx, x, top, height) {
  const map = state.data.colormap;
  for (let k = 0; k < height; ++k) {
    ctx.fillStyle = css(map[Math.round((1 - k / height) * (map.length - 1))]);
    ctx.fillRect(x, top + k, 12, 1.5);
  }
  Object.assign(ctx, {fillStyle: '#444', font: `12px ${FONT_FAMILY}`, textAlign: 'left'});
  for (const v of [0, 0.25, 0.5, 0.75, 1]) ctx.fillText(String(v), x + 17, top + (1 - v) * height);
  ctx.translate(x + 58, top + height / 2);
  ctx.rotate(Math.PI / 2);
  Object.assign(ctx, {fillStyle: '#222', font: `13px ${FONT_FAMILY}`, textAlign: 'center'});
  ctx.fillText('attention weight', 0, 0);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
}

function cellAt(event) {
  const rect = byId('attention-map').getBoundingClientRect();
  const j = Math.floor((event.clientX - rect.left - mapLayout.left) / mapLayout.cell);
  const i = Math.floor((event.clientY - rect.top - mapLayout.top) / mapLayout.cell);
  return i >= 0 && j >= 0 && i < state.T && j < state.T ? {query: i, key: j} : null;
}

// The readout says one cell's weight, in words and in data attributes for scripts.
function showCell(query, key, pinned) {
  const readout = byId('readout');
  const tokens = state.data.tokens;
  const w = state.current ? weight(query, key) : null;
  const value = w === null ? 'masked (a query sees no later key)' : w.toFixed(3);
  readout.textContent = `query ${query} ‹${tokens[query]}› → key ${key} ‹${tokens[key]}›: ${value}`;
  Object.assign(
      readout.dataset,
      {query: String(query), key: String(key), value: w === null ? '' : String(w)});
  readout.classList.toggle('pinned', !!pinned);
  const frame = byId('cell-frame');
  const size = Math.max(mapLayout.cell, 6);
  const offset = (mapLayout.cell - size) / 2;
  Object.assign(frame.style, {
    left: `${mapLayout.left + key * mapLayout.cell + offset - 1}px`,
    top: `${mapLayout.top + query * mapLayout.cell + offset - 1}px`,
    width: `${size + 2}px`,
    height: `${size + 2}px`,
  });
  frame.hidden = false;
}

function clearCell() {
  if (state.pinned) {
    showCell(state.pinned.query, state.pinned.key, true);
    return;
  }
  byId('cell-frame').hidden = true;
  byId('readout').classList.remove('pinned');
}

function setUpAttentionMap() {
  const canvas = byId('attention-map');
  canvas.addEventListener('mousemove', (event) => {
    const at = state.current && cellAt(event);
    if (at)
      showCell(at.query, at.key, false);
    else
      clearCell();
  });
  canvas.addEventListener('mouseleave', clearCell);
  canvas.addEventListener('click', (event) => {
    const at = state.current && cellAt(event);
    if (!at) return;
    const same = state.pinned && state.pinned.query === at.query && state.pinned.key === at.key;
    state.pinned = same ? null : at;
    writeHash();
    clearCell();
    focusHeadView(state.pinned ? 'query' : null, state.pinned ? state.pinned.query : -1);
  });
}

// ---------------------------------------------------------------- head view
const headLayout = {};

function drawHeadView() {
  const svg = byId('head-view');
  const T = state.T;
  const width = Math.min(availableWidth(svg), 620);
  const labels = state.data.tokens.map((t) => fitText(t, 12, 130));
  const labelWidth = Math.max(...labels.map((t) => textWidth(t, 12)));
  const rowHeight = clamp(640 / T, 4, 30);
  const top = 26;
  const xQuery = labelWidth + 8, xKey = width - labelWidth - 8;
  const height = top + rowHeight * T + 6;
  clearSvg(svg, width, height);
  Object.assign(headLayout, {top, rowHeight, xQuery, xKey, width, labels});
  svgText(svg, xQuery, 14, 'queries', {class: 'axis-label', 'text-anchor': 'end'});
  svgText(svg, xKey, 14, 'keys', {class: 'axis-label'});
  svgEl('g', {id: 'head-view-lines'}, svg).appendChild(headViewLines((i, j) => true));
  svgEl('g', {id: 'head-view-focus'}, svg);
  drawHeadViewTokens(svgEl('g', {id: 'head-view-tokens'}, svg));
  svg.onmousemove = (event) => {
    const rect = svg.getBoundingClientRect();
    const row = Math.floor((event.clientY - rect.top - top) / rowHeight);
    if (row < 0 || row >= T) {
      focusHeadView(null, -1);
      return;
    }
    focusHeadView(event.clientX - rect.left < width / 2 ? 'query' : 'key', row);
  };
  svg.onmouseleave = () =>
      focusHeadView(state.pinned ? 'query' : null, state.pinned ? state.pinned.query : -1);
  if (state.pinned) focusHeadView('query', state.pinned.query);
}

// Lines of equal weight share one path: weights are quantised to 1/255, so
// at most 255 paths however long the sentence.
function headViewLines(keep) {
  const {top, rowHeight, xQuery, xKey} = headLayout;
  const paths = new Map();
  for (let i = 0; i < state.T; ++i)
    for (let j = 0; j < state.T; ++j) {
      const w = weight(i, j);
      if (w === null || w < MIN_HEAD_VIEW_WEIGHT || !keep(i, j)) continue;
      const d = `M${xQuery + 6} ${(top + (i + 0.5) * rowHeight).toFixed(1)}L${xKey - 6} ${
          (top + (j + 0.5) * rowHeight).toFixed(1)}`;
      paths.set(w, (paths.get(w) || '') + d);
    }
  const group = document.createElementNS(SVG_NS, 'g');
  const colour = css(state.data.palette[0]);
  for (const [w, d] of paths)
    svgEl(
        'path', {
          d,
          stroke: colour,
          'stroke-opacity': w,
          'stroke-width': headLayout.rowHeight < 10 ? 1 : 2,
          fill: 'none'
        },
        group);
  return group;
}

function drawHeadViewTokens(group) {
  const {top, rowHeight, xQuery, xKey, labels} = headLayout;
  const stride = Math.ceil(13 / rowHeight);
  const sink = headIsSink();
  for (let k = 0; k < state.T; k += stride) {
    const y = top + (k + 0.5) * rowHeight + 4;
    const attrs = {class: 'hv-token', 'data-token': k};
    if (k === 0 && sink)
      Object.assign(attrs, {style: `fill:${css(state.data.sink_colour)}`, 'font-weight': 'bold'});
    svgText(group, xQuery, y, labels[k], Object.assign({'text-anchor': 'end'}, attrs));
    svgText(group, xKey, y, labels[k], attrs);
  }
}

// Only one token's lines, at full strength; side null shows all lines again.
function focusHeadView(side, index) {
  const all = byId('head-view-lines'), focus = byId('head-view-focus');
  if (!all || !state.current) return;
  focus.replaceChildren();
  all.style.opacity = side ? 0 : 1;
  if (!side) return;
  focus.appendChild(headViewLines((i, j) => (side === 'query' ? i === index : j === index)));
  const {top, rowHeight, xQuery, xKey, labels} = headLayout;
  const y = top + (index + 0.5) * rowHeight;
  const x = side === 'query' ? xQuery : xKey;
  const width = textWidth(labels[index], 12, 'bold') + 8;
  svgEl(
      'rect', {
        x: side === 'query' ? x - width + 3 : x - 4,
        y: y - 9,
        width,
        height: 18,
        rx: 3,
        fill: '#fff',
        stroke: css(state.data.selected_colour),
        'stroke-width': 1.5
      },
      focus);
  svgText(
      focus, x, y + 4, labels[index],
      {class: 'hv-token focus', 'text-anchor': side === 'query' ? 'end' : 'start'});
}

// ---------------------------------------------------------------- line plots
// Colours as the desktop gives them: data series take the palette in turn
// (with a dash pattern as a second cue), a "before" twin borrows its twin's colour.
function seriesPens(series) {
  const palette = state.data.palette;
  const takesTurn = (s) =>
      s.style !== 'reference' && s.style !== 'threshold' && !(s.colour_of >= 0);
  const comparison = series.some((s) => s.colour_of >= 0);
  const turns = series.filter(takesTurn).length;
  const pens = series.map(() => ({colour: null, dash: ''}));
  let turn = 0;
  series.forEach((s, k) => {
    if (!takesTurn(s)) return;
    const t = turn++;
    pens[k].colour = s.colour || palette[t % palette.length];
    if (!comparison && !s.colour && s.style === 'line') pens[k].dash = DASHES[t % 4];
  });
  series.forEach((s, k) => {
    if (s.colour_of >= 0 && s.colour_of < series.length)
      pens[k].colour = turns === 1 ?
          palette[1 % palette.length] :
          (pens[s.colour_of].colour || REFERENCE_GREY).map((c) => c + 0.5 * (1 - c));
    else if (s.style === 'reference')
      Object.assign(pens[k], {colour: s.colour || REFERENCE_GREY, dash: '6 4'});
    else if (s.style === 'threshold')
      Object.assign(pens[k], {colour: s.colour || THRESHOLD_RED, dash: '2 3'});
    if (s.dashed) pens[k].dash = '7 4';
  });
  return pens;
}

// Where each stacked bar's top is: the sum of the stacked series up to it at that index.
function stackedTops(series) {
  const sums = [];
  return series.map((s) => {
    if (s.style !== 'stacked_bars') return null;
    return s.y.map((y, k) => {
      const base = sums[k] || 0;
      sums[k] = base + (y || 0);
      return [base, sums[k]];
    });
  });
}

function plotRanges(view, tops) {
  const xs = [], ys = [];
  view.series.forEach((s, n) => {
    s.x.forEach((x, k) => {
      if (x === null || (view.log2_x && x <= 0)) return;
      xs.push(x);
      const vals = tops[n] ? tops[n][k] : [s.y[k], s.lo && s.lo[k], s.hi && s.hi[k]];
      for (const v of vals)
        if (v !== null && v !== undefined && Number.isFinite(v)) ys.push(v);
    });
  });
  if (view.x_tick_labels.length) xs.push(0, view.x_tick_labels.length - 1);
  if (!xs.length) xs.push(view.log2_x ? 1 : 0);
  if (!ys.length) ys.push(0);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (view.include_zero) {
    y0 = Math.min(0, y0);
    y1 = Math.max(0, y1);
  }
  if (y1 === y0) {
    y0 -= 0.5;
    y1 += 0.5;
  }
  y1 += 0.08 * (y1 - y0);
  if (view.log2_x) {
    x0 /= 1.25;
    x1 *= 1.25;
  } else {
    const pad = view.integer_x || view.x_tick_labels.length ?
        0.5 :
        Math.max(0.04 * (x1 - x0), x1 === x0 ? 0.5 : 0);
    x0 -= pad;
    x1 += pad;
  }
  return {x0, x1, y0, y1};
}

function xTicks(view, r, length) {
  if (view.log2_x) {
    const ticks = [];
    for (let e = Math.ceil(Math.log2(r.x0)); e <= Math.floor(Math.log2(r.x1)); ++e) ticks.push(e);
    const stride = Math.ceil(ticks.length / Math.max(2, length / 50));
    return ticks.filter((e, k) => k % stride === 0).map((e) => ({v: 2 ** e, text: String(2 ** e)}));
  }
  const {ticks, step} = niceTicks(r.x0, r.x1, Math.max(2, length / 70), view.integer_x);
  return ticks.map((v) => ({v, text: tickText(v, step)}));
}

// Token names under whole-number x: upright where each fits, else slanted and thinned.
function tokenTickLayout(labels, unit) {
  const texts = labels.map((s) => fitText(s, 12, 100));
  const widest = Math.max(...texts.map((s) => textWidth(s, 12)));
  if (widest + 6 <= unit) return {texts, stride: 1, slanted: false, height: 20};
  return {texts, stride: Math.ceil(17 / unit), slanted: true, height: widest * 0.72 + 16};
}

function legendLayout(entries, width) {
  const rows = [];
  let x = 0, y = 0;
  for (const entry of entries) {
    const w = 36 + textWidth(entry.name, 12.5) + 18;
    if (x > 0 && x + w > width) {
      x = 0;
      y += 20;
    }
    rows.push({entry, x, y});
    x += w;
  }
  return {items: rows, height: entries.length ? y + 24 : 0};
}

function drawPlot(svg, view, options) {
  if (!view) {
    emptyView(svg);
    return;
  }
  const width = availableWidth(svg);
  const titleLines = wrapText(view.title || '', 14, width - 10, 'bold');
  const pens = seriesPens(view.series);
  const tops = stackedTops(view.series);
  const seen = new Set();
  const legend = legendLayout(
      view.series.map((s, k) => ({name: s.name, s, pen: pens[k]}))
          .filter((e) => e.s.in_legend && e.name && !seen.has(e.name) && seen.add(e.name)),
      width - 20);
  const r = plotRanges(view, tops);
  const top = 8 + titleLines.length * 18 + 10;
  let height = options.height;
  const yGuess = niceTicks(r.y0, r.y1, Math.max(2, (height - 140) / 45), view.integer_y);
  const yTickTexts = yGuess.ticks.map((v) => tickText(v, yGuess.step));
  const left = Math.max(...yTickTexts.map((s) => textWidth(s, 12)), 10) + 36;
  const plotWidth = width - left - 16;
  const tokenTicks = view.x_tick_labels.length ?
      tokenTickLayout(view.x_tick_labels, plotWidth / (r.x1 - r.x0)) :
      null;
  const bottom = (tokenTicks ? tokenTicks.height : 20) + 24 + legend.height + 6;
  if (view.equal_scale) {
    // One unit as long on x as on y: a square plot, the shorter range widened.
    height = top + plotWidth + bottom;
    const span = Math.max(r.x1 - r.x0, r.y1 - r.y0);
    r.x1 = r.x0 + span;
    r.y1 = r.y0 + span;
  }
  const plotHeight = height - top - bottom;
  clearSvg(svg, width, height);
  const sx = view.log2_x ? (x) => left +
          ((Math.log2(x) - Math.log2(r.x0)) / (Math.log2(r.x1) - Math.log2(r.x0))) * plotWidth :
                           (x) => left + ((x - r.x0) / (r.x1 - r.x0)) * plotWidth;
  const sy = (y) => top + plotHeight - ((y - r.y0) / (r.y1 - r.y0)) * plotHeight;
  const frame = {left, top, plotWidth, plotHeight, sx, sy};
  titleLines.forEach(
      (line, k) => svgText(
          svg, width / 2, 20 + k * 18, line, {class: 'plot-title', 'text-anchor': 'middle'}));
  drawAxes(svg, view, r, frame, tokenTicks, options);
  if (Number.isFinite(view.marked_x))
    svgEl(
        'line', {
          x1: sx(view.marked_x),
          x2: sx(view.marked_x),
          y1: top,
          y2: top + plotHeight,
          stroke: css(state.data.selected_colour),
          'stroke-width': 1.5,
          'stroke-dasharray': '6 4'
        },
        svg);
  const marks = svgEl('g', {class: 'series'}, svg);
  view.series.forEach((s, k) => drawSeries(marks, s, pens[k], tops[k], frame));
  drawLegend(svg, legend, left, height - legend.height - 2);
}

function drawAxes(svg, view, r, f, tokenTicks, options) {
  const {left, top, plotWidth, plotHeight, sx, sy} = f;
  const axes = svgEl('g', {class: 'axes'}, svg);
  const yt = niceTicks(r.y0, r.y1, Math.max(2, plotHeight / 45), view.integer_y);
  for (const v of yt.ticks) {
    if (v < r.y0 - 1e-9 || v > r.y1 + 1e-9) continue;
    svgEl('line', {x1: left, x2: left + plotWidth, y1: sy(v), y2: sy(v), stroke: '#eceef1'}, axes);
    svgText(axes, left - 6, sy(v) + 4, tickText(v, yt.step), {class: 'tick', 'text-anchor': 'end'});
  }
  const base = top + plotHeight;
  if (tokenTicks) {
    const sink = options.sinkTick && headIsSink();
    tokenTicks.texts.forEach((text, k) => {
      if (k % tokenTicks.stride) return;
      const x = sx(k);
      svgEl('line', {x1: x, x2: x, y1: base, y2: base + 4, stroke: '#666'}, axes);
      const attrs = tokenTicks.slanted ?
          {class: 'tick', 'text-anchor': 'end', transform: `rotate(-45 ${x} ${base + 12})`} :
          {class: 'tick', 'text-anchor': 'middle'};
      if (k === 0 && sink)
        Object.assign(attrs, {style: `fill:${css(state.data.sink_colour)}`, 'font-weight': 'bold'});
      svgText(axes, x, base + 16, text, attrs);
    });
  } else {
    for (const {v, text} of xTicks(view, r, plotWidth)) {
      svgEl('line', {x1: sx(v), x2: sx(v), y1: base, y2: base + 4, stroke: '#666'}, axes);
      svgText(axes, sx(v), base + 17, text, {class: 'tick', 'text-anchor': 'middle'});
    }
  }
  svgEl(
      'path', {d: `M${left} ${top}V${base}H${left + plotWidth}`, fill: 'none', stroke: '#555'},
      axes);
  const below = base + (tokenTicks ? tokenTicks.height : 20) + 16;
  svgText(
      axes, left + plotWidth / 2, below, view.x_label || '',
      {class: 'axis-label', 'text-anchor': 'middle'});
  svgText(axes, 0, 0, view.y_label || '', {
    class: 'axis-label',
    'text-anchor': 'middle',
    transform: `translate(14,${top + plotHeight / 2}) rotate(-90)`
  });
}

const finite = (v) => v !== null && v !== undefined && Number.isFinite(v);
const r0 = (s) => s.x.find(finite) || 0;

// What a point's hover says: the writer's tip, else its coordinates.
function pointTip(s, k) {
  if (s.tips && s.tips[k]) return `${s.name}\n${s.tips[k]}`;
  const label = s.labels && s.labels[k] ? `${s.labels[k]}: ` : '';
  return `${s.name}\n${label}${fmt(s.x[k])}, ${fmt(s.y[k])}`;
}

function drawSeries(parent, s, pen, tops, f) {
  const g = svgEl('g', {'data-series-group': s.name}, parent);
  const colour = css(pen.colour || REFERENCE_GREY);
  const stroke = {
    stroke: colour,
    'stroke-width': s.style === 'line' ? 2 : 1.5,
    fill: 'none',
    'stroke-dasharray': pen.dash
  };
  if (s.style === 'segments') {
    let d = '';
    for (let k = 0; k + 1 < s.x.length; k += 2)
      if ([s.x[k], s.y[k], s.x[k + 1], s.y[k + 1]].every(finite))
        d += `M${f.sx(s.x[k])} ${f.sy(s.y[k])}L${f.sx(s.x[k + 1])} ${f.sy(s.y[k + 1])}`;
    const room =
        f.plotHeight / Math.max(1, s.x.length / 2);  // many bars: thinner, so they stay apart
    svgEl('path', Object.assign({}, stroke, {d, 'stroke-width': clamp(0.6 * room, 1, 3)}), g);
  } else if (s.style === 'line' || s.style === 'reference' || s.style === 'threshold') {
    let d = '', pen_down = false;
    s.x.forEach((x, k) => {
      const ok = finite(x) && finite(s.y[k]);
      if (ok) d += `${pen_down ? 'L' : 'M'}${f.sx(x).toFixed(2)} ${f.sy(s.y[k]).toFixed(2)}`;
      pen_down = ok;  // undefined values leave a gap
    });
    svgEl('path', Object.assign({}, stroke, {d}), g);
  }
  if (s.lo && s.hi) drawIntervals(g, s, colour, f);
  drawPoints(g, s, pen, tops, f);
}

function drawIntervals(g, s, colour, f) {
  s.x.forEach((x, k) => {
    if (![x, s.lo[k], s.hi[k]].every(finite)) return;
    const px = f.sx(x), y0 = f.sy(s.lo[k]), y1 = f.sy(s.hi[k]);
    svgEl(
        'path', {
          d: `M${px} ${y0}V${y1}M${px - 3} ${y0}h6M${px - 3} ${y1}h6`,
          stroke: colour,
          'stroke-width': 1.2,
          fill: 'none'
        },
        g);
  });
}

// Every point carries its numbers as the JSON has them (data-x, data-y):
// markers where the series has them, invisible hover targets otherwise.
function drawPoints(g, s, pen, tops, f) {
  const colour = css(pen.colour || REFERENCE_GREY);
  const isData = s.style === 'line' || s.style === 'points';
  const spacing = s.x.length > 1 ?
      Math.min(...s.x.slice(1).map((x, k) => Math.abs(x - s.x[k])).filter((d) => d > 0), 1) :
      1;
  // Markers closer than 6 px would merge into a thick line: the line alone is drawn.
  const roomy = s.style === 'points' || f.sx(r0(s) + spacing) - f.sx(r0(s)) >= 6;
  s.x.forEach((x, k) => {
    const y = s.y[k];
    if (!finite(x) || !finite(y)) return;
    const attrs = {
      'data-series': s.name,
      'data-x': String(x),
      'data-y': String(y),
      'data-index': k,
      'data-tip': pointTip(s, k)
    };
    if (tops) {
      const [lo, hi] = tops[k];
      const w = f.sx(x + 0.35 * spacing) - f.sx(x - 0.35 * spacing);
      svgEl(
          'rect', Object.assign(attrs, {
            x: f.sx(x) - w / 2,
            y: f.sy(hi),
            width: w,
            height: Math.max(0, f.sy(lo) - f.sy(hi)),
            fill: colour
          }),
          g);
    } else if (isData && roomy && (s.markers || s.style === 'points')) {
      const scatter = s.style === 'points';
      svgEl(
          'circle', Object.assign(attrs, {
            cx: f.sx(x),
            cy: f.sy(y),
            r: scatter ? 4 : 3,
            fill: scatter ? css(pen.colour, 0.45) : colour,
            stroke: colour,
            'stroke-width': 1
          }),
          g);
    } else {
      svgEl(
          'circle', Object.assign(attrs, {cx: f.sx(x), cy: f.sy(y), r: 4, fill: 'transparent'}), g);
    }
  });
}

function drawLegend(svg, legend, left, top) {
  const g =
      svgEl('g', {class: 'legend', transform: `translate(${Math.max(8, left - 30)},${top})`}, svg);
  for (const {entry, x, y} of legend.items) {
    const {s, pen} = entry;
    const colour = css(pen.colour || REFERENCE_GREY);
    const cy = y + 8;
    if (s.style === 'stacked_bars')
      svgEl('rect', {x, y: cy - 6, width: 28, height: 12, fill: colour}, g);
    else if (s.style !== 'points')
      svgEl(
          'line', {
            x1: x,
            x2: x + 28,
            y1: cy,
            y2: cy,
            stroke: colour,
            'stroke-width': s.style === 'segments' ? 3 : 2,
            'stroke-dasharray': pen.dash
          },
          g);
    if (s.style === 'points' || (s.style === 'line' && s.markers))
      svgEl(
          'circle', {
            cx: x + 14,
            cy,
            r: s.style === 'points' ? 4 : 3,
            fill: s.style === 'points' ? css(pen.colour, 0.45) : colour,
            stroke: colour
          },
          g);
    svgText(g, x + 34, cy + 4, s.name, {class: 'legend-text'});
  }
}

// ---------------------------------------------------------------- value space
function drawScene(svg, scene) {
  if (!scene) {
    emptyView(svg);
    return;
  }
  const width = availableWidth(svg);
  const titleLines = wrapText(scene.title || '', 14, width - 10, 'bold');
  const legendLines = wrapText(scene.legend || '', 12.5, width - 10);
  const top = 8 + titleLines.length * 18 + legendLines.length * 16 + 10;
  const side = Math.min(width - (scene.colour_bar ? 90 : 20), 480);
  const height = top + side + 10;
  clearSvg(svg, width, height);
  titleLines.forEach(
      (line, k) => svgText(
          svg, width / 2, 20 + k * 18, line, {class: 'view-title', 'text-anchor': 'middle'}));
  legendLines.forEach(
      (line, k) => svgText(
          svg, width / 2, 22 + titleLines.length * 18 + k * 16, line,
          {class: 'scene-legend', 'text-anchor': 'middle'}));
  const project =
      sceneProjection(scene, (width - side) / 2 - (scene.colour_bar ? 35 : 0), top, side);
  svgEl(
      'rect', {x: project.x0, y: top, width: side, height: side, fill: 'none', stroke: '#eceef1'},
      svg);
  const clip = svgEl('clipPath', {id: 'scene-clip'}, svgEl('defs', {}, svg));
  svgEl('rect', {x: project.x0, y: top, width: side, height: side}, clip);
  const balls = svgEl('g', {'clip-path': 'url(#scene-clip)'}, svg);
  for (const ball of scene.balls) {
    if (!ball.centre.slice(0, 2).every(finite) || !finite(ball.radius)) continue;
    const [cx, cy] = project.point(ball.centre);
    svgEl(
        'circle', {
          cx,
          cy,
          r: ball.radius * project.scale,
          fill: css(ball.colour, 0.07),
          stroke: css(ball.colour, 0.8),
          'stroke-width': 1.5
        },
        balls);
  }
  for (const e of scene.edges) {
    const [a, b] = [scene.points[e.from], scene.points[e.to]].map((p) => project.point(p.position));
    svgEl(
        'line', {
          x1: a[0],
          y1: a[1],
          x2: b[0],
          y2: b[1],
          'stroke-opacity': clamp(e.weight, 0, 1),
          stroke: e.lit ? css(state.data.selected_colour) : '#555',
          'stroke-width': e.lit ? 2 : 1.2
        },
        svg);
  }
  const discs = drawScenePoints(svg, scene, project);
  placeSceneLabels(
      svg, scene, discs, {x0: project.x0, y0: top, x1: project.x0 + side, y1: top + side});
  if (scene.colour_bar) {
    const bar = scene.colour_bar;
    drawColourBar(
        svg, project.x0 + side + 12, top + side * 0.2, side * 0.6, bar.lo, bar.hi, bar.name,
        (t) => divergingColour(
            (bar.lo + t * (bar.hi - bar.lo)) /
            Math.max(Math.abs(bar.lo), Math.abs(bar.hi), 1e-12)));
  }
}

// Looking down the z axis: x right, y up, one unit as long on both axes.
// The points fill the frame; balls (full-space radii, often much larger) are cut at its edge.
function sceneProjection(scene, x0, top, side) {
  const xs = [], ys = [];
  const centres = scene.points.map((p) => p.position).concat(scene.balls.map((b) => b.centre));
  for (const c of centres)
    if (finite(c[0]) && finite(c[1])) {
      xs.push(c[0]);
      ys.push(c[1]);
    }
  if (!xs.length) {
    xs.push(0);
    ys.push(0);
  }
  const span =
      Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys), 1e-9) * 1.12;
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2, cy = (Math.max(...ys) + Math.min(...ys)) / 2;
  const scale = side / span;
  return {
    x0,
    scale,
    point: (p) => [x0 + side / 2 + (p[0] - cx) * scale, top + side / 2 - (p[1] - cy) * scale]
  };
}

function drawScenePoints(svg, scene, project) {
  const g = svgEl('g', {class: 'scene-points'}, svg);
  const discs = [];
  scene.points.forEach((p, k) => {
    if (!finite(p.position[0]) || !finite(p.position[1])) return;
    const [x, y] = project.point(p.position);
    const r = 5 * (p.size || 1);
    const attrs = {
      cx: x,
      cy: y,
      r,
      fill: css(p.colour),
      stroke: p.sink_ring ? css(state.data.sink_colour) : '#fff',
      'stroke-width': p.sink_ring ? 2.5 : 1,
      'data-tip': p.label || `point ${k}`,
      'data-index': k
    };
    if (p.token >= 0) attrs['data-token'] = p.token;
    svgEl('circle', attrs, g);
    discs.push({k, x, y, r, size: p.size || 1, label: p.label});
  });
  return discs;
}

// Greedy label placement: larger points first, each label at the first free
// spot around its point; a label with no free spot is left out.
function placeSceneLabels(svg, scene, discs, bounds) {
  const g = svgEl('g', {class: 'scene-labels'}, svg);
  let candidates = discs.filter((d) => d.label);
  candidates.sort((a, b) => b.size - a.size || a.k - b.k);
  if (candidates.length > 64)
    candidates = candidates.slice(0, 24);  // as the desktop: only the largest
  const taken = [];
  const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  const hitsDisc = (box, self) => discs.some(
      (d) => d !== self &&
          (clamp(d.x, box.x0, box.x1) - d.x) ** 2 + (clamp(d.y, box.y0, box.y1) - d.y) ** 2 <
              d.r * d.r);
  for (const d of candidates) {
    const w = textWidth(d.label, 12) + 2, h = 13, gap = d.r + 3;
    const spots = [
      [gap, -h / 2], [-gap - w, -h / 2], [-w / 2, -gap - h], [-w / 2, gap],
      [gap * 0.7, -gap * 0.7 - h], [gap * 0.7, gap * 0.7], [-gap * 0.7 - w, -gap * 0.7 - h],
      [-gap * 0.7 - w, gap * 0.7]
    ];
    for (const [dx, dy] of spots) {
      const box = {x0: d.x + dx, y0: d.y + dy, x1: d.x + dx + w, y1: d.y + dy + h};
      const inside =
          box.x0 >= bounds.x0 && box.x1 <= bounds.x1 && box.y0 >= bounds.y0 && box.y1 <= bounds.y1;
      if (!inside || taken.some((t) => overlaps(t, box)) || hitsDisc(box, d)) continue;
      taken.push(box);
      svgText(g, box.x0 + 1, box.y1 - 3, d.label, {class: 'tick', 'data-label-of': d.k});
      break;
    }
  }
}

// ---------------------------------------------------------------- drawing a head
// Each panel is drawn on its own: one view the viewer cannot read leaves the others standing.
function drawHead() {
  const views = state.current.views;
  const failures = [];
  const guard = (name, draw) => {
    try {
      draw();
    } catch (error) {
      failures.push(`${name}: ${error.message}`);
    }
  };
  const height = (id) => Number(byId(id).getAttribute('height')) || 0;
  drawHeadings();
  measurePanels();
  guard('summary', drawSummary);
  guard('attention map', drawAttentionMap);
  guard('head view', drawHeadView);
  guard(
      'key importance',
      () => drawPlot(byId('key-importance'), views.key_importance, {height: 330, sinkTick: true}));
  // The square diagram and the value space set the height of the plots beside them.
  guard('persistence diagram', () => drawPlot(byId('diagram'), views.diagram, {height: 380}));
  guard(
      'barcode',
      () => drawPlot(byId('barcode'), views.barcode, {height: Math.max(380, height('diagram'))}));
  guard(
      'spectrum',
      () => drawPlot(byId('spectrum'), views.spectrum, {height: Math.max(380, height('diagram'))}));
  guard('value space', () => drawScene(byId('value-space'), views.value_space));
  guard('value curve', () => drawPlot(byId('value-curve'), views.value_curve, {
                         height: Math.max(380, height('value-space'))
                       }));
  if (state.pinned)
    showCell(state.pinned.query, state.pinned.key, true);
  else
    byId('cell-frame').hidden = true;
  if (failures.length)
    showError(`Some views of layer ${state.layer}, head ${state.head} could not be drawn:\n${
        failures.join('\n')}`);
  else if (document.body.dataset.error !== 'data')
    hideError();
}

// Views are drawn to their panel's width in pixels (crisp text), so a new width redraws them.
function onResize() {
  clearTimeout(onResize.timer);
  onResize.timer = setTimeout(() => {
    drawOverview();
    if (state.current) drawHead();
  }, 150);
}

// ---------------------------------------------------------------- start
function readData() {
  let data;
  try {
    data = JSON.parse(byId('sinkscope-data').textContent);
  } catch (error) {
    throw new Error(`The page's data is not valid JSON (${error.message}).`);
  }
  if (data.format !== 'sinkscope-web-page')
    throw new Error('The page holds no SinkScope data (format is not "sinkscope-web-page").');
  if (data.version !== 1)
    throw new Error(
        `This viewer reads version 1 of the page data; this page has version ${data.version}.`);
  const L = data.model.layers, H = data.model.heads;
  if (data.attention.length !== L * H || data.heads.length !== L * H)
    throw new Error(`The page should hold ${L * H} heads (${L} layers × ${H} heads) but holds ${
        data.attention.length}.`);
  return data;
}

function start() {
  try {
    if (typeof DecompressionStream !== 'function')
      throw new Error(
          'This browser cannot unpack the page (no DecompressionStream). Please open it in a current Firefox, Chrome, Edge or Safari.');
    state.data = readData();
  } catch (error) {
    return showError(error.message, 'data');
  }
  Object.assign(
      state, {L: state.data.model.layers, H: state.data.model.heads, T: state.data.tokens.length});
  fillStaticText();
  fillSelects();
  setUpTooltip();
  setUpAttentionMap();
  drawOverview();
  byId('copy-command').addEventListener('click', copyCommand);
  document.addEventListener('keydown', onKey);
  window.addEventListener('hashchange', applyHash);
  window.addEventListener('resize', onResize);
  applyHash();
}

start();
})();
