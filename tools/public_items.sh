#!/usr/bin/env bash
# The public items of the library crates at module level (methods and fields not counted), as
# rustdoc lists them on each crate's "all items" page (re-exports of another crate's items
# included where rustdoc inlines them), by kind. The library, const-layout, is a facade whose page
# repeats the typed layer's and CK Tile's items (rustdoc inlines a re-export as a page of its
# own): those two crates are counted instead.
#   usage: tools/public_items.sh [TARGET_DIR]   (builds the docs there first; default target)
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-target}
cargo doc -q --no-deps --target-dir "$T" -p const-layout-core -p const-layout-cute -p const-layout-ck-tile \
  -p const-layout-rocroller -p const-layout-device -p const-layout-launch 2>/dev/null
total=0
for c in const_layout_core const_layout_cute const_layout_ck_tile const_layout_rocroller const_layout_device const_layout_launch; do
  page=$T/doc/$c/all.html
  # Each item is one link in the page's lists, <li><a href="path/kind.Name.html"> (the links to
  # the page's own sections, href="#...", are not items).
  links=$(grep -o '<li><a href="[^"#][^"]*\.html"' "$page")
  n=$(printf '%s\n' "$links" | wc -l)
  kinds=$(printf '%s\n' "$links" | sed 's/.*[\/"]\([a-z]*\)\.[^\/]*\.html"$/\1/' | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')
  printf '%-22s %5d  (%s)\n' "$c" "$n" "${kinds%, }"
  total=$((total + n))
done
printf '%-22s %5d\n' total "$total"
