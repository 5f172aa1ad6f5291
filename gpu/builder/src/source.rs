//! The entry points a kernel crate's source declares, and what PTX must declare for their
//! parameters: read with syn from every `.rs` file under the crate's `src/`.
//!
//! Two declarations count: an `extern "ptx-kernel" fn` exported by name (`#[unsafe(no_mangle)]`,
//! `#[no_mangle]` or `export_name`), and an `Entry` constant of `const_layout_device::abi`
//! (`const COPY: Entry<(In<A>, Out<B>, u32)> = Entry::new("copy");`), which also covers entry
//! points that a `macro_rules!` writes (syn reads source, it does not expand macros).

use crate::ptx::DeclKind;
use quote::ToTokens;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use syn::visit::Visit;
use syn::{Attribute, Expr, GenericArgument, Lit, Meta, PathArguments, Type};

/// What PTX must declare for a parameter, from its Rust type.
///
/// ```
/// use const_layout_builder::ParamKind;
/// assert_eq!(ParamKind::Bytes { size: 64, align: 8 }.to_string(), ".param .align 8 .b8 [64]");
/// assert_eq!(ParamKind::U32.to_string(), ".param .u32");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `.param .u32`: `u32`, `i32`, `char`.
    U32,
    /// `.param .u64`: `u64`, `i64`, `usize`, `isize`, `TensorMapRef`.
    U64,
    /// `.param .f32`.
    F32,
    /// `.param .f64`.
    F64,
    /// `.param .u64 .ptr ...`: a raw pointer or a reference to a sized type.
    Pointer,
    /// `.param .align ALIGN .b8 [SIZE]`: an aggregate by value (an array, a tensor parameter, a
    /// `#[repr(C)]` struct).
    Bytes {
        /// Its size in bytes.
        size: u64,
        /// Its alignment in bytes.
        align: u64,
    },
    /// A type whose PTX form the builder does not know: any declaration is accepted, and the
    /// report lists it with the reason.
    Unchecked {
        /// Why it is not checked.
        reason: String,
    },
}

impl ParamKind {
    /// Whether a PTX declaration passes this.
    pub(crate) fn matches(&self, decl: &DeclKind) -> bool {
        match (self, decl) {
            (ParamKind::Unchecked { .. }, _) => true,
            (ParamKind::U32, DeclKind::Scalar { ty, ptr: false }) => {
                matches!(ty.as_str(), "u32" | "s32" | "b32")
            }
            (ParamKind::U64, DeclKind::Scalar { ty, ptr: false }) => {
                matches!(ty.as_str(), "u64" | "s64" | "b64")
            }
            (ParamKind::F32, DeclKind::Scalar { ty, ptr: false }) => ty == "f32",
            (ParamKind::F64, DeclKind::Scalar { ty, ptr: false }) => ty == "f64",
            (ParamKind::Pointer, DeclKind::Scalar { ty, .. }) => matches!(ty.as_str(), "u64" | "b64"),
            (ParamKind::Bytes { size, align }, DeclKind::Bytes { size: s, align: a }) => {
                size == s && align == a
            }
            _ => false,
        }
    }
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamKind::U32 => f.write_str(".param .u32"),
            ParamKind::U64 => f.write_str(".param .u64"),
            ParamKind::F32 => f.write_str(".param .f32"),
            ParamKind::F64 => f.write_str(".param .f64"),
            ParamKind::Pointer => f.write_str(".param .u64 .ptr"),
            ParamKind::Bytes { size, align } => write!(f, ".param .align {align} .b8 [{size}]"),
            ParamKind::Unchecked { reason } => write!(f, "unchecked ({reason})"),
        }
    }
}

/// A parameter of an entry point as the source declares it.
///
/// ```
/// use const_layout_builder::{ParamKind, SourceAbi};
/// let abi = SourceAbi::from_sources([("src/lib.rs", r#"#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn k(n: u32) {}"#)]);
/// let p = &abi.entries()[0].params[0];
/// assert_eq!((p.rust.as_str(), &p.kind), ("n: u32", &ParamKind::U32));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExpectedParam {
    /// The parameter in Rust: `alpha: f32` for a function, the type for an `Entry`.
    pub rust: String,
    /// What PTX must declare for it.
    pub kind: ParamKind,
}

/// An entry point the source declares: its name in the module, where, and its parameters.
///
/// ```
/// use const_layout_builder::SourceAbi;
/// let abi = SourceAbi::from_sources([("src/lib.rs", r#"
///     use const_layout_device::abi::{Entry, In, Out};
///     pub const SCALE: Entry<(u64, f32, u32)> = Entry::new("scale");
/// "#)]);
/// let e = &abi.entries()[0];
/// assert_eq!((e.name.as_str(), e.origin.as_str(), e.params.len()), ("scale", "src/lib.rs: const SCALE", 3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceEntry {
    /// The entry point's name in the PTX module.
    pub name: String,
    /// Where it is declared: `src/lib.rs: fn copy_f32`, `src/abi.rs: const COPY`.
    pub origin: String,
    /// Its parameters in order (zero-sized ones, which take no PTX parameter, left out).
    pub params: Vec<ExpectedParam>,
}

