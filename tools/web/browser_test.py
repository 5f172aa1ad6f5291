#!/usr/bin/env python3
"""The layout playground's browser test: web/site in headless Chromium against the `layout` tool.

Every answer the page shows must be the tool's, byte for byte: for each expression of
tests/web/expressions.txt, the page's `#eval-out`, `#table-out` and SVG source against
`layout eval`, `layout table` and `layout svg` (run here, at test time); for each of
tests/web/errors.txt, `#error` against the tool's one-line message (and the column it names is
marked); a few `conflicts` (text and `--svg -` picture), `coalescing` and `swizzle-for` cases;
every atom of `layout atom` (its text), and the `--svg` pictures (or refusals) of some; a few
`tma-box` cases (text or error, and the tile's `svg`); `steps` cases (text or error, with the column
marked, and the `steps --svg` picture or its refusal) and the Evaluate view's "show the steps";
the shareable URL (a fresh load of `location.href` restores inputs and outputs); recovery after
an error. Also checks that every function of `layout functions` appears in an expression, and
measures (does not assert) the page's update time of 4,096-element layouts.

The page comes from --url, else from `LAYOUT serve --port 0` (the files embedded in the binary),
else (a tool without `serve`, or --python-server) from a Python server of web/site with the
cross-origin-isolation headers. Chromium is driven through chromedriver with plain W3C WebDriver
JSON (standard library only).

usage: tools/web/browser_test.py [--layout PATH] [--url URL | --python-server]
                                 [--screenshots DIR] [--json FILE]
Exit status 0 when everything is equal; 1 on a mismatch (the first few are printed); 2 when the
test could not run.
"""
import argparse, base64, functools, http.server, json, os, re, shutil, socket, statistics, subprocess, sys
import threading, time, urllib.request
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--hide-scrollbars", "--window-size=1280,1600"]

# ldmatrix reads of an 8 x 64 tile of halves; 16-byte cp.async writes (tests/tool/cli.rs).
LDSM_READ = "((_8,_4),_8):((_1,_64),_8)"
CP_ASYNC_WRITE = "((_8,_4),_8):((_64,_1),_8)"
SW_TILE = "composition(Sw<3,3,3>, (_8,_64):(_64,_1))"
# (TV, SMEM, op, bytes, vec)
CONFLICTS = [
    (LDSM_READ, SW_TILE, "ld", "2", "8"),
    (LDSM_READ, "(_8,_64):(_64,_1)", "ldmatrix.x4", "2", "8"),
    (LDSM_READ, SW_TILE, "ldmatrix.x4.trans", "2", "8"),
    (CP_ASYNC_WRITE, SW_TILE, "cp.async", "2", "8"),
    ("(_32,_32):(_1,_32)", "(_32,_32):(_33,_1)", "ld", "4", "1"),
    ("(_32,_1):(_1,_0)", "(_32,_32):(_32,_1)", "st", "4", "1"),
    (LDSM_READ, "(_8,_64):(_64,_1)", "stmatrix.x4", "2", "8"),
    (LDSM_READ, SW_TILE, "ld", "2", "3"),  # an error: --vec 3
]
# (TV, GLOBAL, bytes, vec, base)
COALESCING = [
    ("(_32,_32):(_1,_32)", "(_32,_32):(_32,_1)", "4", "1", ""),
    ("(_32,_32):(_32,_1)", "(_32,_32):(_32,_1)", "4", "1", ""),
    (CP_ASYNC_WRITE, "(_8,_64):(_64,_1)", "2", "8", ""),
    ("(_32,_32):(_32,_1)", "(_32,_32):(_32,_1)", "4", "1", "64"),
    ("(_32,_32):(_1,_32)", "(_32,_32):(_32,_1)", "4", "1", "3"),  # an error: unaligned base
]
# (WRITE, READ, TILE, bytes, vec-write, vec-read, write-op, read-op)
SWIZZLE = [
    (CP_ASYNC_WRITE, LDSM_READ, "(_8,_64):(_64,_1)", "2", "", "", "", ""),
    ("(_32,_32):(_32,_1)", "(_32,_32):(_1,_32)", "(_32,_32):(_32,_1)", "4", "1", "1", "", ""),
    ("((_8,_4,_2),(_8,_2)):((_64,_8,_512),(_1,_32))", "((_8,_4,_2),(_8,_2)):((_128,_8,_64),(_1,_32))",
     "_1024:_1", "2", "", "", "", ""),
    (CP_ASYNC_WRITE, LDSM_READ, "(_8,_64):(_64,_1)", "2", "", "", "cp.async", "ldmatrix.x4"),
    (LDSM_READ, "(_8,_64):(_64,_1)", "", "2", "", "", "", ""),  # an error: no tile
]
# Atoms: the text of every atom of `layout atom`; the pictures (or the tool's refusal) of these.
SM80_ATOMS = ["SM80_16x8x8_F32F16F16F32_TN", "SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F32BF16BF16F32_TN",
              "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x16_F32BF16BF16F32_TN"]
ATOM_PICTURES = [(n, op) for n in SM80_ATOMS for op in "CAB"] + [
    ("SM90_64x8x16_F32F16F16_SS", "C"), ("SM90_64x64x16_F16F16F16_RS", "C"), ("SM90_64x16x16_F32BF16BF16_SS", "C"),
    ("SM90_64x8x16_F32F16F16_RS", "A"),
    ("SM90_64x64x16_F32F16F16_SS", "A"),  # refused: too large a TV layout
    ("SM90_64x64x16_F32F16F16_SS", "B"),  # refused
    ("SM75_U32x4_LDSM_N", "C"),  # refused: a copy atom
]
# (SMEM, bits)
TMA = [
    ("composition(Sw<3,3,3>, (_64,_64):(_64,_1))", "16"),  # the page's default
    ("(_32,_32):(_32,_1)", "32"),
    ("composition(Sw<3,4,3>, (_8,_128):(_128,_1))", "8"),
    ("composition(Sw<3,2,3>, (_16,_32):(_32,_1))", "32"),
    ("composition(Sw<2,3,3>, (_16,_32):(_32,_1))", "16"),  # SWIZZLE_64B
    ("(_8,_64):(_64,_1)", "8"),
    ("composition(Sw<3,4,3>, (_16,_64):(_64,_1))", "64"),  # no box: the swizzle's base
    ("(_16,_64):(_1,_16)", "16"),  # no box: not row-major
    ("composition(Sw<3,3,3>, (_64,_64):(_64,_1)", "16"),  # a parse error: no picture either
]
# `layout steps`: every operation it explains, static and runtime integers, by-mode tilers.
STEPS_DEFAULT = "logical_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)"  # the page's default
STEPS = [
    STEPS_DEFAULT,
    "zipped_divide((_12,_8):(_1,_12), <_4:_1, _4:_1>)",
    "tiled_divide((_8,_8):(_1,_8), <_2:_1, _4:_1>)",
    "flat_divide((_8,_8):(_1,_8), <_2:_1, _4:_1>)",
    "logical_divide(16:1, 4:1)",
    "logical_divide((8,6):(1,8), 4:3)",
    "logical_product((_2,_2):(_1,_2), _3:_1)",
    "zipped_product(_4:_1, (_2,_2):(_1,_2))",
    "tiled_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))",
    "flat_product(4:1, 3:1)",
    "blocked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))",
    "blocked_product((4,2):(1,4), (2,3):(3,1))",
    "raked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))",
    "composition((_8,_8):(_8,_1), (_4,_2):(_1,_8))",
    "composition((8,8):(8,1), (4,2):(1,8))",
    "composition(_16:_1, _4:_4)",
    "logical_divide(_6:_1, _4:_1)",  # the text, but no picture: the tool's reason instead
    "size((4,8))",  # an error: not an operation `steps` explains
    "composition(8:1, (4,2):(1,)",  # an error: a parse error (a column)
    "logical_divide((_8,_8):(_8,_1), _3:_2)",  # an error: an inadmissible divide
]
STEPS_OPS = ["composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product",
             "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product"]
