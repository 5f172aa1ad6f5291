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
  const VIEWS = ['eval', 'steps', 'conflicts', 'coalescing', 'swizzle', 'atoms', 'tma'];
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

  // Pictures are shown as images of the module's SVG text (a Blob URL), not inserted into the
  // page: a 64 x 64 layout's picture is 8,000 SVG elements, whose parsing, style and layout as
  // part of the document took 60-90 ms an update in Chromium; as an image it is decoded and
  // drawn off the document, and the update stays within a frame. The text is kept as printed
  // (`lastSvg`) for the browser test, which compares it with the tool's.
  const pictureUrls = new Map();

  function drawPicture(el, svg) {
    const old = pictureUrls.get(el.id);
    if (old) URL.revokeObjectURL(old);
    pictureUrls.delete(el.id);
    if (svg === null) {
      el.textContent = '';
      return;
    }
    const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    pictureUrls.set(el.id, url);
    let img = el.querySelector('img');
    if (!img) {
      img = document.createElement('img');
      img.alt = 'the picture';
      // Small pictures (a few cells) at twice their size: the tool draws a cell 36 pixels wide.
      img.addEventListener('load', () => {
        img.style.width = img.naturalWidth < 400 ? 2 * img.naturalWidth + 'px' : '';
      });
      el.textContent = '';
      el.append(img);
    }
    img.src = url;
  }

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

  const UPDATE = {
    eval: updateEval,
    steps: updateSteps,
    conflicts: updateConflicts,
    coalescing: updateCoalescing,
    swizzle: updateSwizzle,
    atoms: updateAtoms,
    tma: updateTma,
  };

  /** Runs a view's update, timed: every module call and DOM update for it. */
  function updateView(v) {
    const t0 = performance.now();
    UPDATE[v]();
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
    for (const b of document.querySelectorAll('#steps-examples button.example')) {
      b.addEventListener('click', () => {
        const input = $('steps-expr');
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
