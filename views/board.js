// The board view (MCP Apps) for CanvasApi.ReadBoard, CreateDiagram and ViewBoard: the board region
// as SVG, drawn by the same builder as ViewBoard's PNG (board-picture.ts, bundled in), with pan
// (drag), zoom (wheel, + and - buttons) and a panel that shows the clicked item's text, ID and link.
// Its data is the result's _meta["io.github.toolservers/board"], which the server sends only to
// clients that declared MCP Apps. Platform text reaches the page as SVG text nodes (the builder
// escapes it, and the SVG is parsed as XML, never as HTML) and, in the panel, through textContent.
import { App } from '@modelcontextprotocol/ext-apps';
import { boardSvg } from '../src/canvasapi/tasks/board-picture.ts';

const DATA_KEY = 'io.github.toolservers/board';
const SVG_NS = 'http://www.w3.org/2000/svg';
/** The drawing's long side in SVG units: the view zooms from there. */
const LONG_SIDE = 1600;
const MAX_SCALE = 2;
const ZOOM_STEP = 1.25;
/** A press that moves less than this many pixels is a click, not a drag. */
const CLICK_SLOP = 4;

const app = new App({ name: 'toolservers board view', version: '1' });

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The picture's size for the area, the area widened to whole units (as ViewBoard's fitPicture does). */
function fitted(area) {
  const w = Math.max(1, area.x1 - area.x0);
  const h = Math.max(1, area.y1 - area.y0);
  const scale = Math.min(MAX_SCALE, LONG_SIDE / Math.max(w, h));
  const widthPx = Math.max(1, Math.round(w * scale));
  const heightPx = Math.max(1, Math.round(h * scale));
  return { area: { x0: area.x0, y0: area.y0, x1: area.x0 + widthPx / scale, y1: area.y0 + heightPx / scale }, widthPx, heightPx, scale };
}

function heading(content) {
  const board = content && typeof content.board === 'object' ? content.board : undefined;
  if (board && board.name) return `Board ${board.name}`;
  const id = board?.id ?? content?.board_id;
  return id ? `Board ${id}` : 'Board';
}

