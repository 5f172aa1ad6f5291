//! The module graph that ARCHITECTURE.md draws, read from the sources: which top-level module of
//! each crate names which (`crate::x` in code, comments left out). No two modules of a crate
//! name each other through any path (no folder loop), each crate depends only on the layers below
//! it (CK Tile and rocRoller stay apart), and
//! core's modules use only those its documented layering puts before them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src` belongs to (`algebra` for `cute/src/algebra/computed.rs`).
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// Top-level module -> the crate's top-level modules it names in code.
fn graph(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let top = top_module(&src, &f);
        let text = std::fs::read_to_string(&f).unwrap();
        let deps = g.entry(top.clone()).or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let line = line.split(" // ").next().unwrap_or("");
            for (at, _) in line.match_indices("crate::") {
                let name: String =
                    line[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && name != top {
                    deps.insert(name);
                }
            }
        }
    }
    g
}

/// Whether `to` is reachable from `from`.
fn reaches(g: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let (mut seen, mut todo) = (BTreeSet::new(), vec![from.to_string()]);
    while let Some(m) = todo.pop() {
        for n in g.get(&m).into_iter().flatten() {
            if n == to {
                return true;
            }
            if seen.insert(n.clone()) {
                todo.push(n.clone());
            }
        }
    }
    false
}

fn loops(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (m, deps) in g {
        for d in deps {
            if m < d && reaches(g, d, m) {
                out.push((m.clone(), d.clone()));
            }
        }
    }
    out
}

#[test]
fn no_folder_loop_in_any_crate_of_the_library() {
    for src in ["cute/src", "ck-tile/src", "core/src", "rocroller/src"] {
        let g = graph(src);
        assert!(g.len() > 5, "{src}: too few modules read ({g:?})");
        assert_eq!(loops(&g), [], "{src}: modules that name each other through some path");
    }
}

/// The names of a manifest's `[dependencies]`.
fn dependencies(manifest: &str) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest)).unwrap();
    let deps = text.split("\n[dependencies]").nth(1).unwrap().split("\n[").next().unwrap();
    deps.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split('=').next())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn the_crates_stand_on_the_layers_below_them() {
    // The library is a facade over the typed layer, CK Tile and rocRoller; rocRoller stands on the
    // core alone, CK Tile on the core and the typed layer, and neither names the other; the typed
    // layer knows neither.
    assert_eq!(dependencies("rocroller/Cargo.toml"), ["const-layout-core", "serde"]);
    assert_eq!(
        dependencies("ck-tile/Cargo.toml"),
        ["const-layout-core", "const-layout-cute", "typenum", "generic-array", "serde"]
    );
    assert_eq!(
        dependencies("Cargo.toml"),
        ["const-layout-cute", "const-layout-ck-tile", "const-layout-rocroller"],
        "the library is re-exports only"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (dir, other) in [
        ("ck-tile/src", "rocroller"),
        ("rocroller/src", "ck_tile"),
        ("cute/src", "ck_tile"),
        ("cute/src", "rocroller"),
    ] {
        let mut files = Vec::new();
        sources(&root.join(dir), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
            assert!(!code.contains(other), "{} names {other}", f.display());
        }
    }
}

#[test]
fn core_follows_its_documented_layering() {
    // core/src/lib.rs: "`error` < `dyn_layout` < ... < `eval`", the f2 group in parentheses.
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src/lib.rs")).unwrap();
    let doc: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join(" ")
        .split("each using only the ones before it:")
        .nth(1)
        .expect("core/src/lib.rs states its layering")
        .split('.')
        .next()
        .unwrap()
        .to_string();
    let order: Vec<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .filter(|m| !["linear", "bank", "synthesis"].contains(&m.as_str()))
        .collect();
    assert!(order.len() >= 8 && order[0] == "error" && order.contains(&"f2".to_string()), "{order:?}");
    let g = graph("core/src");
    let rank = |m: &str| order.iter().position(|x| x == m);
    for (m, deps) in &g {
        let Some(rm) = rank(m) else { continue };
        for d in deps {
            if let Some(rd) = rank(d) {
                assert!(rd < rm, "core: `{m}` uses `{d}`, which its layering puts after it ({order:?})");
            }
        }
    }
    // Every documented module exists.
    for m in &order {
        assert!(g.contains_key(m), "core's layering names `{m}`, which is not a module");
    }
}

/// The names a crate root makes public: `pub mod x;`, `pub use ...::x;`, `pub use ...::{x, y};`
/// and `pub const X` (a `path::*` glob as `path*`).
fn root_names(lib: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(lib)).unwrap();
    let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    while i < code.len() {
        let line = code[i].trim();
        if let Some(rest) = line.strip_prefix("pub mod ") {
            names.insert(rest.trim_end_matches(';').trim_end_matches(" {").trim().to_string());
        } else if let Some(rest) = line.strip_prefix("pub const ") {
            names.insert(rest.split(':').next().unwrap().trim().to_string());
        } else if line.starts_with("pub use ") {
            let mut stmt = line.to_string();
            while !stmt.ends_with(';') {
                i += 1;
                stmt.push_str(code[i].trim());
            }
            let path = stmt.trim_start_matches("pub use ").trim_end_matches(';');
            let (prefix, list) = match path.split_once('{') {
                Some((p, l)) => (p, l.trim_end_matches('}')),
                None => path.rsplit_once("::").unwrap_or(("", path)),
            };
            for n in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let n = n.rsplit(" as ").next().unwrap();
                let module = prefix.trim_end_matches("::").rsplit("::").next().unwrap();
                names.insert(if n == "*" { format!("{module}*") } else { n.to_string() });
            }
        }
        i += 1;
    }
    names
}

#[test]
fn the_library_re_exports_every_public_name_of_the_typed_layer() {
    // The facade names the typed layer's root items one by one (DECISIONS.md 19): one added to
    // `cute/src/lib.rs` must be added to `src/lib.rs` too, or `const_layout::` lacks it.
    let mut cute = root_names("cute/src/lib.rs");
    // `#[macro_export]` macros stand at the root wherever they are defined.
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cute/src"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, _) in lines.iter().enumerate().filter(|(_, l)| **l == "#[macro_export]") {
            let def = lines[i + 1..].iter().find(|l| l.starts_with("macro_rules!")).unwrap();
            cute.insert(def.trim_start_matches("macro_rules! ").trim_end_matches(" {").to_string());
        }
    }
    assert!(
        cute.contains("layout") && cute.contains("MAX_RANK") && cute.contains("__for_tuples"),
        "{cute:?}"
    );
    let facade = root_names("src/lib.rs");
    let missing: Vec<_> = cute.difference(&facade).collect();
    assert!(
        missing.is_empty(),
        "public at the typed layer's root, not re-exported by src/lib.rs: {missing:?}"
    );
}