/// A source file could not be read.
///
/// ```
/// let err = const_layout_builder::SourceAbi::from_crate("/nonexistent/crate").unwrap_err();
/// assert!(err.to_string().starts_with("/nonexistent/crate/src: "));
/// ```
#[derive(Debug)]
pub struct SourceError {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong.
    pub error: std::io::Error,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The entry points of a kernel crate's source and the PTX parameters each must have.
///
/// Types resolve through the crate's own `type` aliases and `#[repr(C)]` / `#[repr(transparent)]`
/// structs (generic ones too), to the scalars, pointers, arrays and const-layout's kernel parameter
/// types (`TensorParam`, `In`, `Out`, `TensorWords`, `TensorMapRef`). A type it cannot size is
/// [`ParamKind::Unchecked`], never a guess.
///
/// ```
/// use const_layout_builder::{ParamKind, SourceAbi};
/// let abi = SourceAbi::from_sources([("src/lib.rs", r#"
///     pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
///     #[repr(C)] pub struct Args { n: u32, scale: f32, out: *mut f32 }
///     #[unsafe(no_mangle)]
///     pub unsafe extern "ptx-kernel" fn k(a: ColMajor, args: Args, taps: [f32; 9]) {}
/// "#)]);
/// let kinds: Vec<_> = abi.entries()[0].params.iter().map(|p| p.kind.clone()).collect();
/// assert_eq!(kinds, [ParamKind::Bytes { size: 64, align: 8 }, ParamKind::Bytes { size: 16, align: 8 }, ParamKind::Bytes { size: 36, align: 4 }]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceAbi {
    entries: Vec<SourceEntry>,
    notes: Vec<String>,
}

impl SourceAbi {
    /// Reads every `.rs` file under `crate_dir/src`. A file syn cannot parse is a note (its
    /// entry points are then not checked), a file that cannot be read an error.
    ///
    /// ```no_run
    /// let abi = const_layout_builder::SourceAbi::from_crate("gpu/ptx").unwrap();
    /// for e in abi.entries() {
    ///     println!("{} ({}): {} parameters", e.name, e.origin, e.params.len());
    /// }
    /// ```
    pub fn from_crate(crate_dir: impl AsRef<Path>) -> Result<SourceAbi, SourceError> {
        let dir = crate_dir.as_ref();
        let mut files = Vec::new();
        for path in rust_files(&dir.join("src"))? {
            let text =
                std::fs::read_to_string(&path).map_err(|error| SourceError { path: path.clone(), error })?;
            let name = path.strip_prefix(dir).unwrap_or(&path).display().to_string();
            files.push((name, text));
        }
        Ok(SourceAbi::from_sources(files))
    }

    /// Reads source files given as `(name, text)`: the name is how the report and the errors
    /// call the file.
    ///
    /// ```
    /// use const_layout_builder::SourceAbi;
    /// let abi = SourceAbi::from_sources([("a.rs", "fn f( {"), ("b.rs", "#[no_mangle] extern \"ptx-kernel\" fn g() {}")]);
    /// assert_eq!(abi.entries()[0].name, "g");
    /// assert!(abi.notes()[0].starts_with("a.rs: not read"));
    /// ```
    pub fn from_sources<I, N, T>(files: I) -> SourceAbi
    where
        I: IntoIterator<Item = (N, T)>,
        N: AsRef<str>,
        T: AsRef<str>,
    {
        let mut defs = Defs::default();
        let mut raw = Vec::new();
        let mut notes = Vec::new();
        for (name, text) in files {
            let name = name.as_ref();
            match syn::parse_file(text.as_ref()) {
                Ok(file) => {
                    let mut c =
                        Collector { file: name, defs: &mut defs, entries: &mut raw, notes: &mut notes };
                    c.visit_file(&file);
                }
                Err(e) => notes.push(format!("{name}: not read ({e}): its entry points are not checked")),
            }
        }
        let resolver = Resolver { defs: &defs };
        let mut entries = Vec::new();
        for r in raw {
            let params = match &r.params {
                RawParams::Fn(params) => params.clone(),
                RawParams::Entry(list) => match resolver.param_list(list, 0) {
                    Ok(types) => types.into_iter().map(|t| (show(&t), t)).collect(),
                    Err(why) => {
                        notes.push(format!(
                            "{}: the parameter list `{}` is not a tuple ({why}): not checked",
                            r.origin,
                            show(list)
                        ));
                        continue;
                    }
                },
            };
            let mut expected = Vec::new();
            for (rust, ty) in params {
                match resolver.layout(&ty, 0) {
                    Ok(l) if l.size == 0 => {
                        notes.push(format!("{}: `{rust}` is zero-sized and takes no PTX parameter", r.origin))
                    }
                    Ok(l) => expected.push(ExpectedParam { rust, kind: l.kind() }),
                    Err(reason) => {
                        expected.push(ExpectedParam { rust, kind: ParamKind::Unchecked { reason } })
                    }
                }
            }
            entries.push(SourceEntry { name: r.name, origin: r.origin, params: expected });
        }
        SourceAbi { entries, notes }
    }

    /// The entry points, in the order of the files and, within one, of the source.
    ///
    /// ```
    /// let abi = const_layout_builder::SourceAbi::from_sources([("src/lib.rs", "")]);
    /// assert!(abi.entries().is_empty());
    /// ```
    pub fn entries(&self) -> &[SourceEntry] {
        &self.entries
    }