function render(result) {
  const root = document.getElementById('board');
  root.replaceChildren();
  const data = result?._meta?.[DATA_KEY];
  const content = result?.structuredContent;
  root.append(el('h1', '', heading(content)));
  if (!data || !Array.isArray(data.items) || typeof data.area !== 'object') {
    root.append(el('p', 'note', result?.isError ? 'The call failed: see its text.' : 'This result has no board to draw.'));
    document.body.dataset.rendered = 'true';
    return;
  }
  const summary = `${data.items.length} item${data.items.length === 1 ? '' : 's'}, ${data.connectors.length} connector${data.connectors.length === 1 ? '' : 's'}`;
  root.append(el('p', 'note', data.omitted ? `${summary} (${data.omitted.items} items and ${data.omitted.connectors} connectors of the answer not drawn: the view's data is bounded)` : summary));

  const picture = fitted(data.area);
  const svgText = boardSvg({ ...picture, items: data.items, connectors: data.connectors });
  const parsed = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const svg = document.importNode(parsed.documentElement, true);
  if (svg.namespaceURI !== SVG_NS || svg.localName !== 'svg') {
    root.append(el('p', 'note', 'The board could not be drawn.'));
    document.body.dataset.rendered = 'true';
    return;
  }
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  // Board coordinates → SVG units: (x - x0) * scale, for tests and the selection box.
  svg.dataset.scale = String(picture.widthPx / (picture.area.x1 - picture.area.x0));
  svg.dataset.x0 = String(picture.area.x0);
  svg.dataset.y0 = String(picture.area.y0);

  const bar = el('div', 'bar');
  const zoomIn = el('button', '', '+');
  const zoomOut = el('button', '', '−');
  const reset = el('button', '', 'Fit');
  zoomIn.dataset.zoom = 'in';
  zoomOut.dataset.zoom = 'out';
  reset.dataset.zoom = 'fit';
  zoomIn.title = 'Zoom in';
  zoomOut.title = 'Zoom out';
  reset.title = 'Show the whole region';
  bar.append(zoomIn, zoomOut, reset, el('span', 'note', 'Drag to pan, wheel to zoom, click an item for its text, ID and link.'));

  const layout = el('div', 'layout');
  const canvas = el('div', 'canvas');
  const panel = el('aside', 'panel');
  panel.append(el('p', 'note', 'Click an item.'));
  canvas.append(svg);
  layout.append(canvas, panel);
  root.append(bar, layout);

  const items = new Map(data.items.map((item) => [item.id, item]));
  const whole = { x: 0, y: 0, w: picture.widthPx, h: picture.heightPx };
  let box = { ...whole };
  const show = () => svg.setAttribute('viewBox', `${box.x} ${box.y} ${box.w} ${box.h}`);
  const toUser = (clientX, clientY, matrix = svg.getScreenCTM()) => {
    const point = svg.createSVGPoint();
    point.x = clientX;
    point.y = clientY;
    return point.matrixTransform(matrix.inverse());
  };
  /** Zooms by `factor` keeping the SVG point `at` where it is. */
  const zoom = (factor, at) => {
    const w = Math.min(whole.w * 4, Math.max(whole.w / 50, box.w / factor));
    const k = box.w / w;
    box = { x: at.x - (at.x - box.x) / k, y: at.y - (at.y - box.y) / k, w, h: box.h / k };
    show();
  };
  const centre = () => ({ x: box.x + box.w / 2, y: box.y + box.h / 2 });
  zoomIn.addEventListener('click', () => zoom(ZOOM_STEP, centre()));
  zoomOut.addEventListener('click', () => zoom(1 / ZOOM_STEP, centre()));
  reset.addEventListener('click', () => {
    box = { ...whole };
    show();
  });
  canvas.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      zoom(event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, toUser(event.clientX, event.clientY));
    },
    { passive: false },
  );

  let drag;
  canvas.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    drag = { id: event.pointerId, clientX: event.clientX, clientY: event.clientY, matrix: svg.getScreenCTM(), from: { ...box }, moved: false };
    drag.start = toUser(event.clientX, event.clientY, drag.matrix);
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.moved && Math.hypot(event.clientX - drag.clientX, event.clientY - drag.clientY) < CLICK_SLOP) return;
    drag.moved = true;
    canvas.classList.add('dragging');
    // Measured with the matrix of the press, so the point under the pointer stays under it.
    const now = toUser(event.clientX, event.clientY, drag.matrix);
    box = { ...drag.from, x: drag.from.x - (now.x - drag.start.x), y: drag.from.y - (now.y - drag.start.y) };
    show();
  });
  const release = (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const clicked = !drag.moved;
    drag = undefined;
    canvas.classList.remove('dragging');
    if (event.type !== 'pointerup' || !clicked) return;
    // The press went to the canvas (pointer capture): find what lies under it.
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const group = under && typeof under.closest === 'function' ? under.closest('g[data-id]') : null;
    select(group ? items.get(group.getAttribute('data-id')) : undefined);
  };
  canvas.addEventListener('pointerup', release);
  canvas.addEventListener('pointercancel', release);

  const selection = document.createElementNS(SVG_NS, 'rect');
  selection.setAttribute('class', 'selection');
  selection.setAttribute('fill', 'none');
  selection.setAttribute('stroke', '#0969da');
  selection.setAttribute('stroke-width', '3');
  selection.setAttribute('pointer-events', 'none');
  selection.setAttribute('visibility', 'hidden');
  svg.append(selection);

  function select(item) {
    panel.replaceChildren();
    if (!item) {
      selection.setAttribute('visibility', 'hidden');
      panel.append(el('p', 'note', 'Click an item.'));
      return;
    }
    const scale = Number(svg.dataset.scale);
    selection.setAttribute('x', String((item.x - item.width / 2 - picture.area.x0) * scale - 3));
    selection.setAttribute('y', String((item.y - item.height / 2 - picture.area.y0) * scale - 3));
    selection.setAttribute('width', String(item.width * scale + 6));
    selection.setAttribute('height', String(item.height * scale + 6));
    selection.setAttribute('visibility', 'visible');
    panel.dataset.selected = item.id;
    panel.append(el('h2', '', item.type.replace(/_/g, ' ')));
    const list = el('dl');
    const row = (label, part, value) => {
      const dd = el('dd');
      dd.dataset.part = part;
      if (typeof value === 'string') dd.textContent = value;
      else dd.append(value);
      list.append(el('dt', '', label), dd);
    };
    row('Text', 'text', item.text || '(no text)');
    row('ID', 'id', item.id);
    const url = linkOf(data.link_template, item.id);
    if (url) {
      const link = el('a', '', url);
      link.href = url;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      // A sandboxed view asks its host to open links.
      link.addEventListener('click', (event) => {
        event.preventDefault();
        app.openLink({ url }).catch(() => {});
      });
      row('Link', 'link', link);
    }
    panel.append(list);
  }

  show();
  document.body.dataset.rendered = 'true';
}

/** The item's link from the server's own template; nothing else is ever made a link. */
function linkOf(template, id) {
  if (typeof template !== 'string' || !template.includes('{item_id}')) return undefined;
  const url = template.replace('{item_id}', encodeURIComponent(id));
  return /^https?:\/\//.test(url) ? url : undefined;
}

app.ontoolresult = (result) => render(result);
app.connect();
