// The layout playground: the `layout` tool's commands, compiled to WebAssembly
// (const_layout_web.wasm), driven from this page. No framework, no network but the module.
//
// The module's interface (web/module/src/lib.rs): `layout_input(len) -> addr` (room for a request),
// `layout_run() -> n`, `layout_output() -> addr`. A request is the tool's arguments joined by NUL
// bytes; the response is `0` + what the tool prints, or `1` + its one-line error.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const INTERNAL = 'internal error (a bug, please report it)';
  const VIEWS = ['eval', 'steps', 'conflicts', 'coalescing', 'swizzle', 'atoms', 'tma', 'ck', 'rocroller'];
  const DEFAULT_ATOM = 'SM80_16x8x16_F32F16F16F32_TN';
  // The operations `layout steps` explains (src/tool/steps.rs).
  const STEPS_OPS = new Set([
    'composition',
    'logical_divide',
    'zipped_divide',
    'tiled_divide',
    'flat_divide',
    'logical_product',
    'zipped_product',
    'tiled_product',
    'flat_product',
    'blocked_product',
    'raked_product',
  ]);

  let wasmModule = null; // the compiled module, kept to re-instantiate after a trap
  let instance = null;
  let view = 'eval';

  const playground = (window.__playground = {
    ready: false,
    lastUpdateMs: null,
    lastSvg: null, // the Evaluate view's SVG, exactly as the module printed it
    lastStepsSvg: null, // the Steps view's SVG (`steps --svg`)
    lastConflictsSvg: null, // the Bank conflicts view's SVG
    lastAtomSvg: null, // the Atoms view's SVG (an MMA operand's TV layout)
    lastTmaSvg: null, // the TMA box view's SVG (the shared-memory tile)
    lastCkSvg: null, // the CK Tile view's SVG (`ck-tile --svg`)
    lastRocSvg: null, // the rocRoller view's graph (`rocroller --svg`)
    lastRocTableSvg: null, // the rocRoller view's first table (`rocroller --table-svg`)
    run, // the raw call: run(['eval', '(8,4):(1,8)']) -> {ok, text}
    trapNextCall: false, // set by a test: the next call traps (the module is re-instantiated)
    instantiations: 0,
    update: () => updateView(view),
    setView: (v) => setView(v, true),
    get savePending() {
      return saveTimer !== 0; // location.hash is behind the inputs until the write scheduled
    },
  });

  // ---------------------------------------------------------------- the module

  function reinstantiate() {
    instance = null;
    try {
      instance = new WebAssembly.Instance(wasmModule, {});
      playground.instantiations++;
    } catch (_) {
      // A browser may refuse a synchronous instantiation of a large module on the main thread.
      WebAssembly.instantiate(wasmModule, {}).then((i) => {
        instance = i;
        playground.instantiations++;
        updateView(view);
      });
    }
  }

  /** The raw call: the tool's arguments -> {ok, text}. */
  function run(args) {
    if (!instance) return { ok: false, text: 'the WebAssembly module is not loaded (yet)' };
    const x = instance.exports;
    try {
      const request = encoder.encode(args.join('\0'));
      // trapNextCall (for the browser test): make this call trap, as a panic would.
      const len = playground.trapNextCall ? ((playground.trapNextCall = false), 0xffffffff) : request.length;
      const at = x.layout_input(len);
      new Uint8Array(x.memory.buffer, at, request.length).set(request);
      const n = x.layout_run();
      const response = new Uint8Array(x.memory.buffer, x.layout_output(), n);
      return { ok: response[0] === 0x30 /* '0' */, text: decoder.decode(response.subarray(1)) };
    } catch (e) {
      // A panic aborts: WebAssembly.RuntimeError (unreachable). The instance is unusable now.
      console.error('layout module trapped on', args, e);
      reinstantiate();
      return { ok: false, text: INTERNAL, internal: true };
    }
  }

  // ---------------------------------------------------------------- helpers

  function show(el, on) {
    el.hidden = !on;
  }

  function shellQuote(s) {
    return /^[A-Za-z0-9_.,:\/=+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }

  function setCommand(args) {
    $('command-line').textContent = 'layout ' + args.map(shellQuote).join(' ');
  }

  // Pictures are drawn on a canvas from the module's SVG text, by the small renderer below: the
  // tool's pictures use a fixed subset of SVG (svg, title, g, rect, text, line; flat attributes,
  // rgb() colours). A 64 x 64 layout's picture is 8,000 elements: inserted into the document they
  // cost 60-90 ms of style and layout an update, and as an <img> of the SVG the browser's own
  // rasteriser took 180 ms to decode it; on a canvas it is drawn within the update. The text is
  // kept as printed (`lastSvg` and friends) for the browser test, which compares it with the
  // tool's, and offered as a download. A picture too large for a canvas falls back to an image.
  const pictureUrls = new Map();
  const MAX_CANVAS_PIXELS = 1 << 25; // Chromium refuses larger canvases (and they cost memory)
  const MAX_CANVAS_SIDE = 32767;
  const ATTR = /([a-z-]+)="([^"]*)"/g;
  const ENTITY = /&(lt|gt|amp|quot|apos);/g;
  const ENTITIES = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
  const INHERITED = ['fill', 'stroke', 'stroke-width', 'font-family', 'font-size', 'text-anchor'];

  function attributes(text) {
    const a = {};
    ATTR.lastIndex = 0;
    for (let m; (m = ATTR.exec(text)); ) a[m[1]] = m[2];
    return a;
  }

  /** The picture's size: the root element's width and height. */
  function svgSize(svg) {
    const m = /<svg\b[^>]*>/.exec(svg);
    if (!m) return null;
    const a = attributes(m[0]);
    const w = Number(a.width);
    const h = Number(a.height);
    return w > 0 && h > 0 ? { w, h } : null;
  }

  /**
   * The tool's SVG as a display list, in document order: rects, texts and lines with their
   * inherited attributes resolved. The bulk of a picture is cells, written the same way every
   * time (`<rect x y width height fill/>` in a group, `<text x y>..</text>`): FAST reads those
   * with one regular expression; everything else goes through the general path.
   */
  const FAST =
    /<rect x="(-?[\d.]+)" y="(-?[\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="([^"]+)"\/>|<text x="(-?[\d.]+)" y="(-?[\d.]+)">([^<&]*)<\/text>|<(\/?)([a-z]+)\b([^>]*?)\/?>|([^<]+)/g;

  function style(a, top) {
    const st = {};
    for (const k of INHERITED) st[k] = a[k] !== undefined ? a[k] : top[k];
    const size = Number(st['font-size']);
    st.size = size;
    st.font = size + 'px ' + st['font-family'];
    st.align = st['text-anchor'] === 'middle' ? 'center' : st['text-anchor'] === 'end' ? 'right' : 'left';
    st.lw = st.stroke === 'none' ? 0 : Number(st['stroke-width']);
    return st;
  }

  function displayList(svg) {
    const ops = [];
    const stack = [style({}, { fill: 'black', stroke: 'none', 'stroke-width': '1', 'font-family': 'serif', 'font-size': '16', 'text-anchor': 'start' })];
    let text = null; // the open <text>'s style and position
    const pushText = (st, x, y, s) => ops.push({ k: 't', st, x, y, s });
    FAST.lastIndex = 0;
    for (let m; (m = FAST.exec(svg)); ) {
      if (m[1] !== undefined) {
        ops.push({ k: 'r', st: stack[stack.length - 1], x: +m[1], y: +m[2], w: +m[3], h: +m[4], fill: m[5], cell: true });
        continue;
      }
      if (m[6] !== undefined) {
        pushText(stack[stack.length - 1], +m[6], +m[7], m[8]);
        continue;
      }
      if (m[12] !== undefined) {
        if (text) pushText(text.st, text.x, text.y, m[12].replace(ENTITY, (_, e) => ENTITIES[e]));
        continue;
      }
      const close = m[9], name = m[10], rest = m[11];
      if (close) {
        if (name === 'g' || name === 'svg') stack.length > 1 && stack.pop();
        else if (name === 'text') text = null;
        continue;
      }
      if (name !== 'svg' && name !== 'g' && name !== 'rect' && name !== 'text' && name !== 'line') continue;
      const a = attributes(rest);
      const st = style(a, stack[stack.length - 1]);
      const selfClosing = m[0].endsWith('/>');
      if (name === 'svg' || name === 'g') {
        if (!selfClosing) stack.push(st);
      } else if (name === 'text') {
        if (!selfClosing) text = { st, x: Number(a.x || 0), y: Number(a.y || 0) };
      } else if (name === 'rect') {
        ops.push({ k: 'r', st, x: Number(a.x || 0), y: Number(a.y || 0), w: Number(a.width), h: Number(a.height), fill: st.fill });
      } else {
        ops.push({ k: 'l', st, x: Number(a.x1 || 0), y: Number(a.y1 || 0), x2: Number(a.x2 || 0), y2: Number(a.y2 || 0) });
      }
    }
    return ops;
  }

  /** An op's bounding box [x0, y0, x1, y1] (texts: estimated generously from the font size, so
   * that no glyph is cut at a tile's edge). */
  function bounds(op) {
    const lw = op.st.lw;
    if (op.k === 'r') return [op.x - lw, op.y - lw, op.x + op.w + lw, op.y + op.h + lw];
    if (op.k === 'l') {
      return [Math.min(op.x, op.x2) - lw, Math.min(op.y, op.y2) - lw, Math.max(op.x, op.x2) + lw, Math.max(op.y, op.y2) + lw];
    }
    const size = op.st.size;
    const w = op.s.length * size; // a monospace advance is about 0.6 of the size: twice that
    const x0 = op.st.align === 'center' ? op.x - w / 2 : op.st.align === 'right' ? op.x - w : op.x;
    return [x0 - size, op.y - 2 * size, x0 + w + size, op.y + size];
  }

  /**
   * Draws `ops` (in order) on a context already scaled to the picture's user units. A run of
   * cells (consecutive `cell` rects of one group, which never overlap) is drawn as one path per
   * fill colour and one stroke: the same pixels as cell by cell (a cell's stroke is redrawn by
   * its neighbour's in either order), at a fraction of the calls.
   */
  function drawOps(ctx, ops) {
    let font = '', align = '';
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      const st = op.st;
      if (op.k === 't') {
        if (st.font !== font) ctx.font = font = st.font;
        if (st.align !== align) ctx.textAlign = align = st.align;
        ctx.fillStyle = st.fill;
        ctx.fillText(op.s, op.x, op.y);
        continue;
      }
      if (st.lw > 0) {
        ctx.strokeStyle = st.stroke;
        ctx.lineWidth = st.lw;
      }
      if (op.k === 'r' && op.cell) {
        let j = i;
        const byFill = new Map();
        for (; j < ops.length && ops[j].cell && ops[j].st === st; j++) {
          const f = ops[j].fill;
          if (!byFill.has(f)) byFill.set(f, []);
          byFill.get(f).push(ops[j]);
        }
        for (const [f, cells] of byFill) {
          if (f === 'none') continue;
          ctx.fillStyle = f;
          ctx.beginPath();
          for (const c of cells) ctx.rect(c.x, c.y, c.w, c.h);
          ctx.fill();
        }
        if (st.lw > 0) {
          ctx.beginPath();
          for (let k = i; k < j; k++) ctx.rect(ops[k].x, ops[k].y, ops[k].w, ops[k].h);
          ctx.stroke();
        }
        i = j - 1;
      } else if (op.k === 'r') {
        if (op.fill !== 'none') {
          ctx.fillStyle = op.fill;
          ctx.fillRect(op.x, op.y, op.w, op.h);
        }
        if (st.lw > 0) ctx.strokeRect(op.x, op.y, op.w, op.h);
      } else if (st.lw > 0) {
        ctx.beginPath();
        ctx.moveTo(op.x, op.y);
        ctx.lineTo(op.x2, op.y2);
        ctx.stroke();
      }
    }
  }

  // A large picture is drawn by tiles: first those in sight, within the update; the rest in
  // slices of at most TILE_BUDGET_MS, one after each frame, and those a scroll brings into sight
  // at once.
  // Each tile is clipped to its square (whole device pixels) and draws, in document order, every
  // element that reaches it, so the tiles together are exactly the whole picture.
  const TILE = 256; // user units
  const TILE_BUDGET_MS = 6;

  /** Runs `f` after the next frame is produced (a task queued from its animation callback). */
  function afterNextFrame(f) {
    requestAnimationFrame(() => setTimeout(f, 0));
  }

  class TiledPicture {
    constructor(canvas, box, ops, w, h, scale) {
      Object.assign(this, { canvas, box, w, h, scale, cancelled: false });
      this.ctx = canvas.getContext('2d');
      this.cols = Math.ceil(w / TILE);
      const rows = Math.ceil(h / TILE);
      this.tiles = Array.from({ length: this.cols * rows }, () => []);
      for (const o of ops) {
        const [x0, y0, x1, y1] = bounds(o);
        const c0 = Math.max(0, Math.floor(x0 / TILE)), c1 = Math.min(this.cols - 1, Math.floor(x1 / TILE));
        const r0 = Math.max(0, Math.floor(y0 / TILE)), r1 = Math.min(rows - 1, Math.floor(y1 / TILE));
        for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) this.tiles[r * this.cols + c].push(o);
      }
      this.left = new Set(this.tiles.keys());
      this.done = new Promise((resolve) => (this.resolveDone = resolve));
      this.onScroll = () => this.drawVisible();
      box.addEventListener('scroll', this.onScroll, { passive: true });
      window.addEventListener('scroll', this.onScroll, { passive: true });
    }

    drawTile(t) {
      if (!this.left.delete(t)) return;
      const ctx = this.ctx;
      const x = (t % this.cols) * TILE, y = Math.floor(t / this.cols) * TILE;
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, TILE, TILE);
      ctx.clip();
      ctx.clearRect(x, y, TILE, TILE); // a kept canvas holds the last picture
      drawOps(ctx, this.tiles[t]);
      ctx.restore();
      this.tiles[t] = null;
      if (this.left.size === 0) this.finish();
    }

    /** The tiles in sight: the canvas's part inside its scroll box and the window. */
    visibleTiles() {
      const c = this.canvas.getBoundingClientRect();
      const b = this.box.getBoundingClientRect();
      const left = Math.max(c.left, b.left, 0), right = Math.min(c.right, b.right, window.innerWidth);
      const top = Math.max(c.top, b.top, 0), bottom = Math.min(c.bottom, b.bottom, window.innerHeight);
      if (right <= left || bottom <= top || c.width === 0) return [];
      const u = this.w / c.width; // user units per CSS pixel
      const c0 = Math.floor(((left - c.left) * u) / TILE), c1 = Math.floor(((right - c.left) * u - 1e-6) / TILE);
      const r0 = Math.floor(((top - c.top) * u) / TILE), r1 = Math.floor(((bottom - c.top) * u - 1e-6) / TILE);
      const out = [];
      for (let r = r0; r <= r1; r++) for (let col = c0; col <= c1; col++) out.push(r * this.cols + col);
      return out;
    }

    drawVisible() {
      if (this.cancelled) return;
      for (const t of this.visibleTiles()) this.drawTile(t);
    }

    /** The tiles out of sight, a slice at a time. */
    drawRest() {
      if (this.cancelled || this.left.size === 0) return;
      const t0 = performance.now();
      for (const t of this.left) {
        this.drawTile(t);
        if (performance.now() - t0 > TILE_BUDGET_MS) break;
      }
      if (this.left.size > 0) afterNextFrame(() => this.drawRest());
    }

    finish() {
      this.box.removeEventListener('scroll', this.onScroll);
      window.removeEventListener('scroll', this.onScroll);
      this.resolveDone(true);
    }

    cancel() {
      this.cancelled = true;
      this.finish();
    }
  }

  const tiledPictures = new Map(); // picture element id -> its TiledPicture while drawing
  const pendingPictures = []; // pictures whose tiles in sight are still to draw

  /** Draws the tiles in sight of the pictures just made, and schedules the rest. */
  function flushPictures() {
    for (const p of pendingPictures.splice(0)) {
      p.drawVisible();
      afterNextFrame(() => p.drawRest());
    }
  }

  /** Shows `svg` (the module's text, or null for none) in the picture element `el`. */
  function drawPicture(el, svg) {
    const old = pictureUrls.get(el.id);
    if (old) URL.revokeObjectURL(old);
    pictureUrls.delete(el.id);
    const drawing = tiledPictures.get(el.id);
    if (drawing) drawing.cancel();
    tiledPictures.delete(el.id);
    // The canvas is kept while the picture's size is: a new one costs the allocation and clearing
    // of its pixels, the most expensive part of a large picture's first frame.
    const reuse = el.querySelector('canvas');
    el.textContent = '';
    if (svg === null) return;
    const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    pictureUrls.set(el.id, url);
    const size = svgSize(svg);
    // Small pictures (a few cells) at twice their size: the tool draws a cell 24 to 36 pixels wide.
    const scale = size && size.w < 400 ? 2 : 1;
    const dpr = window.devicePixelRatio || 1;
    const pw = size && Math.ceil(size.w * scale * dpr);
    const ph = size && Math.ceil(size.h * scale * dpr);
    if (size && pw <= MAX_CANVAS_SIDE && ph <= MAX_CANVAS_SIDE && pw * ph <= MAX_CANVAS_PIXELS) {
      const same = reuse && reuse.width === pw && reuse.height === ph;
      const canvas = same ? reuse : document.createElement('canvas');
      if (!same) {
        canvas.width = pw;
        canvas.height = ph;
        canvas.style.width = size.w * scale + 'px';
        canvas.style.height = size.h * scale + 'px';
        canvas.setAttribute('role', 'img');
        canvas.getContext('2d').scale(scale * dpr, scale * dpr);
      }
      const title = /<title>([^<]*)<\/title>/.exec(svg);
      canvas.setAttribute('aria-label', title ? title[1].replace(ENTITY, (_, e) => ENTITIES[e]) : 'the picture');
      el.append(canvas);
      const picture = new TiledPicture(canvas, el, displayList(svg), size.w, size.h, scale * dpr);
      tiledPictures.set(el.id, picture);
      picture.done.then(() => tiledPictures.get(el.id) === picture && tiledPictures.delete(el.id));
      // The tiles in sight once the caller has shown the element (updateView flushes them, in
      // this task, before the frame); the rest between frames.
      if (pendingPictures.length === 0) queueMicrotask(flushPictures);
      pendingPictures.push(picture);
    } else {
      const img = document.createElement('img');
      img.alt = 'the picture';
      img.src = url;
      el.append(img);
    }
    const link = document.createElement('a');
    link.href = url;
    link.download = (el.id === 'picture' ? 'layout' : el.id.replace('-picture', '')) + '.svg';
    link.textContent = 'SVG';
    link.className = 'download';
    el.append(link);
  }

  /** For the browser test: resolves when the picture in `id` is drawn whole. */
  playground.pictureDrawn = (id) => {
    const p = tiledPictures.get(id);
    return p ? p.done : Promise.resolve(true);
  };

  /**
   * For the browser test: how far the canvas in `id` is from the browser's own rasterisation of
   * the same SVG (an <img> drawn on a canvas of the same size): the fraction of pixels whose
   * colour differs by more than `tolerance` in some channel.
   */
  playground.rasterDifference = (id, tolerance = 64) =>
    playground.pictureDrawn(id).then(() => new Promise((resolve) => {
      const el = $(id);
      const canvas = el.querySelector('canvas');
      const url = pictureUrls.get(id);
      if (!canvas || !url) return resolve(null);
      const img = new Image();
      img.onload = () => {
        const ref = document.createElement('canvas');
        ref.width = canvas.width;
        ref.height = canvas.height;
        const rctx = ref.getContext('2d');
        rctx.drawImage(img, 0, 0, ref.width, ref.height);
        const a = canvas.getContext('2d').getImageData(0, 0, ref.width, ref.height).data;
        const b = rctx.getImageData(0, 0, ref.width, ref.height).data;
        let off = 0;
        for (let i = 0; i < a.length; i += 4) {
          if (
            Math.abs(a[i] - b[i]) > tolerance ||
            Math.abs(a[i + 1] - b[i + 1]) > tolerance ||
            Math.abs(a[i + 2] - b[i + 2]) > tolerance
          )
            off++;
        }
        resolve(off / (a.length / 4));
      };
      img.onerror = () => resolve(null);
      img.src = url;
    }));

  /** Runs a view's command: the footer shows it, `out` its text, `err` its error. */
  function runText(args, out, err) {
    setCommand(args);
    const r = run(args);
    $(out).textContent = r.ok ? r.text : '';
    setError($(err), r.ok ? '' : r.text);
    return r;
  }

  function setError(el, text) {
    el.textContent = text || '';
    show(el, !!text);
  }

  /** Options `--name value` for the non-empty ones. */
  function options(pairs) {
    const out = [];
    for (const [name, value] of pairs) {
      const v = value.trim();
      if (v !== '') out.push(name, v);
    }
    return out;
  }

  // ---------------------------------------------------------------- Evaluate

  /** Marks the column an error message names (`column N: ...`) under the input's text. */
  function markColumn(expr, message, mark = $('expr-mark')) {
    const m = /^column (\d+):/.exec(message || '');
    if (!m) {
      show(mark, false);
      mark.textContent = '';
      return;
    }
    const chars = Array.from(expr);
    const at = Math.max(0, Number(m[1]) - 1);
    mark.textContent = '';
    mark.append(chars.slice(0, at).join(''));
    const hit = document.createElement('mark');
    hit.textContent = at < chars.length ? chars[at] : ' ';
    mark.append(hit);
    if (at + 1 < chars.length) mark.append(chars.slice(at + 1).join(''));
    show(mark, true);
    // Keep the marked character in sight in a long expression.
    mark.scrollLeft = Math.max(0, hit.offsetLeft - mark.clientWidth / 2);
  }

  function clearEvalResults() {
    $('eval-out').textContent = '';
    $('table-out').textContent = '';
    show($('table-out'), false);
    show($('table-head'), false);
    drawPicture($('picture'), null);
    show($('picture'), false);
    show($('picture-head'), false);
    playground.lastSvg = null;
  }

  function updateEval() {
    const expr = $('expr').value;
    setCommand(['eval', expr]);
    if (expr.trim() === '') {
      clearEvalResults();
      setError($('error'), '');
      markColumn(expr, '');
      updateStepsLink(expr, false);
      return;
    }
    const r = run(['eval', expr]);
    updateStepsLink(expr, r.ok);
    if (!r.ok) {
      clearEvalResults();
      setError($('error'), r.text);
      markColumn(expr, r.text);
      return;
    }
    $('eval-out').textContent = r.text;
    let internal = '';
    const table = run(['table', expr]);
    if (table.internal) internal = table.text;
    $('table-out').textContent = table.ok ? table.text : '';
    show($('table-out'), table.ok);
    show($('table-head'), table.ok);
    const svg = run(['svg', expr]);
    if (svg.internal) internal = svg.text;
    playground.lastSvg = svg.ok ? svg.text : null;
    drawPicture($('picture'), playground.lastSvg);
    show($('picture'), svg.ok);
    show($('picture-head'), svg.ok);
    setError($('error'), internal);
    markColumn(expr, '');
  }

  /** The operation `NAME` of an expression that is one call `NAME(...)`, else null. */
  function outermostCall(expr) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(expr);
    if (!m) return null;
    const rest = expr.slice(m[0].length - 1).trimEnd();
    let depth = 0;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '(') depth++;
      else if (rest[i] === ')' && --depth === 0) return i === rest.length - 1 ? m[1] : null;
    }
    return null;
  }

  /** The Evaluate view's "show the steps", for a composition, a divide or a product. */
  function updateStepsLink(expr, ok) {
    const op = ok ? outermostCall(expr) : null;
    const on = op !== null && STEPS_OPS.has(op);
    show($('steps-link'), on);
    $('show-steps').textContent = on ? 'show the steps of ' + op : 'show the steps';
  }

  function showSteps() {
    $('steps-expr').value = $('expr').value.trim();
    setView('steps', true);
  }

  function loadFunctions() {
    const r = run(['functions']);
    const list = $('fn-list');
    list.textContent = '';
    if (!r.ok) return;
    const lines = r.text.split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)([(<]?)/.exec(line);
      if (!m) continue;
      const name = m[1];
      const insert = name + (m[2] || '(');
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'fn';
      b.dataset.name = name;
      b.dataset.insert = insert;
      b.title = 'insert ' + insert + ' at the cursor';
      const strong = document.createElement('b');
      strong.textContent = name;
      b.append(strong, line.slice(name.length));
      b.addEventListener('mousedown', (e) => e.preventDefault()); // keep the input's cursor
      b.addEventListener('click', () => insertAtCursor(insert));
      li.append(b);
      list.append(li);
    }
    $('fn-count').textContent = '(' + lines.length + ')';
  }

  function insertAtCursor(text) {
    const input = $('expr');
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    input.setRangeText(text, start, end, 'end');
    input.focus();
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }

  function filterFunctions() {
    const q = $('fn-filter').value.trim().toLowerCase();
    for (const li of $('fn-list').children) {
      li.hidden = q !== '' && !li.textContent.toLowerCase().includes(q);
    }
  }

  // ---------------------------------------------------------------- Steps

  function updateSteps() {
    const expr = $('steps-expr').value;
    const args = ['steps', expr];
    setCommand(args);
    const r = expr.trim() !== '' ? run(args) : { ok: false, text: '' };
    $('steps-out').textContent = r.ok ? r.text : '';
    // The picture, or the tool's reason for none (shown as the error, below the text).
    const pic = r.ok ? run(['steps', '--svg', expr]) : { ok: false };
    playground.lastStepsSvg = pic.ok ? pic.text : null;
    drawPicture($('steps-picture'), playground.lastStepsSvg);
    show($('steps-picture'), !!pic.ok);
    const error = r.ok ? (pic.ok ? '' : pic.text) : r.text;
    setError($('steps-error'), error);
    markColumn(expr, error, $('steps-mark'));
  }

  // ---------------------------------------------------------------- the other views

  function updateConflicts() {
    const args = [
      'conflicts',
      $('cf-tv').value,
      $('cf-smem').value,
      '--op',
      $('cf-op').value,
      ...options([
        ['--bytes', $('cf-bytes').value],
        ['--vec', $('cf-vec').value],
      ]),
    ];
    const r = runText(args, 'conflicts-out', 'cf-error');
    const pic = r.ok ? run([...args, '--svg', '-']) : { ok: false };
    playground.lastConflictsSvg = pic.ok ? pic.text : null;
    drawPicture($('conflicts-picture'), playground.lastConflictsSvg);
    if (pic.internal) setError($('cf-error'), pic.text);
    show($('conflicts-picture'), !!pic.ok);
  }

  function updateCoalescing() {
    const args = [
      'coalescing',
      $('co-tv').value,
      $('co-global').value,
      ...options([
        ['--bytes', $('co-bytes').value],
        ['--vec', $('co-vec').value],
        ['--base', $('co-base').value],
      ]),
    ];
    const r = runText(args, 'coalescing-out', 'co-error');
  }

  function updateSwizzle() {
    const args = [
      'swizzle-for',
      $('sw-write').value,
      $('sw-read').value,
      $('sw-tile').value,
      ...options([
        ['--bytes', $('sw-bytes').value],
        ['--vec-write', $('sw-vw').value],
        ['--vec-read', $('sw-vr').value],
        ['--write-op', $('sw-wop').value],
        ['--read-op', $('sw-rop').value],
      ]),
    ];
    const r = runText(args, 'swizzle-out', 'sw-error');
  }

  /** Fills the atom list from `layout atom` (one name a line), keeping the selection. */
  function loadAtoms() {
    const select = $('at-name');
    const r = run(['atom']);
    if (!r.ok) return;
    const names = r.text.split('\n').filter((l) => l.trim() !== '');
    select.textContent = '';
    for (const name of names) {
      const o = document.createElement('option');
      o.textContent = name;
      select.append(o);
    }
    select.value = names.includes(DEFAULT_ATOM) ? DEFAULT_ATOM : names[0];
  }

  function updateAtoms() {
    const name = $('at-name').value;
    const op = $('at-op').value;
    setCommand(['atom', name]);
    const r = run(['atom', name]);
    $('atom-out').textContent = r.ok ? r.text : '';
    // The picture of the operand, or the tool's reason for none (a copy atom; an SM90 _SS atom's A/B).
    const pic = r.ok ? run(['atom', name, '--svg', op]) : { ok: false };
    playground.lastAtomSvg = pic.ok ? pic.text : null;
    drawPicture($('atom-picture'), playground.lastAtomSvg);
    show($('atom-picture'), !!pic.ok);
    setError($('at-error'), r.ok ? (pic.ok ? '' : pic.text) : r.text);
  }

  function updateTma() {
    const smem = $('tma-smem').value;
    const args = ['tma-box', smem, '--bits', $('tma-bits').value];
    const r = runText(args, 'tma-out', 'tma-error');
    // The tile itself (a swizzled one coloured by bank group), also where no TMA box writes it.
    const pic = smem.trim() !== '' ? run(['svg', smem]) : { ok: false };
    playground.lastTmaSvg = pic.ok ? pic.text : null;
    drawPicture($('tma-picture'), playground.lastTmaSvg);
    show($('tma-picture'), !!pic.ok);
    if (pic.internal) setError($('tma-error'), pic.text);
  }

  /** A picture from `args`, or none where the tool gives none (its reason is not an error here). */
  function picture(id, args, enabled, key) {
    const pic = enabled ? run(args) : { ok: false };
    playground[key] = pic.ok ? pic.text : null;
    drawPicture($(id), playground[key]);
    show($(id), !!pic.ok);
    return pic.internal ? pic.text : '';
  }

  /** A second text (`--at`) under a view's main one; its error, if any, in the view's error box. */
  function atText(args, enabled, out, err) {
    const r = enabled ? run(args) : { ok: true, text: '' };
    $(out).textContent = r.ok ? r.text : '';
    show($(out), enabled && r.ok);
    if (!r.ok) setError($(err), r.text);
  }

  function updateCk() {
    const desc = $('ck-desc').value;
    const at = $('ck-at').value.trim();
    const r = runText(['ck-tile', desc], 'ck-out', 'ck-error');
    markColumn(desc, r.ok ? '' : r.text, $('ck-mark'));
    atText(['ck-tile', '--at', at, desc], r.ok && at !== '', 'ck-at-out', 'ck-error');
    const internal = picture('ck-picture', ['ck-tile', '--svg', desc], r.ok, 'lastCkSvg');
    if (internal) setError($('ck-error'), internal);
  }

  function updateRocroller() {
    const graph = $('roc-graph').value;
    const at = $('roc-at').value.trim();
    const dir = $('roc-dir').value === 'reverse' ? ['--reverse'] : [];
    const r = runText(['rocroller', ...dir, graph], 'roc-out', 'roc-error');
    markColumn(graph, r.ok ? '' : r.text, $('roc-mark'));
    atText(['rocroller', '--at', at, graph], r.ok && at !== '', 'roc-at-out', 'roc-error');
    const a = picture('roc-picture', ['rocroller', '--svg', graph], r.ok, 'lastRocSvg');
    const b = picture('roc-table-picture', ['rocroller', '--table-svg', ...dir, graph], r.ok, 'lastRocTableSvg');
    if (a || b) setError($('roc-error'), a || b);
  }

  const UPDATE = {
    eval: updateEval,
    steps: updateSteps,
    conflicts: updateConflicts,
    coalescing: updateCoalescing,
    swizzle: updateSwizzle,
    atoms: updateAtoms,
    tma: updateTma,
    ck: updateCk,
    rocroller: updateRocroller,
  };

  /** Runs a view's update, timed: every module call and DOM update for it. */
  function updateView(v) {
    const t0 = performance.now();
    UPDATE[v]();
    flushPictures();
    const ms = performance.now() - t0;
    playground.lastUpdateMs = ms;
    $('timing').textContent = 'updated in ' + (ms < 10 ? ms.toFixed(2) : ms.toFixed(1)) + ' ms';
  }

  // ---------------------------------------------------------------- state and URL

  function inputs() {
    return Array.from(document.querySelectorAll('[data-key]'));
  }

  function stateToHash() {
    const parts = ['view=' + encodeURIComponent(view)];
    for (const el of inputs()) parts.push(encodeURIComponent(el.dataset.key) + '=' + encodeURIComponent(el.value));
    return '#' + parts.join('&');
  }

  // Chrome ignores history.replaceState beyond 200 calls in 10 s (and says so on the console), so
  // a burst of changes (a held key, a test) writes the hash at most every SAVE_MS: at once when the
  // last write is older, else once at the end of the interval, with the state as it is then.
  const SAVE_MS = 100;
  let lastSave = -Infinity;
  let saveTimer = 0;

  function writeState() {
    lastSave = performance.now();
    const hash = stateToHash();
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  function saveState() {
    if (saveTimer) return; // the write scheduled will take the latest state
    const wait = lastSave + SAVE_MS - performance.now();
    if (wait <= 0) writeState();
    else
      saveTimer = setTimeout(() => {
        saveTimer = 0;
        writeState();
      }, wait);
  }

  function parseHash(hash) {
    const state = {};
    for (const part of hash.replace(/^#/, '').split('&')) {
      if (!part) continue;
      const eq = part.indexOf('=');
      const dec = (s) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch (_) {
          return s;
        }
      };
      if (eq < 0) state[dec(part)] = '';
      else state[dec(part.slice(0, eq))] = dec(part.slice(eq + 1));
    }
    return state;
  }

  /** Sets the inputs from location.hash; the view it names (or the current one). */
  function restoreState() {
    const state = parseHash(location.hash);
    for (const el of inputs()) {
      if (!(el.dataset.key in state)) continue;
      const value = state[el.dataset.key];
      if (el.tagName === 'SELECT' && !Array.from(el.options).some((o) => o.value === value)) {
        const o = document.createElement('option');
        o.textContent = value;
        el.append(o);
      }
      el.value = value;
    }
    return VIEWS.includes(state.view) ? state.view : view;
  }

  function setView(v, save) {
    view = v;
    for (const section of document.querySelectorAll('.view')) show(section, section.dataset.view === v);
    for (const b of document.querySelectorAll('#views button')) b.setAttribute('aria-selected', String(b.dataset.view === v));
    updateView(v);
    if (save) saveState();
  }

  function updateAll(active) {
    for (const v of VIEWS) if (v !== active) UPDATE[v]();
    setView(active, false);
  }

  // ---------------------------------------------------------------- start

  async function start() {
    try {
      const response = await fetch('const_layout_web.wasm');
      if (!response.ok) throw new Error('HTTP ' + response.status + ' for const_layout_web.wasm');
      wasmModule = await WebAssembly.compile(await response.arrayBuffer());
      instance = await WebAssembly.instantiate(wasmModule, {});
      playground.instantiations++;
    } catch (e) {
      $('loading').textContent = 'Could not load the WebAssembly module: ' + e;
      $('loading').classList.add('error');
      return;
    }
    loadFunctions();
    loadAtoms();
    for (const el of inputs()) {
      const v = el.closest('.view').dataset.view;
      el.addEventListener('input', () => {
        updateView(v);
        saveState();
      });
    }
    $('fn-filter').addEventListener('input', filterFunctions);
    $('show-steps').addEventListener('click', showSteps);
    for (const b of document.querySelectorAll('button.example')) {
      b.addEventListener('click', () => {
        const input = $(b.dataset.target || 'steps-expr');
        input.value = b.dataset.expr;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      });
    }
    for (const b of document.querySelectorAll('#views button')) b.addEventListener('click', () => setView(b.dataset.view, true));
    window.addEventListener('hashchange', () => updateAll(restoreState()));
    show($('loading'), false);
    updateAll(restoreState());
    saveState();
    playground.ready = true;
  }

  start();
})();