    /// What was read but not understood: a file syn cannot parse, an `Entry` whose parameter list
    /// or name is not written out.
    ///
    /// ```
    /// let abi = const_layout_builder::SourceAbi::from_sources([("src/lib.rs", "const E: Entry<Params> = Entry::new(NAME);")]);
    /// assert_eq!(abi.notes().len(), 1);
    /// ```
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// The `.rs` files under `dir`, recursively, sorted.
pub(crate) fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, SourceError> {
    fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) -> Result<(), SourceError> {
        let err = |error| SourceError { path: dir.to_path_buf(), error };
        for entry in std::fs::read_dir(dir).map_err(err)? {
            let path = entry.map_err(err)?.path();
            if path.is_dir() {
                if depth < 64 {
                    walk(&path, depth + 1, out)?;
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, 0, &mut out)?;
    out.sort();
    Ok(out)
}

/// A type as the source writes it, with the spaces a person would write.
pub(crate) fn show(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut s = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                let next = chars.peek().copied();
                let prev = s.chars().last();
                let tight = matches!(next, Some('<' | '>' | ',' | ')' | ']' | ';' | ':'))
                    || matches!(prev, Some('<' | '(' | '[' | '&' | '*'))
                    || (prev == Some(':') && s.ends_with("::"))
                    || (next == Some(':') && chars.clone().nth(1) == Some(':'));
                if !tight {
                    s.push(' ');
                }
            }
            _ => s.push(c),
        }
    }
    s
}

// ---- collecting definitions ----

#[derive(Default)]
struct Defs {
    aliases: HashMap<String, Vec<Alias>>,
    structs: HashMap<String, Vec<StructDef>>,
    consts: HashMap<String, Vec<Expr>>,
}

#[derive(Clone)]
struct Alias {
    generics: Vec<String>,
    ty: Type,
}

#[derive(Clone)]
struct StructDef {
    generics: Vec<String>,
    repr: Repr,
    fields: Vec<Type>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Repr {
    C { align: Option<u64>, packed: bool },
    Transparent,
    Rust,
}

struct RawEntry {
    name: String,
    origin: String,
    params: RawParams,
}

enum RawParams {
    /// A function's `(pattern: Type)` pairs.
    Fn(Vec<(String, Type)>),
    /// An `Entry<P>`'s `P`.
    Entry(Type),
}

impl RawParams {
    /// The parameters of the function `sig` as written (a receiver, which no entry point has, left
    /// out): one reading for `extern "ptx-kernel"` functions and `kernel!`'s alike, so that both
    /// kinds of entry point are compared with the PTX on the same terms.
    fn of_fn(sig: &syn::Signature) -> Self {
        let params = sig
            .inputs
            .iter()
            .filter_map(|arg| match arg {
                syn::FnArg::Typed(pt) => {
                    let pat = pt.pat.to_token_stream().to_string();
                    Some((format!("{pat}: {}", show(&pt.ty)), (*pt.ty).clone()))
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        RawParams::Fn(params)
    }
}

struct Collector<'a> {
    file: &'a str,
    defs: &'a mut Defs,
    entries: &'a mut Vec<RawEntry>,
    notes: &'a mut Vec<String>,
}

fn type_params(generics: &syn::Generics) -> Vec<String> {
    generics.type_params().map(|p| p.ident.to_string()).collect()
}

/// The name an attribute exports a function under: `no_mangle` (the function's own name) or
/// `export_name = "..."`, bare or inside `unsafe(..)`.
fn exported_name(meta: &Meta, ident: &syn::Ident) -> Option<String> {
    match meta {
        Meta::Path(p) if p.is_ident("no_mangle") => Some(ident.to_string()),
        Meta::NameValue(nv) if nv.path.is_ident("export_name") => match &nv.value {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        Meta::List(l) if l.path.is_ident("unsafe") => {
            syn::parse2::<Meta>(l.tokens.clone()).ok().and_then(|m| exported_name(&m, ident))
        }
        _ => None,
    }
}

fn repr(attrs: &[Attribute]) -> Repr {
    let (mut c, mut transparent, mut packed, mut align) = (false, false, false, None);
    for a in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|m| {
            if m.path.is_ident("C") {
                c = true;
            } else if m.path.is_ident("transparent") {
                transparent = true;
            } else if m.path.is_ident("packed") {
                packed = true;
            }
            if m.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in m.input);
                let args: proc_macro2::TokenStream = content.parse()?;
                if m.path.is_ident("align") {
                    align = syn::parse2::<syn::LitInt>(args).ok().and_then(|n| n.base10_parse::<u64>().ok());
                }
            }
            Ok(())
        });
    }
    match (c, transparent) {
        (_, true) => Repr::Transparent,
        (true, _) => Repr::C { align, packed },
        (false, false) if packed => Repr::C { align, packed },
        _ => Repr::Rust,
    }
}

/// The `P` of `Entry<P>` (any path ending in `Entry`).
fn entry_params(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Entry" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else { return None };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(t)] => Some(t),
        _ => None,
    }
}

/// The name in `Entry::new("name")` (or `Entry::<P>::new`).
fn entry_name(expr: &Expr) -> Option<String> {
    let Expr::Call(call) = expr else { return None };
    let Expr::Path(f) = &*call.func else { return None };
    if f.path.segments.last()?.ident != "new" || call.args.len() != 1 {
        return None;
    }
    match &call.args[0] {
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    }
}

