#!/usr/bin/env bash
# Render check of the `layout svg` pictures: writes the SVG of a layout, a TV layout and a swizzle
# with the CLI, renders each to PNG with librsvg (headless), and checks that each PNG exists, has
# the size the SVG declares, and that the pixels inside the cells have the cells' colours: every
# cell against its `rect`'s fill, and a few cells against colours fixed here (CuTe's palette by
# offset and by thread, eight different bank groups down a swizzled column).
#
# Needs: rsvg-convert (Debian: apt-get install -y librsvg2-bin) and python3 (standard library only:
# the PNG is decoded with zlib). Usage: bash tools/check_svg.sh [OUTDIR]   (default: a temp dir)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
command -v rsvg-convert >/dev/null || { echo "check_svg: rsvg-convert missing: apt-get install -y librsvg2-bin" >&2; exit 1; }
cargo build --quiet --manifest-path "$ROOT/Cargo.toml" --bin layout
LAYOUT=${CARGO_TARGET_DIR:-$ROOT/target}/debug/layout

"$LAYOUT" svg -o "$OUT/layout.svg" '(8,(4,2)):(1,8)'
"$LAYOUT" svg -o "$OUT/tv.svg" 'make_layout_tv((_4,_2):(_2,_1), (_2,_2):(_1,_2))'
"$LAYOUT" svg -o "$OUT/swizzle.svg" 'composition(Sw<3,3,3>, (_8,_64):(_64,_1))'
rsvg-convert --version
for name in layout tv swizzle; do
  rsvg-convert -f png -o "$OUT/$name.png" "$OUT/$name.svg"
done

python3 - "$OUT" <<'PY'
import re, struct, sys, zlib

def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev, stride = zlib.decompress(idat), [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])

def check(out, name, fixed):
    svg = open(f"{out}/{name}.svg").read()
    W, H = map(int, re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', svg).groups())
    w, h, px = read_png(f"{out}/{name}.png")
    assert (w, h) == (W, H), f"{name}: PNG is {w}x{h}, the SVG says {W}x{H}"
    cells = [tuple(map(int, m[:4])) + (tuple(map(int, m[4:])),) for m in re.findall(
        r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" fill="rgb\((\d+),(\d+),(\d+)\)"/>', svg)][1:]
    near = lambda a, b: all(abs(p - q) <= 1 for p, q in zip(a, b))
    for (x, y, cw, ch, fill) in cells:
        for sx, sy in ((x + 2, y + ch // 2), (x + cw - 3, y + ch // 2)):
            assert near(px(sx, sy), fill), f"{name}: pixel ({sx},{sy}) is {px(sx, sy)}, the cell's fill is {fill}"
    for (k, want) in fixed:
        x, y, cw, ch, _ = cells[k]
        got = px(x + 2, y + ch // 2)
        assert near(got, want), f"{name}: cell {k} is {got}, expected {want}"
    distinct = len({px(w // 2, y) for y in range(h)} | {px(x, h // 2) for x in range(w)})
    assert distinct > 3, f"{name}: the picture looks blank"
    print(f"check_svg: {name}.png {w}x{h}: {len(cells)} cells have their colours; {len(fixed)} fixed colours OK")
    return cells

out = sys.argv[1]
palette = [(175,175,255),(175,255,175),(255,255,175),(255,175,175),(210,210,255),(210,255,210),(255,255,210),(255,210,210)]
# (8,(4,2)):(1,8): row m, column n holds offset m + 8n; colour offset % 8 = m. Cells row-major, 8 per row.
check(out, "layout", [(8 * m + n, palette[m]) for m in range(8) for n in (0, 5)])
# TV 8x4 tile: rects are drawn thread by thread, value by value: rect 0 is T0 V0, rect 31 T7 V3.
check(out, "tv", [(0, palette[0]), (31, palette[7])])
# Sw<3,3,3> o (8,64):(64,1): the eight cells of column 0 are eight different bank groups.
cells = check(out, "swizzle", [])
_, _, px = read_png(f"{out}/swizzle.png")
column0 = {px(cells[64 * m][0] + 2, cells[64 * m][1] + 12) for m in range(8)}
assert len(column0) == 8, f"swizzle: column 0 shows {len(column0)} colours, expected 8"
print("check_svg: swizzle column 0 shows 8 bank-group colours (conflict-free)")
print("check_svg: OK")
PY
echo "check_svg: pictures in $OUT"