# The CK Tile view: (descriptor, at). The page's examples, traces, and errors of each kind.
CK_EX = [
    "tensor_descriptor{transforms: [embed((4,6),(8,_1)): [1,2] -> [0]], top: [1,2], element_space_size: 30}",
    "tensor_descriptor{transforms: [merge((1,4,4)): [15] -> [13,10,12], merge((3,3,2)): [16] -> [9,11,14], "
    "pass_through(1): [13] -> [5], embed((3,4),(1,1)): [9,10] -> [6], embed((3,4),(1,1)): [11,12] -> [7], "
    "pass_through(2): [14] -> [8], pass_through(1): [5] -> [1], pad(4,1,1): [6] -> [2], pad(4,1,1): [7] -> [3], "
    "pass_through(2): [8] -> [4], unmerge((1,4,4,2)): [1,2,3,4] -> [0]], top: [15,16], element_space_size: 32}",
    "tensor_descriptor{transforms: [pass_through(_8): [8] -> [4], merge((_4,_8)): [7] -> [5,6], xor((_8,_4)): [4,5] -> [1,2], "
    "pass_through(_8): [6] -> [3], embed((_8,_4,_8),(_32,_8,_1)): [1,2,3] -> [0]], top: [8,7], element_space_size: 256}",
]
CK = [
    (CK_EX[2], "(3,9)"),  # the page's default
    (CK_EX[0], ""),
    (CK_EX[0], "(3,5)"),
    (CK_EX[1], "(5,3)"),
    (CK_EX[1], "(0,0)"),
    ("tensor_adaptor{transforms: [merge((_4,_8)): [0] -> [1,2]], bottom: [1,2], top: [0]}", "(13)"),
    (CK_EX[0], "(1)"),  # an error: a coordinate of the wrong rank
    (CK_EX[0].replace("embed", "embd"), ""),  # an error: not a transform (its column marked)
    (CK_EX[0].replace("top: [1,2]", "top: [1,3]"), ""),  # an error: the wiring
]
# The rocRoller view: (graph, direction, at).
ROC_EX = [
    "graph{0: SubDimension[0](64, 1); 1: SubDimension[1](64, 1); 2: Linear(4096, 1); 3: Flatten(0, 1 -> 2)}",
    "graph{0: User(?, ?); 1: SubDimension[0](8, 8); 2: SubDimension[1](8, 1); 3: Split(0 -> 1, 2); "
    "4: MacroTileNumber[0](2, 1); 5: MacroTileIndex[0](4, 4); 6: Tile(1 -> 4, 5); 7: MacroTileNumber[1](2, 1); "
    "8: MacroTileIndex[1](4, 1); 9: Tile(2 -> 7, 8); 10: Workgroup[0](4, ?); 11: Flatten(4, 7 -> 10); "
    "12: Workitem[0](16, ?); 13: Flatten(5, 8 -> 12)}",
    "graph{0: Linear(8, 1); 1: Linear(10, 1); 2: Linear(?, ?); 3: PiecewiseAffineJoin<$0 < 4 ? (10, 1) + 0 : (20, 1) + -40>(0, 1 -> 2)}",
]
ROC = [
    (ROC_EX[1], "reverse", "10=3,12=5"),  # the page's default
    (ROC_EX[0], "forward", ""),
    (ROC_EX[0], "forward", "0=5,1=3"),
    (ROC_EX[1], "forward", ""),
    (ROC_EX[2], "forward", "0=5,1=2"),
    (ROC_EX[2], "reverse", ""),
    (ROC_EX[0], "forward", "0=x"),  # an error: a bad coordinate
    ("graph{0: Linear(4, 1); 2: Linear(4, 1)}", "forward", ""),  # an error: the tags (its column marked)
]


def ck_args(desc, at=None, svg=False):
    return ["ck-tile"] + (["--at", at] if at is not None else []) + (["--svg"] if svg else []) + [desc]


def roc_args(graph, direction="forward", at=None, svg=None):
    return (["rocroller"] + (["--reverse"] if direction == "reverse" and at is None and svg != "--svg" else [])
            + (["--at", at] if at is not None else []) + ([svg] if svg else []) + [graph])


def expected_two_texts(main, at_case, at_want):
    """What a view with a main text and an `--at` text shows: (out, at text or None, error)."""
    ok, text = main
    if not ok:
        return {"out": "", "atOut": None, "error": text}
    if at_case and not at_want[0]:
        return {"out": text, "atOut": None, "error": at_want[1]}
    return {"out": text, "atOut": at_want[1] if at_case else None, "error": None}


# Each benchmark alternates between two 4,096-element layouts with different offsets, so that
# every update computes and draws a new answer.
BENCH = {"(_64,_64):(_64,_1)": ["(_64,_64):(_64,_1)", "(_64,_64):(_1,_64)"],
         "composition(Sw<3,3,3>, (_64,_64):(_64,_1))": ["composition(Sw<3,3,3>, (_64,_64):(_64,_1))",
                                                        "composition(Sw<2,3,3>, (_64,_64):(_64,_1))"]}
BENCH_RUNS = 20


# ------------------------------------------------------------------------------------------ tool

class Tool:
    def __init__(self, path):
        self.path = path

    def run(self, *args):
        """(ok, text): stdout, or the one-line message after `layout: `."""
        p = subprocess.run([self.path, *args], capture_output=True, timeout=60)
        if p.returncode == 0:
            return True, p.stdout.decode()
        err = p.stderr.decode().rstrip("\n")
        if p.returncode != 1 or not err.startswith("layout: "):
            raise RuntimeError(f"layout {args!r}: exit {p.returncode}, stderr {err[:300]!r}")
        return False, err[len("layout: "):]