impl Collector<'_> {
    fn entry_const(&mut self, ident: &syn::Ident, ty: &Type, expr: &Expr) -> bool {
        let Some(list) = entry_params(ty) else { return false };
        let origin = format!("{}: const {ident}", self.file);
        match entry_name(expr) {
            Some(name) => {
                self.entries.push(RawEntry { name, origin, params: RawParams::Entry(list.clone()) })
            }
            None => self
                .notes
                .push(format!("{origin}: not `Entry::new(\"name\")` with the name written out: not checked")),
        }
        true
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let ptx_kernel =
            f.sig.abi.as_ref().and_then(|a| a.name.as_ref()).is_some_and(|n| n.value() == "ptx-kernel");
        if ptx_kernel && let Some(name) = f.attrs.iter().find_map(|a| exported_name(&a.meta, &f.sig.ident)) {
            let origin = format!("{}: fn {}", self.file, f.sig.ident);
            self.entries.push(RawEntry { name, origin, params: RawParams::of_fn(&f.sig) });
        }
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        // `const_layout_device::kernel! { #[entry(NAME)] pub fn name(params) { .. } .. }`: each
        // function is an entry point named after it, its parameters as written.
        if m.mac.path.segments.last().is_some_and(|s| s.ident == "kernel") {
            let items = |input: syn::parse::ParseStream<'_>| {
                let mut fns = Vec::new();
                while !input.is_empty() {
                    fns.push(input.parse::<syn::ItemFn>()?);
                }
                Ok(fns)
            };
            match syn::parse::Parser::parse2(items, m.mac.tokens.clone()) {
                Ok(fns) => {
                    for f in fns {
                        let origin = format!("{}: kernel! fn {}", self.file, f.sig.ident);
                        self.entries.push(RawEntry {
                            name: f.sig.ident.to_string(),
                            origin,
                            params: RawParams::of_fn(&f.sig),
                        });
                    }
                }
                Err(e) => self.notes.push(format!(
                    "{}: a kernel! invocation that does not parse ({e}): not checked",
                    self.file
                )),
            }
        }
        syn::visit::visit_item_macro(self, m);
    }

    fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
        let alias = Alias { generics: type_params(&t.generics), ty: (*t.ty).clone() };
        self.defs.aliases.entry(t.ident.to_string()).or_default().push(alias);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let def = StructDef {
            generics: type_params(&s.generics),
            repr: repr(&s.attrs),
            fields: s.fields.iter().map(|f| f.ty.clone()).collect(),
        };
        self.defs.structs.entry(s.ident.to_string()).or_default().push(def);
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        if !self.entry_const(&c.ident, &c.ty, &c.expr) {
            self.defs.consts.entry(c.ident.to_string()).or_default().push((*c.expr).clone());
        }
        syn::visit::visit_item_const(self, c);
    }

    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        self.entry_const(&c.ident, &c.ty, &c.expr);
        syn::visit::visit_impl_item_const(self, c);
    }
}

// ---- sizes and alignments ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    /// 8- and 16-bit integers and `bool`: no PTX form verified.
    Small,
    I32,
    I64,
    F32,
    F64,
    Ptr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    size: u64,
    align: u64,
    /// `Some` for a value passed as one scalar (a scalar, or a struct wrapping exactly one).
    scalar: Option<Scalar>,
}

impl Layout {
    const fn scalar(size: u64, s: Scalar) -> Layout {
        Layout { size, align: size, scalar: Some(s) }
    }
    const fn bytes(size: u64, align: u64) -> Layout {
        Layout { size, align, scalar: None }
    }

    fn kind(self) -> ParamKind {
        match self.scalar {
            Some(Scalar::I32) => ParamKind::U32,
            Some(Scalar::I64) => ParamKind::U64,
            Some(Scalar::F32) => ParamKind::F32,
            Some(Scalar::F64) => ParamKind::F64,
            Some(Scalar::Ptr) => ParamKind::Pointer,
            Some(Scalar::Small) => {
                ParamKind::Unchecked { reason: "8- and 16-bit scalars' PTX form is not checked".into() }
            }
            None => ParamKind::Bytes { size: self.size, align: self.align },
        }
    }
}

const MAX_DEPTH: u32 = 32;

struct Resolver<'a> {
    defs: &'a Defs,
}

fn primitive(name: &str) -> Option<Layout> {
    Some(match name {
        "u8" | "i8" | "bool" => Layout::scalar(1, Scalar::Small),
        "u16" | "i16" => Layout::scalar(2, Scalar::Small),
        "u32" | "i32" | "char" => Layout::scalar(4, Scalar::I32),
        "f32" => Layout::scalar(4, Scalar::F32),
        "u64" | "i64" | "usize" | "isize" => Layout::scalar(8, Scalar::I64),
        "f64" => Layout::scalar(8, Scalar::F64),
        _ => return None,
    })
}

/// The type arguments of a path's last segment.
fn type_args(seg: &syn::PathSegment) -> Vec<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `ty` with the generic parameters `map` names replaced.
fn subst(ty: &Type, map: &HashMap<String, Type>) -> Type {
    if map.is_empty() {
        return ty.clone();
    }
    let mut ty = ty.clone();
    subst_in(&mut ty, map);
    ty
}

fn subst_in(ty: &mut Type, map: &HashMap<String, Type>) {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if p.path.segments.len() == 1
                && p.path.segments[0].arguments.is_none()
                && let Some(t) = map.get(&p.path.segments[0].ident.to_string())
            {
                *ty = t.clone();
                return;
            }
            for seg in p.path.segments.iter_mut() {
                if let PathArguments::AngleBracketed(a) = &mut seg.arguments {
                    for g in a.args.iter_mut() {
                        if let GenericArgument::Type(t) = g {
                            subst_in(t, map);
                        }
                    }
                }
            }
        }
        Type::Array(a) => subst_in(&mut a.elem, map),
        Type::Ptr(p) => subst_in(&mut p.elem, map),
        Type::Reference(r) => subst_in(&mut r.elem, map),
        Type::Slice(s) => subst_in(&mut s.elem, map),
        Type::Paren(p) => subst_in(&mut p.elem, map),
        Type::Group(g) => subst_in(&mut g.elem, map),
        Type::Tuple(t) => t.elems.iter_mut().for_each(|e| subst_in(e, map)),
        _ => {}
    }
}

fn round_up(n: u64, align: u64) -> u64 {
    n.div_ceil(align) * align
}

impl Resolver<'_> {
    /// The one definition named `name` (several that read the same count as one).
    fn unique<'d, T>(
        &self,
        name: &str,
        defs: Option<&'d Vec<T>>,
        key: impl Fn(&T) -> String,
    ) -> Result<Option<&'d T>, String> {
        let Some(defs) = defs else { return Ok(None) };
        let first = &defs[0];
        if defs.iter().any(|d| key(d) != key(first)) {
            return Err(format!("`{name}` is defined {} times in the crate", defs.len()));
        }
        Ok(Some(first))
    }

    fn alias(&self, name: &str) -> Result<Option<&Alias>, String> {
        self.unique(name, self.defs.aliases.get(name), |a| format!("{:?} {}", a.generics, show(&a.ty)))
    }

    fn structure(&self, name: &str) -> Result<Option<&StructDef>, String> {
        self.unique(name, self.defs.structs.get(name), |s| {
            let fields: Vec<String> = s.fields.iter().map(show).collect();
            format!("{:?} {:?} {}", s.generics, fields, matches!(s.repr, Repr::Rust))
        })
    }

    fn generic_map(generics: &[String], args: &[&Type], name: &str) -> Result<HashMap<String, Type>, String> {
        if generics.len() != args.len() {
            return Err(format!("`{name}` takes {} type arguments, given {}", generics.len(), args.len()));
        }
        Ok(generics.iter().cloned().zip(args.iter().map(|t| (*t).clone())).collect())
    }

    /// The list of types `P` of an `Entry<P>`: a tuple, possibly behind aliases.
    fn param_list(&self, ty: &Type, depth: u32) -> Result<Vec<Type>, String> {
        if depth > MAX_DEPTH {
            return Err("type aliases nest too deep".into());
        }
        match ty {
            Type::Tuple(t) => Ok(t.elems.iter().cloned().collect()),
            Type::Paren(p) => self.param_list(&p.elem, depth + 1),
            Type::Group(g) => self.param_list(&g.elem, depth + 1),
            Type::Path(p) if p.qself.is_none() => {
                let seg = p.path.segments.last().ok_or("an empty path")?;
                let name = seg.ident.to_string();
                let alias =
                    self.alias(&name)?.ok_or_else(|| format!("`{name}` is no type alias of the crate"))?;
                let map = Self::generic_map(&alias.generics, &type_args(seg), &name)?;
                self.param_list(&subst(&alias.ty, &map), depth + 1)
            }
            _ => Err("not a tuple".into()),
        }
    }

    /// Whether `ty` is a `TensorParam`, possibly behind aliases.
    fn is_tensor_param(&self, ty: &Type, depth: u32) -> bool {
        let Type::Path(p) = ty else { return false };
        let Some(seg) = p.path.segments.last() else { return false };
        let name = seg.ident.to_string();
        match self.alias(&name) {
            Ok(Some(alias)) if depth < MAX_DEPTH => {
                match Self::generic_map(&alias.generics, &type_args(seg), &name) {
                    Ok(map) => self.is_tensor_param(&subst(&alias.ty, &map), depth + 1),
                    Err(_) => false,
                }
            }
            Ok(None) => name == "TensorParam",
            _ => false,
        }
    }

    fn layout(&self, ty: &Type, depth: u32) -> Result<Layout, String> {
        if depth > MAX_DEPTH {
            return Err("types nest too deep".into());
        }
        match ty {
            Type::Paren(p) => self.layout(&p.elem, depth + 1),
            Type::Group(g) => self.layout(&g.elem, depth + 1),
            Type::Tuple(t) if t.elems.is_empty() => Ok(Layout::bytes(0, 1)),
            Type::Tuple(_) => Err("a tuple has Rust's layout".into()),
            Type::Never(_) => Ok(Layout::bytes(0, 1)),
            Type::Ptr(syn::TypePtr { elem, .. }) | Type::Reference(syn::TypeReference { elem, .. }) => {
                match &**elem {
                    Type::Slice(_) | Type::TraitObject(_) => Err(format!("`{}` is a wide pointer", show(ty))),
                    Type::Path(p) if p.path.is_ident("str") => {
                        Err(format!("`{}` is a wide pointer", show(ty)))
                    }
                    _ => Ok(Layout::scalar(8, Scalar::Ptr)),
                }
            }
            Type::Array(a) => {
                let elem = self.layout(&a.elem, depth + 1)?;
                let n = self.const_value(&a.len, depth + 1)?;
                let size = n.checked_mul(elem.size).ok_or("an array too large")?;
                Ok(Layout::bytes(size, elem.align))
            }
            Type::Path(p) if p.qself.is_none() => self.path_layout(ty, p, depth),
            _ => Err(format!("`{}` is not a type the builder can size", show(ty))),
        }
    }

    fn path_layout(&self, ty: &Type, p: &syn::TypePath, depth: u32) -> Result<Layout, String> {
        let seg = p.path.segments.last().ok_or("an empty path")?;
        let name = seg.ident.to_string();
        let args = type_args(seg);
        if let Some(l) =
            primitive(&name).filter(|_| args.is_empty() && self.alias(&name).ok().flatten().is_none())
        {
            return Ok(l);
        }
        if let Some(alias) = self.alias(&name)? {
            let map = Self::generic_map(&alias.generics, &args, &name)?;
            return self.layout(&subst(&alias.ty, &map), depth + 1);
        }
        if let Some(def) = self.structure(&name)? {
            let map = Self::generic_map(&def.generics, &args, &name)?;
            return self.struct_layout(&name, def, &map, depth);
        }
        match name.as_str() {
            // const-layout-device's kernel parameters: an allocation's address and length and a
            // layout's runtime integers, 64 bytes, 8-aligned.
            "TensorParam" | "TensorWords" => Ok(Layout::bytes(64, 8)),
            "In" | "Out" => match args[..] {
                [inner] if self.is_tensor_param(inner, depth + 1) => Ok(Layout::bytes(64, 8)),
                _ => Err(format!("`{}` is not of a `TensorParam`", show(ty))),
            },
            "TensorMapRef" => Ok(Layout::scalar(8, Scalar::I64)),
            "PhantomData" | "PhantomPinned" => Ok(Layout::bytes(0, 1)),
            _ => Err(format!("`{}` is not defined in the crate's source", show(ty))),
        }
    }

    fn struct_layout(
        &self,
        name: &str,
        def: &StructDef,
        map: &HashMap<String, Type>,
        depth: u32,
    ) -> Result<Layout, String> {
        let (align_attr, packed) = match def.repr {
            Repr::Rust => return Err(format!("`{name}` has Rust's layout (no `#[repr(C)]`)")),
            Repr::C { align, packed } => (align, packed),
            Repr::Transparent => (None, false),
        };
        if packed {
            return Err(format!("`{name}` is packed"));
        }
        let mut fields = Vec::new();
        for f in &def.fields {
            fields.push(self.layout(&subst(f, map), depth + 1)?);
        }
        let nonzero: Vec<Layout> = fields.iter().copied().filter(|f| f.size > 0).collect();
        if def.repr == Repr::Transparent {
            return match nonzero[..] {
                [] => Ok(Layout::bytes(0, 1)),
                [one] => Ok(one),
                _ => Err(format!("`{name}` is transparent over more than one field")),
            };
        }
        let (mut offset, mut align) = (0u64, align_attr.unwrap_or(1));
        for f in &fields {
            offset = round_up(offset, f.align) + f.size;
            align = align.max(f.align);
        }
        let size = round_up(offset, align);
        match nonzero[..] {
            // One scalar field (and no wider alignment): passed as that scalar.
            [one] if one.scalar.is_some() && align_attr.is_none() && size == one.size => Ok(one),
            _ => Ok(Layout::bytes(size, align)),
        }
    }

    /// The value of an array length: a literal, a constant of the crate, or arithmetic on those.
    fn const_value(&self, expr: &Expr, depth: u32) -> Result<u64, String> {
        if depth > MAX_DEPTH {
            return Err("constants nest too deep".into());
        }
        let unknown =
            || format!("the length `{}` is not a literal or a constant of the crate", expr.to_token_stream());
        match expr {
            Expr::Lit(syn::ExprLit { lit: Lit::Int(n), .. }) => {
                n.base10_parse::<u64>().map_err(|e| e.to_string())
            }
            Expr::Paren(p) => self.const_value(&p.expr, depth + 1),
            Expr::Group(g) => self.const_value(&g.expr, depth + 1),
            Expr::Cast(c) => self.const_value(&c.expr, depth + 1),
            Expr::Block(b) => match &b.block.stmts[..] {
                [syn::Stmt::Expr(e, None)] => self.const_value(e, depth + 1),
                _ => Err(unknown()),
            },
            Expr::Path(p) if p.qself.is_none() => {
                let name = p.path.segments.last().ok_or_else(unknown)?.ident.to_string();
                let defs = self.defs.consts.get(&name).ok_or_else(unknown)?;
                let values: Vec<Result<u64, String>> =
                    defs.iter().map(|e| self.const_value(e, depth + 1)).collect();
                match &values[..] {
                    [one] => one.clone(),
                    many if many.iter().all(|v| v.is_ok() && *v == many[0]) => many[0].clone(),
                    _ => Err(format!("the constant `{name}` is defined {} times in the crate", defs.len())),
                }
            }
            Expr::Binary(b) => {
                let (l, r) = (self.const_value(&b.left, depth + 1)?, self.const_value(&b.right, depth + 1)?);
                let v = match b.op {
                    syn::BinOp::Add(_) => l.checked_add(r),
                    syn::BinOp::Sub(_) => l.checked_sub(r),
                    syn::BinOp::Mul(_) => l.checked_mul(r),
                    syn::BinOp::Div(_) => l.checked_div(r),
                    syn::BinOp::Shl(_) => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                    _ => None,
                };
                v.ok_or_else(unknown)
            }
            _ => Err(unknown()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(String, Vec<ParamKind>)> {
        SourceAbi::from_sources([("src/lib.rs", src)])
            .entries()
            .iter()
            .map(|e| (e.name.clone(), e.params.iter().map(|p| p.kind.clone()).collect()))
            .collect()
    }

    fn bytes(size: u64, align: u64) -> ParamKind {
        ParamKind::Bytes { size, align }
    }

    #[test]
    fn kernel_macro_entries() {
        let src = r#"
            const_layout_device::kernel! {
                /// Doc.
                #[entry(SOFTMAX)]
                #[launch_bounds(256, 8)]
                pub fn softmax_f32(x: In<ColMajor>, n: u32) { body(x, n) }
                #[entry(SCALE)]
                pub fn scale(a: f32) {}
            }
            pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
        "#;
        let k = kinds(src);
        assert_eq!(k.len(), 2, "{k:?}");
        assert_eq!(k[0].0, "softmax_f32");
        assert_eq!(k[0].1, [bytes(64, 8), ParamKind::U32]);
        assert_eq!(k[1].1, [ParamKind::F32]);
    }

    #[test]
    fn scalars_and_names() {
        let src = r#"
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn a(x: u32, y: i32, z: u64, w: i64, u: usize, f: f32, d: f64, c: char) {}
            #[no_mangle]
            pub extern "ptx-kernel" fn b(p: *const f32, q: *mut [u32; 4], r: &u64) {}
            #[unsafe(export_name = "c_renamed")]
            pub extern "ptx-kernel" fn c() {}
            // Not exported by name: its PTX name is mangled.
            pub extern "ptx-kernel" fn mangled(x: u32) {}
            // Not a kernel.
            #[unsafe(no_mangle)]
            pub extern "C" fn host(x: u32) {}
            mod inner {
                #[unsafe(no_mangle)]
                pub extern "ptx-kernel" fn nested(x: f64) {}
            }
        "#;
        use ParamKind::*;
        assert_eq!(
            kinds(src),
            [
                ("a".into(), vec![U32, U32, U64, U64, U64, F32, F64, U32]),
                ("b".into(), vec![Pointer, Pointer, Pointer]),
                ("c_renamed".into(), vec![]),
                ("nested".into(), vec![F64]),
            ]
        );
        let abi = SourceAbi::from_sources([("src/lib.rs", src)]);
        assert_eq!(abi.entries()[0].origin, "src/lib.rs: fn a");
        assert_eq!(abi.entries()[0].params[5].rust, "f: f32");
    }

    #[test]
    fn aliases_and_tensor_params() {
        let src = r#"
            pub type ColMajor = TensorParam<f32, (u32, u32), (C<1>, u32)>;
            pub type Rows<T> = const_layout_device::TensorParam<T, (u32, u32), (u32, C<1>)>;
            type Alpha = f32;
            type Twice = Alpha;
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn k(a: ColMajor, b: Rows<u16>, w: TensorWords, s: Twice, i: In<ColMajor>, o: Out<Rows<f32>>, m: TensorMapRef) {}
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn bad(i: In<u32>) {}
        "#;
        let got = kinds(src);
        assert_eq!(
            got[0].1,
            [
                bytes(64, 8),
                bytes(64, 8),
                bytes(64, 8),
                ParamKind::F32,
                bytes(64, 8),
                bytes(64, 8),
                ParamKind::U64
            ]
        );
        assert!(
            matches!(&got[1].1[0], ParamKind::Unchecked { reason } if reason == "`In<u32>` is not of a `TensorParam`"),
            "{got:?}"
        );
    }

    #[test]
    fn arrays() {
        let src = r#"
            const N: usize = 4;
            const M: usize = N * 2 + 1;
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn k(a: [u32; 16], b: [f64; N], c: [[u32; 3]; M], d: [u8; 5], e: [u32; { N }], f: [u32; LEN]) {}
        "#;
        let got = &kinds(src)[0].1;
        assert_eq!(got[..5], [bytes(64, 4), bytes(32, 8), bytes(108, 4), bytes(5, 1), bytes(16, 4)]);
        assert!(
            matches!(&got[5], ParamKind::Unchecked { reason } if reason.contains("`LEN` is not a literal or a constant")),
            "{got:?}"
        );
    }

    #[test]
    fn repr_c_structs() {
        let src = r#"
            #[repr(C)] pub struct Three { n: u32, x: f32, p: *mut f32 }
            #[repr(C)] pub struct Padded { a: u8, b: u64, c: u16 }
            #[repr(C)] pub struct One(f32);
            #[repr(C)] pub struct Pair { a: u32, b: u32 }
            #[repr(C, align(16))] pub struct Aligned { a: u32 }
            #[repr(transparent)] pub struct Wrap<T>(T, core::marker::PhantomData<u8>);
            #[repr(C)] pub struct Nested { t: Three, w: [Pair; 2] }
            #[repr(C)] pub struct Gen<T> { a: T, b: u32 }
            pub struct RustRepr { a: u32 }
            #[repr(C, packed)] pub struct Packed { a: u8, b: u32 }
            #[repr(C)] pub struct HasUnknown { a: Foreign }
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn k(a: Three, b: Padded, c: One, d: Pair, e: Aligned, f: Wrap<u64>, g: Wrap<Three>, h: Nested, i: Gen<f64>) {}
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn u(a: RustRepr, b: Packed, c: HasUnknown, d: (u32, u32), e: &[u32], f: u16) {}
        "#;
        let got = kinds(src);
        assert_eq!(
            got[0].1,
            [
                bytes(16, 8),
                bytes(24, 8),
                ParamKind::F32,
                bytes(8, 4),
                bytes(16, 16),
                ParamKind::U64,
                bytes(16, 8),
                bytes(32, 8),
                bytes(16, 8)
            ]
        );
        let reasons: Vec<String> = got[1]
            .1
            .iter()
            .map(|k| match k {
                ParamKind::Unchecked { reason } => reason.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            reasons,
            [
                "`RustRepr` has Rust's layout (no `#[repr(C)]`)",
                "`Packed` is packed",
                "`Foreign` is not defined in the crate's source",
                "a tuple has Rust's layout",
                "`&[u32]` is a wide pointer",
                "8- and 16-bit scalars' PTX form is not checked",
            ]
        );
    }

    #[test]
    fn entry_declarations() {
        let src = r#"
            use const_layout_device::abi::{Entry, In, Out, TensorMapRef};
            pub type RowMajor = TensorParam<f32, (u32, u32), (u32, C<1>)>;
            type Params = (In<RowMajor>, Out<RowMajor>, u32);
            pub const SOFTMAX: Entry<(In<RowMajor>, Out<RowMajor>, u32)> = Entry::new("softmax_f32");
            pub const ALIASED: abi::Entry<Params> = abi::Entry::<Params>::new("aliased");
            pub const NONE: Entry<()> = Entry::new("none");
            pub const ONE: Entry<(TensorMapRef,)> = Entry::new("one");
            struct K;
            impl K {
                const IN_IMPL: Entry<(f32, f64)> = Entry::new("in_impl");
            }
            const NOT_NAMED: Entry<(u32,)> = Entry::new(NAME);
            const NOT_A_TUPLE: Entry<u32> = Entry::new("not_a_tuple");
            macro_rules! entry {
                ($name:ident) => {
                    #[unsafe(no_mangle)]
                    pub unsafe extern "ptx-kernel" fn $name(a: u64) {}
                };
            }
            entry!(generated);
        "#;
        let abi = SourceAbi::from_sources([("src/abi.rs", src)]);
        let got: Vec<_> = abi
            .entries()
            .iter()
            .map(|e| (e.name.as_str(), e.params.iter().map(|p| p.kind.clone()).collect::<Vec<_>>()))
            .collect();
        let t = bytes(64, 8);
        assert_eq!(
            got,
            [
                ("softmax_f32", vec![t.clone(), t.clone(), ParamKind::U32]),
                ("aliased", vec![t.clone(), t, ParamKind::U32]),
                ("none", vec![]),
                ("one", vec![ParamKind::U64]),
                ("in_impl", vec![ParamKind::F32, ParamKind::F64]),
            ]
        );
        assert_eq!(abi.entries()[0].origin, "src/abi.rs: const SOFTMAX");
        assert_eq!(abi.entries()[0].params[0].rust, "In<RowMajor>");
        assert_eq!(abi.notes().len(), 2, "{:?}", abi.notes());
        assert!(abi.notes()[0].contains("const NOT_NAMED: not `Entry::new(\"name\")`"));
        assert!(abi.notes()[1].contains("const NOT_A_TUPLE: the parameter list `u32` is not a tuple"));
    }

    #[test]
    fn ambiguous_and_unparsable() {
        let a =
            "pub type T = u32;\n#[unsafe(no_mangle)] pub unsafe extern \"ptx-kernel\" fn k(t: T, s: S) {}";
        let b = "mod m { pub type T = f32; pub type S = u64; } mod n { pub type S = u64; }";
        let abi = SourceAbi::from_sources([("src/a.rs", a), ("src/b.rs", b), ("src/c.rs", "fn (")]);
        let k = &abi.entries()[0];
        assert_eq!(
            k.params[0].kind,
            ParamKind::Unchecked { reason: "`T` is defined 2 times in the crate".into() }
        );
        assert_eq!(k.params[1].kind, ParamKind::U64);
        assert_eq!(abi.notes().len(), 1);
        assert!(abi.notes()[0].starts_with("src/c.rs: not read ("), "{:?}", abi.notes());
    }

    #[test]
    fn zero_sized_parameters_take_none() {
        let src = "#[unsafe(no_mangle)] pub unsafe extern \"ptx-kernel\" fn k(a: u32, m: PhantomData<f32>, u: ()) {}";
        let abi = SourceAbi::from_sources([("src/lib.rs", src)]);
        assert_eq!(abi.entries()[0].params.len(), 1);
        assert_eq!(abi.notes().len(), 2);
    }

    #[test]
    fn shows_types_as_written() {
        let t: Type = syn::parse_str("TensorParam < f32 , (u32 , u32) , (C < 1 > , u32) >").unwrap();
        assert_eq!(show(&t), "TensorParam<f32, (u32, u32), (C<1>, u32)>");
        let t: Type = syn::parse_str("[[u32 ; 3] ; N]").unwrap();
        assert_eq!(show(&t), "[[u32; 3]; N]");
        let t: Type = syn::parse_str("& mut core :: marker :: PhantomData < * const u8 >").unwrap();
        assert_eq!(show(&t), "&mut core::marker::PhantomData<*const u8>");
    }

    #[test]
    fn reads_a_crate() {
        let dir = std::env::temp_dir().join(format!("const-layout-builder-source-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src/nested")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "mod nested;").unwrap();
        std::fs::write(dir.join("src/nested/mod.rs"), "#[no_mangle] extern \"ptx-kernel\" fn k(x: u32) {}")
            .unwrap();
        std::fs::write(dir.join("src/notes.txt"), "not rust").unwrap();
        let abi = SourceAbi::from_crate(&dir).unwrap();
        assert_eq!(abi.entries()[0].origin, "src/nested/mod.rs: fn k");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