def read_lines(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(line)
    return out


def conflicts_args(tv, smem, op, b, v):
    return ["conflicts", tv, smem, "--op", op] + opts(("--bytes", b), ("--vec", v))


def coalescing_args(tv, g, b, v, base):
    return ["coalescing", tv, g] + opts(("--bytes", b), ("--vec", v), ("--base", base))


def swizzle_args(w, r, t, b, vw, vr, wop, rop):
    return ["swizzle-for", w, r, t] + opts(("--bytes", b), ("--vec-write", vw), ("--vec-read", vr),
                                           ("--write-op", wop), ("--read-op", rop))


def tma_args(smem, bits):
    return ["tma-box", smem, "--bits", bits]


def steps_args(expr, svg=False):
    return ["steps", "--svg", expr] if svg else ["steps", expr]


def opts(*pairs):
    out = []
    for name, value in pairs:
        if value.strip():
            out += [name, value.strip()]
    return out


# ------------------------------------------------------------------------------------------ servers

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def python_server(site):
    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".js": "text/javascript"}

        def end_headers(self):
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

        def log_message(self, *a):
            pass
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=site))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def layout_serve(path):
    """(process, url) of `layout serve --port 0`, or (None, why)."""
    try:
        proc = subprocess.Popen([path, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        return None, str(e)
    line = []
    t = threading.Thread(target=lambda: line.append(proc.stdout.readline().decode()), daemon=True)
    t.start()
    t.join(10)
    m = re.match(r"serving (http://\S+)", line[0]) if line else None
    if not m:
        proc.kill()
        err = proc.stderr.read().decode().strip() if proc.wait(5) is not None else ""
        return None, err or (line[0].strip() if line else "no first line in 10 s")
    return proc, m.group(1)


# ------------------------------------------------------------------------------------------ WebDriver

class Browser:
    def __init__(self):
        self.port = free_port()
        self.driver = subprocess.Popen([shutil.which("chromedriver") or "chromedriver", f"--port={self.port}"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(200):
            try:
                if self.wd("GET", "/status", timeout=2).get("ready"):
                    break
            except OSError:
                pass
            time.sleep(0.05)
        binary = next((b for b in ["/usr/lib/chromium/chromium", shutil.which("chromium") or ""] if b and os.path.exists(b)),
                      None)
        opts = {"args": CHROMIUM_ARGS}
        if binary:
            opts["binary"] = binary
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": opts,
                                                 "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.sid = self.wd("POST", "/session", caps)["sessionId"]

    def wd(self, method, path, body=None, timeout=120):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"WebDriver {method} {path}: {e.read().decode()[:500]}") from None

    def js(self, script, *args):
        return self.wd("POST", f"/session/{self.sid}/execute/sync", {"script": script, "args": list(args)})

    def js_async(self, script, *args):
        return self.wd("POST", f"/session/{self.sid}/execute/async", {"script": script, "args": list(args)})

    def go(self, url):
        self.wd("POST", f"/session/{self.sid}/url", {"url": url})

    def url(self):
        return self.wd("GET", f"/session/{self.sid}/url")

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.wd("GET", f"/session/{self.sid}/screenshot")))

    def wait_ready(self, timeout=20):
        t = time.monotonic()
        while time.monotonic() - t < timeout:
            state = self.js("const p = window.__playground; return p ? {ready: p.ready} : null;")
            if state and state["ready"]:
                return True
            time.sleep(0.03)
        return False

    def close(self):
        try:
            self.wd("DELETE", f"/session/{self.sid}", timeout=20)
        except Exception:
            pass
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()


# The page's side: set an input's value, dispatch `input` (the page updates synchronously), read.
JS_HELPERS = r"""
const $ = (id) => document.getElementById(id);
const vis = (id) => !$(id).hidden;
// A picture is shown: drawn (a canvas, or an image for one too large) with the SVG as a download.
const drawn = (id) => vis(id) && !!$(id).querySelector('canvas, img[src^="blob:"]')
  && !!$(id).querySelector('a.download[href^="blob:"]');
function set(id, value) { const el = $(id); el.value = value; el.dispatchEvent(new Event('input', {bubbles: true})); }
function readEval() {
  const mark = $('expr-mark').querySelector('mark');
  return {eval: $('eval-out').textContent, error: vis('error') ? $('error').textContent : null,
          table: vis('table-out') ? $('table-out').textContent : null,
          svg: window.__playground.lastSvg,
          pictureSvg: drawn('picture'),
          mark: vis('expr-mark') && mark ? {text: mark.textContent,
                 before: mark.previousSibling ? Array.from(mark.previousSibling.textContent).length : 0} : null,
          ms: window.__playground.lastUpdateMs};
}
function readSteps() {
  const mark = $('steps-mark').querySelector('mark');
  return {input: $('steps-expr').value, out: $('steps-out').textContent,
          error: vis('steps-error') ? $('steps-error').textContent : null, svg: window.__playground.lastStepsSvg,
          pictureSvg: drawn('steps-picture'),
          mark: vis('steps-mark') && mark ? {text: mark.textContent,
                 before: mark.previousSibling ? Array.from(mark.previousSibling.textContent).length : 0} : null,
          command: $('command-line').textContent, ms: window.__playground.lastUpdateMs};
}
function readMark(id) {
  const mark = $(id).querySelector('mark');
  return vis(id) && mark ? {text: mark.textContent,
    before: mark.previousSibling ? Array.from(mark.previousSibling.textContent).length : 0} : null;
}
function readCk() {
  return {out: $('ck-out').textContent, error: vis('ck-error') ? $('ck-error').textContent : null,
          atOut: vis('ck-at-out') ? $('ck-at-out').textContent : null, svg: window.__playground.lastCkSvg,
          pictureSvg: drawn('ck-picture'), mark: readMark('ck-mark'), input: $('ck-desc').value};
}
function readRoc() {
  return {out: $('roc-out').textContent, error: vis('roc-error') ? $('roc-error').textContent : null,
          atOut: vis('roc-at-out') ? $('roc-at-out').textContent : null, svg: window.__playground.lastRocSvg,
          tableSvg: window.__playground.lastRocTableSvg, pictureSvg: drawn('roc-picture'),
          tablePictureSvg: drawn('roc-table-picture'), mark: readMark('roc-mark'), input: $('roc-graph').value};
}
function readOut(out, err) { return {out: $(out).textContent, error: vis(err) ? $(err).textContent : null}; }
"""

JS_EVAL_BATCH = JS_HELPERS + r"""
const exprs = arguments[0];
if (!vis('view-eval')) window.__playground.setView('eval');
return exprs.map((e) => { set('expr', e); return readEval(); });
"""

JS_CONFLICTS = JS_HELPERS + r"""
const [tv, smem, op, bytes, vec] = arguments[0];
window.__playground.setView('conflicts');
$('cf-tv').value = tv; $('cf-smem').value = smem; $('cf-op').value = op; $('cf-bytes').value = bytes;
set('cf-vec', vec);
return {...readOut('conflicts-out', 'cf-error'), svg: window.__playground.lastConflictsSvg,
        pictureSvg: drawn('conflicts-picture'), op: $('cf-op').value};
"""

JS_COALESCING = JS_HELPERS + r"""
const [tv, g, bytes, vec, base] = arguments[0];
window.__playground.setView('coalescing');
$('co-tv').value = tv; $('co-global').value = g; $('co-bytes').value = bytes; $('co-vec').value = vec;
set('co-base', base);
return readOut('coalescing-out', 'co-error');
"""

JS_SWIZZLE = JS_HELPERS + r"""
const [w, r, t, bytes, vw, vr, wop, rop] = arguments[0];
window.__playground.setView('swizzle');
$('sw-write').value = w; $('sw-read').value = r; $('sw-tile').value = t; $('sw-bytes').value = bytes;
$('sw-vw').value = vw; $('sw-vr').value = vr; $('sw-wop').value = wop; $('sw-rop').value = rop;
set('sw-tile', t);
return readOut('swizzle-out', 'sw-error');
"""

JS_ATOM_TEXTS = JS_HELPERS + r"""
const names = arguments[0];
window.__playground.setView('atoms');
$('at-op').value = 'A';  // the smallest pictures (SM90: 64 x 16, or refused), to keep this quick
return names.map((n) => { set('at-name', n); return {name: $('at-name').value, ...readOut('atom-out', 'at-error')}; });
"""

JS_ATOM = JS_HELPERS + r"""
const [name, op] = arguments[0];
window.__playground.setView('atoms');
$('at-name').value = name;
set('at-op', op);
return {...readOut('atom-out', 'at-error'), svg: window.__playground.lastAtomSvg, name: $('at-name').value, op: $('at-op').value,
        pictureSvg: drawn('atom-picture')};
"""

JS_TMA = JS_HELPERS + r"""
const [smem, bits] = arguments[0];
window.__playground.setView('tma');
$('tma-bits').value = bits;
set('tma-smem', smem);
return {...readOut('tma-out', 'tma-error'), svg: window.__playground.lastTmaSvg, bits: $('tma-bits').value,
        pictureSvg: drawn('tma-picture')};
"""

JS_STEPS = JS_HELPERS + r"""
const expr = arguments[0];
window.__playground.setView('steps');
set('steps-expr', expr);
return readSteps();
"""

# The Evaluate view's "show the steps": shown for these operations only; a click opens Steps.
JS_STEPS_LINK = JS_HELPERS + r"""
const [expr, click] = arguments;
window.__playground.setView('eval');
set('expr', expr);
const link = vis('steps-link');
if (!(link && click)) return {link, view: null};
$('show-steps').click();
return {link, view: vis('view-steps') ? 'steps' : (vis('view-eval') ? 'eval' : 'other'), ...readSteps()};
"""

# A Steps example button: it fills the input and updates the view.
JS_STEPS_EXAMPLES = JS_HELPERS + r"""
window.__playground.setView('steps');
return Array.from(document.querySelectorAll('#steps-examples button.example')).map((b) => {
  b.click();
  return {expr: b.dataset.expr, ...readSteps()};
});
"""

JS_CK = JS_HELPERS + r"""
const [desc, at] = arguments[0];
window.__playground.setView('ck');
$('ck-at').value = at;
set('ck-desc', desc);
return readCk();
"""

JS_ROC = JS_HELPERS + r"""
const [graph, dir, at] = arguments[0];
window.__playground.setView('rocroller');
$('roc-dir').value = dir;
$('roc-at').value = at;
set('roc-graph', graph);
return readRoc();
"""

# The CK Tile and rocRoller example buttons: each fills its input and updates the view.
JS_CK_ROC_EXAMPLES = JS_HELPERS + r"""
const out = [];
for (const [view, read] of [['ck', readCk], ['rocroller', readRoc]]) {
  window.__playground.setView(view);
  for (const b of document.querySelectorAll('#view-' + view + ' button.example')) {
    b.click();
    out.push({view, expr: b.dataset.expr, ...read()});
  }
}
return out;
"""

JS_STATE = JS_HELPERS + r"""
const view = ['eval', 'steps', 'conflicts', 'coalescing', 'swizzle', 'atoms', 'tma', 'ck', 'rocroller'].find((v) => vis('view-' + v));
const inputs = {};
for (const el of document.querySelectorAll('[data-key]')) inputs[el.id] = el.value;
return {view, inputs, href: location.href, evalView: readEval(),
        conflicts: {...readOut('conflicts-out', 'cf-error'), svg: window.__playground.lastConflictsSvg},
        coalescing: readOut('coalescing-out', 'co-error'), swizzle: readOut('swizzle-out', 'sw-error'),
        atoms: {...readOut('atom-out', 'at-error'), svg: window.__playground.lastAtomSvg},
        tma: {...readOut('tma-out', 'tma-error'), svg: window.__playground.lastTmaSvg}, steps: readSteps(),
        ck: readCk(), roc: readRoc()};
"""

# Update times, the page at its top (the picture below the table, mostly out of sight) or
# scrolled to the picture (as many of its tiles in sight as the window holds).
JS_BENCH = JS_HELPERS + r"""
const [exprs, runs, toPicture] = arguments;
window.__playground.setView('eval');
set('expr', exprs[1]);
if (toPicture) $('picture').scrollIntoView(); else window.scrollTo(0, 0);
const ms = [], withLayout = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  set('expr', exprs[i % 2]);
  void document.body.offsetHeight;           // style and layout of the new DOM, as the next frame would
  withLayout.push(performance.now() - t0);
  ms.push(window.__playground.lastUpdateMs);
}
window.scrollTo(0, 0);
return {ms, withLayout, isolated: window.crossOriginIsolated, svgBytes: (window.__playground.lastSvg || '').length};
"""

# The time from an input until the frame after it has been produced: the update (with the picture
# drawn on its canvas), style, layout and the paint, measured from the input to a task queued by the
# next animation frame's callback (which runs after that frame's paint). Async: WebDriver's callback
# is the last argument.
JS_BENCH_FRAME = JS_HELPERS + r"""
const [exprs, runs, done] = arguments;
window.__playground.setView('eval');
const frame = [];
(async () => {
  for (let i = 0; i < runs; i++) {
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));  // start just after a frame
    const t0 = performance.now();
    set('expr', exprs[i % 2]);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    frame.push(performance.now() - t0);
    if (!drawn('picture')) { done({error: 'no picture'}); return; }
  }
  done({frame, canvas: !!$('picture').querySelector('canvas')});
})();
"""

# How far a shown picture's canvas is from Chromium's own rasterisation of the same SVG
# (`rasterDifference` in app.js): the fraction of pixels that differ by more than 64 in a channel.
JS_RASTER = r"""
const [id, done] = arguments;
window.__playground.rasterDifference(id).then((d) => done(d));
"""

# The most a picture on its canvas may differ from the browser's rendering of the SVG: text is
# antialiased differently by the two rasterisers, nothing else should differ.
MAX_RASTER_DIFFERENCE = 0.02


# ------------------------------------------------------------------------------------------ the test

class Mismatches:
    def __init__(self):
        self.items = []

    def check(self, what, got, want):
        if got != want:
            self.items.append({"what": what, "got": clip(got), "want": clip(want)})
            return False
        return True


def clip(v, n=400):
    if isinstance(v, str) and len(v) > n:
        return v[:n] + f"... ({len(v)} chars)"
    return v


def shell_quote(s):
    """The page's shellQuote (the footer's command line)."""
    return s if re.fullmatch(r"[A-Za-z0-9_.,:/=+-]+", s) else "'" + s.replace("'", "'\\''") + "'"


def expected_steps(expr, want):
    """What the Steps view shows for `expr`, from the tool's `steps` and `steps --svg`."""
    (tok, ttext), (pok, ptext) = want
    if tok:
        error = None if pok else ptext  # the text, and the tool's reason for no picture
        return {"out": ttext, "error": error, "svg": ptext if pok else None, "pictureSvg": pok,
                "mark": expected_mark(expr, error) if error else None}
    return {"out": "", "error": ttext, "svg": None, "pictureSvg": False, "mark": expected_mark(expr, ttext)}


def expected_mark(expr, message):
    m = re.match(r"column (\d+):", message)
    if not m:
        return None
    chars = list(expr)
    at = max(0, int(m.group(1)) - 1)
    return {"text": chars[at] if at < len(chars) else " ", "before": at}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layout", default=os.path.join(ROOT, "target/release/layout"))
    ap.add_argument("--url", help="a running server of the page")
    ap.add_argument("--python-server", action="store_true", help="serve web/site from Python, not `layout serve`")
    ap.add_argument("--screenshots", metavar="DIR")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--expressions", default=os.path.join(ROOT, "tests/web/expressions.txt"))
    ap.add_argument("--errors", default=os.path.join(ROOT, "tests/web/errors.txt"))
    a = ap.parse_args()
    t_start = time.monotonic()
    if not os.access(a.layout, os.X_OK):
        print(f"browser_test: no tool at {a.layout} (cargo build --release)", file=sys.stderr)
        return 2
    tool = Tool(a.layout)
    exprs = read_lines(a.expressions)
    errs = read_lines(a.errors) if os.path.exists(a.errors) else []
    mm = Mismatches()
    raster = []  # each canvas checked against the browser's rendering of its SVG: the fraction of pixels that differ
    report = {"layout": a.layout}

    # The expected answers: the tool, now.
    ok, fn_text = tool.run("functions")
    functions = [re.match(r"[A-Za-z_][A-Za-z0-9_]*", l).group(0) for l in fn_text.splitlines() if l.strip()]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        want_eval = list(pool.map(lambda e: (tool.run("eval", e), tool.run("table", e), tool.run("svg", e)),
                                  exprs + errs))
        want_cf = list(pool.map(lambda c: (tool.run(*conflicts_args(*c)), tool.run(*conflicts_args(*c), "--svg", "-")),
                                CONFLICTS))
        want_co = list(pool.map(lambda c: tool.run(*coalescing_args(*c)), COALESCING))
        want_sw = list(pool.map(lambda c: tool.run(*swizzle_args(*c)), SWIZZLE))
        ok, atom_text = tool.run("atom")
        atoms = [l for l in atom_text.splitlines() if l.strip()]
        want_atom_text = list(pool.map(lambda n: tool.run("atom", n), atoms))
        want_atom_pic = list(pool.map(lambda c: tool.run("atom", c[0], "--svg", c[1]), ATOM_PICTURES))
        want_tma = list(pool.map(lambda c: (tool.run(*tma_args(*c)), tool.run("svg", c[0])), TMA))
        want_steps = list(pool.map(lambda e: (tool.run(*steps_args(e)), tool.run(*steps_args(e, True))), STEPS))
        want_ck = list(pool.map(lambda c: (tool.run(*ck_args(c[0])), tool.run(*ck_args(c[0], c[1])),
                                           tool.run(*ck_args(c[0], svg=True))), CK))
        want_roc = list(pool.map(lambda c: (tool.run(*roc_args(c[0], c[1])), tool.run(*roc_args(c[0], at=c[2])),
                                            tool.run(*roc_args(c[0], svg="--svg")),
                                            tool.run(*roc_args(c[0], c[1], svg="--table-svg"))), ROC))
    t_tool = time.monotonic() - t_start

    # Coverage: every function in at least one expression (of expressions.txt).
    uses = {f: sum(1 for e in exprs if re.search(r"(?<![A-Za-z0-9_])" + re.escape(f) + r"\s*[(<]", e)) for f in functions}
    missing = [f for f, n in uses.items() if n == 0]
    report["functions"] = {"count": len(functions), "missing": missing,
                           "used_once": [f for f, n in uses.items() if n == 1]}
    if missing:
        mm.items.append({"what": "functions in no expression of " + os.path.relpath(a.expressions, ROOT),
                         "got": missing, "want": []})
    for (e, (ev, _, _)) in zip(exprs, want_eval):
        if not ev[0]:
            mm.items.append({"what": f"expressions.txt: `{e}` fails in the tool (move it to errors.txt)",
                             "got": ev[1], "want": "success"})
    for (e, (ev, _, _)) in zip(errs, want_eval[len(exprs):]):
        if ev[0]:
            mm.items.append({"what": f"errors.txt: `{e}` succeeds in the tool", "got": clip(ev[1]), "want": "an error"})

    # The server.
    server_proc, httpd = None, None
    if a.url:
        url, served_by = a.url, "--url"
    else:
        url, why = None, "--python-server"
        if not a.python_server:
            server_proc, url = layout_serve(a.layout)
            if server_proc is None:
                why, url = url, None
        if url:
            served_by = "layout serve (the files embedded in the binary)"
        else:
            httpd, url = python_server(os.path.join(ROOT, "web/site"))
            served_by = f"Python server of web/site ({why})"
    report["server"] = {"url": url, "by": served_by}
    print(f"page: {url} from {served_by}")

    browser = None
    try:
        t0 = time.monotonic()
        browser = Browser()
        report["seconds_browser_start"] = round(time.monotonic() - t0, 2)
        browser.go(url)
        if not browser.wait_ready():
            print("browser_test: the page never became ready (window.__playground.ready)", file=sys.stderr)
            print(json.dumps(browser.js("return document.body.innerText.slice(0, 2000)")), file=sys.stderr)
            return 2
        page = browser.js("return {isolated: window.crossOriginIsolated, functions: document.querySelectorAll('#fn-list button').length,"
                          " names: Array.from(document.querySelectorAll('#fn-list button')).map(b => b.dataset.name)}")
        report["cross_origin_isolated"] = page["isolated"]
        mm.check("function list on the page", page["names"], functions)

        # Evaluate: every expression and every error, in batches.
        all_exprs = exprs + errs
        got_eval = []
        for i in range(0, len(all_exprs), 25):
            got_eval += browser.js(JS_EVAL_BATCH, all_exprs[i:i + 25])
        n_pictures = n_tables = n_errors = 0
        for e, g, ((eok, etext), (tok, ttext), (sok, stext)) in zip(all_exprs, got_eval, want_eval):
            if eok:
                mm.check(f"eval `{e}`", g["eval"], etext)
                mm.check(f"error shown for `{e}`", g["error"], None)
                mm.check(f"table `{e}`", g["table"], ttext if tok else None)
                n_tables += tok
                if sok:
                    n_pictures += 1
                    mm.check(f"svg `{e}`", g["svg"], stext)
                    mm.check(f"picture `{e}` drawn", g["pictureSvg"], True)
                else:
                    mm.check(f"no picture for `{e}`", [g["svg"], g["pictureSvg"]], [None, False])
            else:
                n_errors += 1
                mm.check(f"error `{e}`", g["error"], etext)
                mm.check(f"no result with the error `{e}`", [g["eval"], g["table"], g["svg"]], ["", None, None])
                mm.check(f"column marked for `{e}`", g["mark"], expected_mark(e, etext))

        # The canvas draws what the SVG says: each Evaluate picture against Chromium's own
        # rendering of the same SVG.
        for e, ((eok, _), _, (sok, _)) in zip(all_exprs, want_eval):
            if eok and sok:
                browser.js(JS_HELPERS + "window.__playground.setView('eval'); set('expr', arguments[0]);", e)
                d = browser.js_async(JS_RASTER, "picture")
                raster.append(d if d is not None else 1.0)
                if d is None or d > MAX_RASTER_DIFFERENCE:
                    mm.items.append({"what": f"canvas of `{e}` against the SVG rendered by the browser",
                                     "got": d, "want": f"at most {MAX_RASTER_DIFFERENCE} of the pixels different"})
        # The other views' canvases, the first picture of each.
        rastered = set()

        def raster_check(picture_id, what):
            rastered.add(picture_id)
            d = browser.js_async(JS_RASTER, picture_id)
            raster.append(d if d is not None else 1.0)
            mm.check(f"{what}: canvas against the SVG rendered by the browser",
                     d is not None and d <= MAX_RASTER_DIFFERENCE, True)

        # Recovery: a bad input, then a good one.
        bad, good = "(8,(4,2):(1,8)", "(8,(4,2)):(1,8)"
        rec = browser.js(JS_HELPERS + "set('expr', arguments[0]); const b = readEval(); set('expr', arguments[1]);"
                         " return [b, readEval()];", bad, good)
        mm.check("error for a bad input", rec[0]["error"], tool.run("eval", bad)[1])
        mm.check("a good input after a bad one: no error", rec[1]["error"], None)
        mm.check("a good input after a bad one: result", rec[1]["eval"], tool.run("eval", good)[1])
        mm.check("a good input after a bad one: no mark", rec[1]["mark"], None)

        # A trap (a panic aborts): the page says so, re-instantiates the module and goes on.
        trap = browser.js(JS_HELPERS + "const n = window.__playground.instantiations;"
                          " window.__playground.trapNextCall = true; set('expr', arguments[0]); return [readEval(), n];", good)
        mm.check("a trap: the page's message", trap[0]["error"], "internal error (a bug, please report it)")
        for _ in range(100):
            after_trap = browser.js(JS_HELPERS + "set('expr', arguments[0]); return [readEval(), window.__playground.instantiations];", good)
            if after_trap[1] > trap[1]:
                break
            time.sleep(0.02)
        mm.check("after a trap: re-instantiated", after_trap[1], trap[1] + 1)
        mm.check("after a trap: the next input works", [after_trap[0]["eval"], after_trap[0]["error"]],
                 [tool.run("eval", good)[1], None])

        # Bank conflicts, coalescing, swizzle synthesis.
        n_cf_pictures = 0
        for c, ((tok, ttext), (pok, ptext)) in zip(CONFLICTS, want_cf):
            g = browser.js(JS_CONFLICTS, list(c))
            name = "conflicts " + " ".join(conflicts_args(*c)[1:])
            mm.check(f"{name}: op selected", g["op"], c[2])
            if tok:
                mm.check(f"{name}: text", g["out"], ttext)
                mm.check(f"{name}: no error", g["error"], None)
            else:
                mm.check(f"{name}: error", g["error"], ttext)
            if pok:
                n_cf_pictures += 1
                mm.check(f"{name} --svg -: picture", g["svg"], ptext)
                mm.check(f"{name} --svg -: drawn", g["pictureSvg"], True)
                if "conflicts-picture" not in rastered:
                    raster_check("conflicts-picture", name)
            else:
                mm.check(f"{name}: no picture", g["svg"], None)
        for c, (ok, text) in zip(COALESCING, want_co):
            g = browser.js(JS_COALESCING, list(c))
            name = "coalescing " + " ".join(coalescing_args(*c)[1:])
            mm.check(name, [g["out"], g["error"]], [text, None] if ok else ["", text])
        for c, (ok, text) in zip(SWIZZLE, want_sw):
            g = browser.js(JS_SWIZZLE, list(c))
            name = "swizzle-for " + " ".join(swizzle_args(*c)[1:])
            mm.check(name, [g["out"], g["error"]], [text, None] if ok else ["", text])

        # Atoms: every atom's text (the list on the page is the tool's), then pictures or refusals.
        t0 = time.monotonic()
        page_atoms = browser.js("return Array.from(document.getElementById('at-name').options).map((o) => o.value)")
        mm.check("atom list on the page", page_atoms, atoms)
        got_atoms = []
        for i in range(0, len(atoms), 17):
            got_atoms += browser.js(JS_ATOM_TEXTS, atoms[i:i + 17])
        for n, g, (ok, text) in zip(atoms, got_atoms, want_atom_text):
            mm.check(f"atom {n}: selected", g["name"], n)
            mm.check(f"atom {n}: text", g["out"], text if ok else "")
            if not ok:
                mm.check(f"atom {n}: error", g["error"], text)
        n_atom_pictures = n_atom_refusals = 0
        for (n, op), (ok, text) in zip(ATOM_PICTURES, want_atom_pic):
            g = browser.js(JS_ATOM, [n, op])
            name = f"atom {n} --svg {op}"
            mm.check(f"{name}: selected", [g["name"], g["op"]], [n, op])
            mm.check(f"{name}: text", g["out"], want_atom_text[atoms.index(n)][1])
            if ok:
                n_atom_pictures += 1
                mm.check(f"{name}: picture", g["svg"], text)
                mm.check(f"{name}: drawn, no error", [g["pictureSvg"], g["error"]], [True, None])
                if "atom-picture" not in rastered:
                    raster_check("atom-picture", name)
            else:
                n_atom_refusals += 1
                mm.check(f"{name}: refused", [g["error"], g["svg"], g["pictureSvg"]], [text, None, False])
        report["seconds_atoms"] = round(time.monotonic() - t0, 2)

        # TMA box: the text or the error, and the tile's picture.
        n_tma_boxes = n_tma_pictures = 0
        for c, ((ok, text), (pok, ptext)) in zip(TMA, want_tma):
            g = browser.js(JS_TMA, list(c))
            name = "tma-box " + " ".join(tma_args(*c)[1:])
            mm.check(f"{name}: bits selected", g["bits"], c[1])
            mm.check(name, [g["out"], g["error"]], [text, None] if ok else ["", text])
            n_tma_boxes += ok
            n_tma_pictures += pok
            mm.check(f"{name}: picture (svg {c[0]})", [g["svg"], g["pictureSvg"]], [ptext, True] if pok else [None, False])
            if pok and "tma-picture" not in rastered:
                raster_check("tma-picture", name)

        # Steps: the text or the error (a column marked), the picture or the tool's reason for none.
        n_steps_texts = n_steps_pictures = n_steps_errors = 0
        ops_seen = set()
        for e, want in zip(STEPS, want_steps):
            g = browser.js(JS_STEPS, e)
            name = f"steps `{e}`"
            w = expected_steps(e, want)
            mm.check(name, {k: g[k] for k in w}, w)
            mm.check(f"{name}: command line", g["command"], "layout " + " ".join(map(shell_quote, steps_args(e))))
            mm.check(f"{name}: timed", isinstance(g["ms"], (int, float)), True)
            n_steps_texts += want[0][0]
            n_steps_pictures += want[0][0] and want[1][0]
            if want[0][0] and want[1][0] and "steps-picture" not in rastered:
                raster_check("steps-picture", name)
            n_steps_errors += not want[0][0]
            if want[0][0]:
                ops_seen.add(re.match(r"\s*([A-Za-z_]+)", e).group(1))
        mm.check("steps: every operation explained at least once", sorted(ops_seen), sorted(STEPS_OPS))
        # The example buttons fill the input and update the view.
        examples = browser.js(JS_STEPS_EXAMPLES)
        mm.check("steps: example buttons", len(examples) >= 5, True)
        for g in examples:
            want = (tool.run(*steps_args(g["expr"])), tool.run(*steps_args(g["expr"], True)))
            w = expected_steps(g["expr"], want)
            mm.check(f"steps example `{g['expr']}`", [g["input"], {k: g[k] for k in w}], [g["expr"], w])
        # The Evaluate view's "show the steps": for each operation; not for other expressions.
        link_cases = [(next(e for e, wt in zip(STEPS, want_steps) if wt[0][0] and e.startswith(op + "(")), True)
                      for op in STEPS_OPS]
        link_cases += [("(8,(4,2)):(1,8)", False), ("size(logical_divide(16:1, 4:1))", False),
                       ("coalesce(composition((_8,_8):(_8,_1), (_4,_2):(_1,_8)))", False),
                       ("logical_divide((_8,_8):(_8,_1), _3:_2)", False),  # an error in Evaluate
                       ("  raked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))  ", True)]
        for e, want_link in link_cases:
            g = browser.js(JS_STEPS_LINK, e, False)
            mm.check(f"evaluate `{e}`: show the steps", g["link"], want_link)
        click = "blocked_product((_2,_2):(_1,_2), (_2,_3):(_3,_1))"
        g = browser.js(JS_STEPS_LINK, click, True)
        w = expected_steps(click, (tool.run(*steps_args(click)), tool.run(*steps_args(click, True))))
        mm.check(f"evaluate `{click}`: show the steps, clicked",
                 [g["link"], g["view"], g.get("input"), {k: g.get(k) for k in w}], [True, "steps", click, w])

        # CK Tile and rocRoller: the texts or the error (a column marked), and the pictures.
        n_ck_pictures = n_roc_pictures = n_ck_roc_errors = 0
        for c, (main, at, pic) in zip(CK, want_ck):
            g = browser.js(JS_CK, list(c))
            name = "ck-tile " + shell_quote(c[0][:60]) + (f" --at {c[1]}" if c[1] else "")
            w = expected_two_texts(main, c[1] != "", at)
            mm.check(name, {k: g[k] for k in w}, w)
            mm.check(f"{name}: column marked", g["mark"], None if main[0] else expected_mark(c[0], main[1]))
            want_pic = main[0] and pic[0]
            mm.check(f"{name}: picture", [g["svg"], g["pictureSvg"]], [pic[1], True] if want_pic else [None, False])
            n_ck_pictures += want_pic
            n_ck_roc_errors += w["error"] is not None
            if want_pic and "ck-picture" not in rastered:
                raster_check("ck-picture", name)
        for c, (main, at, pic, tpic) in zip(ROC, want_roc):
            g = browser.js(JS_ROC, list(c))
            name = "rocroller " + shell_quote(c[0][:60]) + f" ({c[1]})" + (f" --at {c[2]}" if c[2] else "")
            w = expected_two_texts(main, c[2] != "", at)
            mm.check(name, {k: g[k] for k in w}, w)
            mm.check(f"{name}: column marked", g["mark"], None if main[0] else expected_mark(c[0], main[1]))
            for what, got, drawn, want in [("graph", g["svg"], g["pictureSvg"], pic), ("table", g["tableSvg"], g["tablePictureSvg"], tpic)]:
                want_pic = main[0] and want[0]
                mm.check(f"{name}: {what} picture", [got, drawn], [want[1], True] if want_pic else [None, False])
                n_roc_pictures += want_pic
                pid = "roc-picture" if what == "graph" else "roc-table-picture"
                if want_pic and pid not in rastered:
                    raster_check(pid, f"{name}: {what}")
            n_ck_roc_errors += w["error"] is not None
        examples = browser.js(JS_CK_ROC_EXAMPLES)
        mm.check("ck-tile and rocroller: example buttons", len(examples), 6)
        for g in examples:
            args = ck_args(g["expr"]) if g["view"] == "ck" else roc_args(g["expr"], "forward")
            mm.check(f"{g['view']} example {shell_quote(g['expr'][:60])}", [g["input"], g["out"]], [g["expr"], tool.run(*args)[1]])

        # The shareable URL: set every view's inputs, load location.href afresh, compare.
        rt = {"expr": "composition(Sw<3,3,3>, (_8,_64):(_64,_1))", "conflicts": CONFLICTS[1],
              "coalescing": COALESCING[2], "swizzle": SWIZZLE[1], "atoms": ("SM80_16x8x8_F16F16F16F16_TN", "B"),
              "tma": TMA[2], "steps": STEPS[10], "ck": CK[3], "roc": ROC[2]}
        browser.js(JS_HELPERS + "set('expr', arguments[0]);", rt["expr"])
        browser.js(JS_ATOM, list(rt["atoms"]))
        browser.js(JS_TMA, list(rt["tma"]))
        browser.js(JS_STEPS, rt["steps"])
        browser.js(JS_CK, list(rt["ck"]))
        browser.js(JS_ROC, list(rt["roc"]))
        browser.js(JS_SWIZZLE, list(rt["swizzle"]))
        browser.js(JS_COALESCING, list(rt["coalescing"]))
        browser.js(JS_CONFLICTS, list(rt["conflicts"]))  # the view it leaves selected
        for _ in range(100):  # the page writes location.hash at most every 100 ms
            if not browser.js("return window.__playground.savePending"):
                break
            time.sleep(0.02)
        before = browser.js(JS_STATE)
        href = before["href"]
        browser.go("about:blank")
        browser.go(href)
        if not browser.wait_ready():
            mm.items.append({"what": "URL round trip: the page never became ready", "got": href, "want": "ready"})
        else:
            after = browser.js(JS_STATE)
            mm.check("URL round trip: href", after["href"], href)
            mm.check("URL round trip: view", after["view"], "conflicts")
            mm.check("URL round trip: inputs", after["inputs"], before["inputs"])
            (eok, etext), (tok, ttext), (sok, stext) = tool.run("eval", rt["expr"]), tool.run("table", rt["expr"]), tool.run("svg", rt["expr"])
            mm.check("URL round trip: eval", [after["evalView"]["eval"], after["evalView"]["table"], after["evalView"]["svg"]],
                     [etext, ttext if tok else None, stext if sok else None])
            (cok, ctext) = tool.run(*conflicts_args(*rt["conflicts"]))
            (pok, ptext) = tool.run(*conflicts_args(*rt["conflicts"]), "--svg", "-")
            mm.check("URL round trip: conflicts", [after["conflicts"]["out"], after["conflicts"]["svg"]], [ctext, ptext])
            mm.check("URL round trip: coalescing", after["coalescing"]["out"], tool.run(*coalescing_args(*rt["coalescing"]))[1])
            sw_ok, sw_text = tool.run(*swizzle_args(*rt["swizzle"]))
            mm.check("URL round trip: swizzle-for", [after["swizzle"]["out"], after["swizzle"]["error"]],
                     [sw_text, None] if sw_ok else ["", sw_text])
            an, aop = rt["atoms"]
            mm.check("URL round trip: atom", [after["atoms"]["out"], after["atoms"]["svg"]],
                     [tool.run("atom", an)[1], tool.run("atom", an, "--svg", aop)[1]])
            mm.check("URL round trip: tma-box", [after["tma"]["out"], after["tma"]["svg"]],
                     [tool.run(*tma_args(*rt["tma"]))[1], tool.run("svg", rt["tma"][0])[1]])
            mm.check("URL round trip: steps", [after["steps"]["input"], after["steps"]["out"], after["steps"]["svg"]],
                     [rt["steps"], tool.run(*steps_args(rt["steps"]))[1], tool.run(*steps_args(rt["steps"], True))[1]])
            ck_d, ck_at = rt["ck"]
            mm.check("URL round trip: ck-tile", [after["ck"]["out"], after["ck"]["atOut"], after["ck"]["svg"]],
                     [tool.run(*ck_args(ck_d))[1], tool.run(*ck_args(ck_d, ck_at))[1], tool.run(*ck_args(ck_d, svg=True))[1]])
            rg, rdir, rat = rt["roc"]
            mm.check("URL round trip: rocroller", [after["roc"]["out"], after["roc"]["atOut"], after["roc"]["tableSvg"]],
                     [tool.run(*roc_args(rg, rdir))[1], tool.run(*roc_args(rg, at=rat))[1],
                      tool.run(*roc_args(rg, rdir, svg="--table-svg"))[1]])
        report["url_round_trip"] = href

        # The update time of 4,096-element layouts (a benchmark: reported, not asserted).
        bench = {}
        for e, pair in BENCH.items():
            bench[e] = {"alternating_with": pair[1], "runs": BENCH_RUNS}
            for where, to_picture in [("top", False), ("picture_in_view", True)]:
                b = browser.js(JS_BENCH, pair, BENCH_RUNS, to_picture)
                bench[e][where] = {"median_ms": round(statistics.median(b["ms"]), 3),
                                   "min_ms": round(min(b["ms"]), 3), "max_ms": round(max(b["ms"]), 3),
                                   "median_with_layout_ms": round(statistics.median(b["withLayout"]), 3)}
            bench[e]["svg_bytes"] = b["svgBytes"]
            d = browser.js_async(JS_BENCH_FRAME, pair, BENCH_RUNS)
            if "error" in d or not d["canvas"]:
                mm.items.append({"what": f"picture of `{e}` on a canvas", "got": d.get("error", "an image"), "want": "a canvas"})
            else:
                bench[e]["median_until_next_frame_ms"] = round(statistics.median(d["frame"]), 3)
        report["update_ms"] = bench
        report["cross_origin_isolated"] = report["cross_origin_isolated"] and b["isolated"]

        # Screenshots of seven views.
        if a.screenshots:
            os.makedirs(a.screenshots, exist_ok=True)
            shots = [("1-layout", "(_8,(_4,_2)):(_1,_8)"),
                     ("2-tv-layout", "make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))"),
                     ("3-swizzled", "composition(Sw<3,3,3>, (_8,_64):(_64,_1))"),
                     ("5-error", "composition((_8,_4):(_1,_8), (_4,_2):(_1,_4)")]
            # Pictures are drawn within the update; an image (a picture too large for a canvas) is
            # decoded after it: wait for those before the shot.
            decoded = ("const done = arguments[arguments.length - 1];"
                       " Promise.all([...Array.from(document.querySelectorAll('.picture img')).map((i) => i.decode()),"
                       " ...Array.from(document.querySelectorAll('.picture')).map((p) => window.__playground.pictureDrawn(p.id))])"
                       ".then(() => done(true), () => done(false));")
            for name, e in shots[:3]:
                browser.js(JS_HELPERS + "window.__playground.setView('eval'); set('expr', arguments[0]); window.scrollTo(0, 0);", e)
                browser.js_async(decoded)
                browser.screenshot(os.path.join(a.screenshots, name + ".png"))
            browser.js(JS_CONFLICTS, list(CONFLICTS[1]))
            browser.js_async(decoded)
            browser.screenshot(os.path.join(a.screenshots, "4-conflicts.png"))
            browser.js(JS_HELPERS + "window.__playground.setView('eval'); set('expr', arguments[0]); window.scrollTo(0, 0);", shots[3][1])
            browser.screenshot(os.path.join(a.screenshots, shots[3][0] + ".png"))
            browser.js(JS_ATOM, ["SM80_16x8x16_F32F16F16F32_TN", "C"])
            browser.js("window.scrollTo(0, 0);")
            browser.js_async(decoded)
            browser.screenshot(os.path.join(a.screenshots, "6-atom.png"))
            browser.js(JS_STEPS, STEPS_DEFAULT)
            browser.js("window.scrollTo(0, 0);")
            browser.js_async(decoded)
            browser.screenshot(os.path.join(a.screenshots, "7-steps.png"))
            browser.js(JS_CK, list(CK[0]))
            browser.js("window.scrollTo(0, 0);")
            browser.js_async(decoded)
            browser.screenshot(os.path.join(a.screenshots, "8-ck-tile.png"))
            browser.js(JS_ROC, list(ROC[0]))
            browser.js("window.scrollTo(0, 0);")
            browser.js_async(decoded)
            browser.screenshot(os.path.join(a.screenshots, "9-rocroller.png"))
            report["screenshots"] = sorted(os.listdir(a.screenshots))
    finally:
        if browser:
            browser.close()
        if server_proc:
            server_proc.terminate()
            try:
                server_proc.wait(5)
            except subprocess.TimeoutExpired:
                server_proc.kill()
        if httpd:
            httpd.shutdown()

    report["raster_difference_max"] = round(max(raster), 5) if raster else None
    counts = {"expressions": len(exprs), "errors": n_errors, "pictures": n_pictures, "tables": n_tables,
              "conflicts": len(CONFLICTS), "conflicts_pictures": n_cf_pictures, "coalescing": len(COALESCING),
              "swizzle_for": len(SWIZZLE), "functions": len(functions), "atoms": len(atoms),
              "atom_pictures": n_atom_pictures, "atom_refusals": n_atom_refusals, "tma": len(TMA),
              "tma_boxes": n_tma_boxes, "tma_pictures": n_tma_pictures, "steps": len(STEPS),
              "steps_texts": n_steps_texts, "steps_pictures": n_steps_pictures, "steps_errors": n_steps_errors,
              "ck": len(CK), "ck_pictures": n_ck_pictures, "rocroller": len(ROC), "rocroller_pictures": n_roc_pictures,
              "ck_rocroller_errors": n_ck_roc_errors, "canvases": len(raster)}
    report["counts"] = counts
    report["mismatches"] = len(mm.items)
    report["first_mismatches"] = mm.items[:50]
    report["all_mismatches"] = [m["what"] for m in mm.items]
    report["seconds"] = {"tool": round(t_tool, 2), "atoms": report.get("seconds_atoms"),
                         "total": round(time.monotonic() - t_start, 2)}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    for e, b in report["update_ms"].items():
        t, v = b["top"], b["picture_in_view"]
        print(f"update time of `{e}` (alternating with `{b['alternating_with']}`, {b['runs']} updates): "
              f"median {t['median_ms']} ms at the page's top (min {t['min_ms']}, max {t['max_ms']}), "
              f"{v['median_ms']} ms with the picture in view (min {v['min_ms']}, max {v['max_ms']}); "
              f"with style and layout {t['median_with_layout_ms']} and {v['median_with_layout_ms']} ms; "
              f"input to the next frame {b.get('median_until_next_frame_ms')} ms"
              f"{'' if report['cross_origin_isolated'] else ' [not cross-origin isolated: 0.1 ms resolution]'}")
    if report["functions"]["used_once"]:
        print(f"note: functions in only one expression: {', '.join(report['functions']['used_once'])}")
    summary = (f"{counts['expressions']} expressions ({counts['pictures']} pictures, {counts['tables']} tables), "
               f"{counts['errors']} errors, {counts['functions']} functions covered"
               f"{'' if not missing else f' ({len(missing)} missing)'}, "
               f"{counts['conflicts']} conflicts cases ({counts['conflicts_pictures']} pictures), "
               f"{counts['coalescing']} coalescing, {counts['swizzle_for']} swizzle-for, "
               f"{counts['atoms']} atoms ({counts['atom_pictures']} pictures, {counts['atom_refusals']} refusals), "
               f"{counts['tma']} tma-box cases ({counts['tma_boxes']} boxes, {counts['tma_pictures']} pictures), "
               f"{counts['steps']} steps cases ({counts['steps_pictures']} pictures, {counts['steps_errors']} errors), "
               f"{counts['ck']} ck-tile and {counts['rocroller']} rocroller cases ({counts['ck_pictures']} and "
               f"{counts['rocroller_pictures']} pictures, {counts['ck_rocroller_errors']} errors), "
               f"{counts['canvases']} canvases against Chromium's rendering of their SVG "
               f"(at most {report['raster_difference_max']} of the pixels differ), "
               f"URL round trip, error and trap recovery")
    if mm.items:
        for item in mm.items[:8]:
            print(f"MISMATCH {item['what']}\n  page: {json.dumps(item['got'])}\n  tool: {json.dumps(item['want'])}")
        print(f"{summary}: {len(mm.items)} MISMATCHES ({report['seconds']['total']} s)")
        return 1
    print(f"{summary}: all equal ({report['seconds']['total']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
