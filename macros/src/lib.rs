//! The notation macros of const-layout: CuTe's layout notation translated into const-layout's types
//! and values. Use them through `const_layout` (`layout!`, `layout_type!`, `shape!`, `stride!`,
//! `coord!`, `tiler!`), which documents them.
//!
//! The crate only parses, checks the notation, and translates: every computation on the values (the
//! scalar-stride rule, sizes, offsets) is done by `const_layout`'s types. The checks here are the
//! ones a reader of the notation can see: a literal extent that is not positive, a stride that does
//! not match its shape's nesting, a literal size or cosize that overflows `isize`, a leaf that is not
//! an integer. Each is a `syn::Error` spanned on the offending tokens.
#![forbid(unsafe_code)]

// The runtime-structured core, so that `layout!` can evaluate static algebra at expansion time
// with the library's own implementation.
use const_layout_core::{dyn_layout, swizzle};

mod static_algebra;

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitInt, Token, braced, parenthesized};

/// An int tuple in CuTe notation.
enum Tree {
    /// A static integer, written as a literal (`8`, `-1`) or CuTe's way (`_8`).
    Static(i128, Span),
    /// A runtime integer: an identifier or a `{ expr }` block (in the type form, a type name);
    /// the flag says it was a block.
    Runtime(Expr, Span, bool),
    /// A parenthesized tuple.
    Tuple(Vec<Tree>, Span),
}

impl Tree {
    fn span(&self) -> Span {
        match self {
            Tree::Static(_, s) | Tree::Runtime(_, s, _) | Tree::Tuple(_, s) => *s,
        }
    }

    fn is_static(&self) -> bool {
        match self {
            Tree::Static(..) => true,
            Tree::Runtime(..) => false,
            Tree::Tuple(items, _) => items.iter().all(Tree::is_static),
        }
    }

    fn text(&self) -> String {
        match self {
            Tree::Static(v, _) => v.to_string(),
            Tree::Runtime(e, _, _) => e.to_token_stream().to_string(),
            Tree::Tuple(items, _) => {
                format!("({})", items.iter().map(Tree::text).collect::<Vec<_>>().join(","))
            }
        }
    }

    /// Every literal must be at least `min` (1 for extents, 0 for coordinates).
    fn check_min(&self, min: i128, what: &str, errors: &mut Errors) {
        match self {
            Tree::Static(v, span) if *v < min => {
                let need =
                    if min == 1 { "extents must be at least 1" } else { "coordinates cannot be negative" };
                errors.push(syn::Error::new(*span, format!("{what} {v} is not allowed: {need}")));
            }
            Tree::Tuple(items, _) => items.iter().for_each(|t| t.check_min(min, what, errors)),
            _ => {}
        }
    }

    /// The product of the literal leaves, if every leaf is a literal (`None` on overflow too).
    fn literal_product(&self) -> Option<Option<i128>> {
        match self {
            Tree::Static(v, _) => Some(Some(*v)),
            Tree::Runtime(..) => None,
            Tree::Tuple(items, _) => {
                let mut p = Some(1i128);
                for t in items {
                    let v = t.literal_product()?;
                    p = p.zip(v).and_then(|(a, b)| a.checked_mul(b));
                }
                Some(p)
            }
        }
    }

    /// The leaves, left to right.
    fn leaves<'a>(&'a self, out: &mut Vec<&'a Tree>) {
        match self {
            Tree::Tuple(items, _) => items.iter().for_each(|t| t.leaves(out)),
            leaf => out.push(leaf),
        }
    }

    /// The value expression: literals become `C::<N>`, runtime leaves stay expressions.
    fn value(&self) -> TokenStream2 {
        match self {
            Tree::Static(v, span) => {
                let lit = proc_macro2::Literal::i128_unsuffixed(*v);
                let arg =
                    if *v < 0 { quote_spanned!(*span=> { #lit }) } else { quote_spanned!(*span=> #lit) };
                quote_spanned!(*span=> ::const_layout::C::<#arg>)
            }
            // A macro's expansion is one expression node, so no parentheses are needed (and
            // with the user's span they would draw `unused_parens` in the user's code).
            Tree::Runtime(e, span, _) => quote_spanned!(*span=> #e),
            Tree::Tuple(items, _) => {
                let items = items.iter().map(Tree::value);
                quote!((#(#items,)*))
            }
        }
    }

    /// The type: literals become `C<N>`, runtime leaves must be type names.
    fn ty(&self) -> TokenStream2 {
        match self {
            Tree::Static(v, span) => {
                let lit = proc_macro2::Literal::i128_unsuffixed(*v);
                let arg =
                    if *v < 0 { quote_spanned!(*span=> { #lit }) } else { quote_spanned!(*span=> #lit) };
                quote_spanned!(*span=> ::const_layout::C<#arg>)
            }
            Tree::Runtime(e, span, _) => quote_spanned!(*span=> #e),
            Tree::Tuple(items, _) => {
                let items = items.iter().map(Tree::ty);
                quote!((#(#items,)*))
            }
        }
    }
}

impl Parse for Tree {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(syn::token::Paren) {
            let content;
            let paren = parenthesized!(content in input);
            let mut items = Vec::new();
            while !content.is_empty() {
                items.push(content.parse()?);
                if content.is_empty() {
                    break;
                }
                if !content.peek(Token![,]) {
                    return Err(content.error("expected `,` or `)` after a mode"));
                }
                content.parse::<Token![,]>()?;
            }
            return Ok(Tree::Tuple(items, paren.span.join()));
        }
        if input.peek(LitInt) {
            let lit: LitInt = input.parse()?;
            if !lit.suffix().is_empty() {
                return Err(syn::Error::new(
                    lit.span(),
                    "write integers without a suffix: a literal is a static integer",
                ));
            }
            let v = lit
                .base10_parse::<i128>()
                .map_err(|_| syn::Error::new(lit.span(), "integer literal too large"))?;
            return Ok(Tree::Static(v, lit.span()));
        }
        if input.peek(Token![-]) && input.peek2(LitInt) {
            let minus: Token![-] = input.parse()?;
            let lit: LitInt = input.parse()?;
            let v: i128 = lit.base10_parse()?;
            return Ok(Tree::Static(-v, minus.span.join(lit.span()).unwrap_or(lit.span())));
        }
        if input.peek(syn::token::Brace) {
            let content;
            let brace = braced!(content in input);
            let e: Expr = content.parse()?;
            return Ok(Tree::Runtime(e, brace.span.join(), true));
        }
        if input.peek(Ident) {
            let ident: Ident = input.parse()?;
            let name = ident.to_string();
            // CuTe's spelling of a static integer, `_8`, is an identifier to Rust.
            if let Some(digits) =
                name.strip_prefix('_').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            {
                let v: i128 =
                    digits.parse().map_err(|_| syn::Error::new(ident.span(), "integer literal too large"))?;
                return Ok(Tree::Static(v, ident.span()));
            }
            let span = ident.span();
            return Ok(Tree::Runtime(syn::parse_quote!(#ident), span, false));
        }
        let found = input.cursor().token_tree().map(|(tt, _)| tt);
        match found {
            Some(tt) => Err(syn::Error::new(
                tt.span(),
                format!(
                    "expected an integer literal, an identifier, a `{{ expr }}` block or `(`, found `{tt}`"
                ),
            )),
            None => Err(input.error("expected an integer literal, an identifier, a `{ expr }` block or `(`")),
        }
    }
}

/// Collects every error, so that one expansion reports all of them (serde's habit).
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// `shape` or `shape:stride`.
struct LayoutSpec {
    shape: Tree,
    stride: Option<Tree>,
}

impl LayoutSpec {
    fn parse_one(input: ParseStream) -> syn::Result<Self> {
        let shape: Tree = input.parse()?;
        let stride = if input.peek(Token![:]) && !input.peek(Token![::]) {
            input.parse::<Token![:]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(LayoutSpec { shape, stride })
    }

    fn check(&self, errors: &mut Errors) {
        self.shape.check_min(1, "shape extent", errors);
        if let Some(stride) = &self.stride {
            congruence(&self.shape, stride, &mut Vec::new(), errors);
        }
        if let Some(size) = self.shape.literal_product() {
            match size {
                Some(v) if v <= isize::MAX as i128 => {}
                _ => errors.push(syn::Error::new(
                    self.shape.span(),
                    format!("the size of the shape `{}` overflows isize", self.shape.text()),
                )),
            }
        }
        if let (Some(stride), true) = (&self.stride, self.shape.is_static()) {
            self.check_cosize(stride, errors);
        }
    }

    /// For literal shapes and strides of the same nesting: `1 + sum((s - 1) * |d|)` within isize.
    fn check_cosize(&self, stride: &Tree, errors: &mut Errors) {
        let (mut s, mut d) = (Vec::new(), Vec::new());
        self.shape.leaves(&mut s);
        stride.leaves(&mut d);
        if s.len() != d.len() || !stride.is_static() {
            return; // a scalar stride against a tuple mode: checked by the types
        }
        let mut total: Option<i128> = Some(1);
        for (a, b) in s.iter().zip(&d) {
            if let (Tree::Static(a, _), Tree::Static(b, _)) = (a, b) {
                total = total.and_then(|t| (a - 1).checked_mul(b.abs()).and_then(|x| t.checked_add(x)));
            }
        }
        if total.is_none_or(|t| t > isize::MAX as i128) {
            errors.push(syn::Error::new(
                stride.span(),
                format!("the cosize of the layout `{}:{}` overflows isize", self.shape.text(), stride.text()),
            ));
        }
    }
}

fn mode_name(path: &[usize]) -> String {
    match path {
        [] => "the stride".to_string(),
        [m] => format!("stride mode {m}"),
        _ => format!("stride mode ({})", path.iter().map(usize::to_string).collect::<Vec<_>>().join(",")),
    }
}

/// Shape and stride must have the same nesting, except that a stride integer may stand for a whole
/// tuple mode (expanded by the types). Reports the first mismatch in each mode, naming it.
fn congruence(shape: &Tree, stride: &Tree, path: &mut Vec<usize>, errors: &mut Errors) {
    match (shape, stride) {
        (Tree::Tuple(s, _), Tree::Tuple(d, span)) => {
            if s.len() != d.len() {
                errors.push(syn::Error::new(
                    *span,
                    format!(
                        "{} has {} modes where the shape{} has {}: shape and stride must be congruent",
                        mode_name(path),
                        d.len(),
                        if path.is_empty() { String::new() } else { " mode".to_string() },
                        s.len()
                    ),
                ));
                return;
            }
            for (k, (a, b)) in s.iter().zip(d).enumerate() {
                path.push(k);
                congruence(a, b, path, errors);
                path.pop();
            }
        }
        (Tree::Static(..) | Tree::Runtime(..), Tree::Tuple(_, span)) => errors.push(syn::Error::new(
            *span,
            format!(
                "{} is the tuple `{}` but the shape there is the integer `{}`: a tuple stride needs a tuple mode",
                mode_name(path),
                stride.text(),
                shape.text()
            ),
        )),
        _ => {}
    }
}

struct LayoutInput(LayoutSpec);

impl Parse for LayoutInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let spec = LayoutSpec::parse_one(input)?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the layout: expected `shape` or `shape:stride`"));
        }
        Ok(LayoutInput(spec))
    }
}

fn layout_value(spec: &LayoutSpec) -> TokenStream2 {
    let all_static = spec.shape.is_static() && spec.stride.as_ref().is_none_or(Tree::is_static);
    layout_call(spec, all_static)
}

/// `make_static_layout(..)` (a layout) if `statically`, else `make_layout(..)` (a `Result`).
fn layout_call(spec: &LayoutSpec, statically: bool) -> TokenStream2 {
    let shape = spec.shape.value();
    let stride = match &spec.stride {
        Some(t) => t.value(),
        None => quote!(::const_layout::LayoutLeft),
    };
    if statically {
        quote!(::const_layout::make_static_layout(#shape, #stride))
    } else {
        quote!(::const_layout::make_layout(#shape, #stride))
    }
}

/// `layout!(shape:stride)`, `layout!(shape)`: a layout value. See `const_layout::layout!`.
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    let tokens = TokenStream2::from(input.clone());
    if static_algebra::is_call(&tokens) {
        return static_algebra::expand(tokens).into();
    }
    let LayoutInput(spec) = syn::parse_macro_input!(input as LayoutInput);
    let mut errors = Errors::default();
    spec.check(&mut errors);
    match errors.finish() {
        Ok(()) => layout_value(&spec).into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// `layout_type!(shape:stride)`: the type of that layout, for type positions. See
/// `const_layout::layout_type!`.
#[proc_macro]
pub fn layout_type(input: TokenStream) -> TokenStream {
    let LayoutInput(spec) = syn::parse_macro_input!(input as LayoutInput);
    let mut errors = Errors::default();
    spec.check(&mut errors);
    for leaf in runtime_leaves(&spec.shape).into_iter().chain(spec.stride.iter().flat_map(runtime_leaves)) {
        if let Tree::Runtime(_, span, true) = leaf {
            errors.push(syn::Error::new(
                *span,
                "a `{ expr }` block has no type: in `layout_type!` a runtime integer is written as its type, e.g. `usize`",
            ));
        }
    }
    if let Err(e) = errors.finish() {
        return e.into_compile_error().into();
    }
    let shape = spec.shape.ty();
    let stride = match &spec.stride {
        Some(t) => {
            let d = t.ty();
            quote!(<#d as ::const_layout::layout::ExpandStride<#shape>>::Output)
        }
        None => quote!(<::const_layout::LayoutLeft as ::const_layout::layout::IntoStride<#shape>>::Stride),
    };
    quote!(::const_layout::Layout<#shape, #stride>).into()
}

fn runtime_leaves(t: &Tree) -> Vec<&Tree> {
    let mut v = Vec::new();
    t.leaves(&mut v);
    v.into_iter().filter(|l| matches!(l, Tree::Runtime(..))).collect()
}

/// A bare int tuple: `shape!(8,(4,m))` or `shape!(8)`.
struct TupleInput(Tree);

impl Parse for TupleInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // The outer parentheses may be left out: `shape!(8, (4, 2))` is the tuple `(8,(4,2))`.
        let span = input.span();
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            if !input.peek(Token![,]) {
                return Err(input.error("expected `,` between modes"));
            }
            input.parse::<Token![,]>()?;
        }
        if items.len() == 1 {
            return Ok(TupleInput(items.pop().expect("one item")));
        }
        Ok(TupleInput(Tree::Tuple(items, span)))
    }
}

fn tuple_macro(input: TokenStream, min: Option<(i128, &str)>) -> TokenStream {
    let TupleInput(tree) = syn::parse_macro_input!(input as TupleInput);
    let mut errors = Errors::default();
    if let Some((min, what)) = min {
        tree.check_min(min, what, &mut errors);
    }
    match errors.finish() {
        Ok(()) => tree.value().into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// `shape!(8,(4,m))`: a shape value (literals static; extents must be positive). See
/// `const_layout::shape!`.
#[proc_macro]
pub fn shape(input: TokenStream) -> TokenStream {
    tuple_macro(input, Some((1, "shape extent")))
}

/// `stride!(1,(8,m))`: a stride value. See `const_layout::stride!`.
#[proc_macro]
pub fn stride(input: TokenStream) -> TokenStream {
    tuple_macro(input, None)
}

/// `coord!(1,(i,2))`: a coordinate value (literals static; not negative). See `const_layout::coord!`.
#[proc_macro]
pub fn coord(input: TokenStream) -> TokenStream {
    tuple_macro(input, Some((0, "coordinate")))
}

/// A by-mode tiler: `<3:3, (2,4):(1,8)>`, or a shape `(2,4)` meaning `<2:1, 4:1>`.
struct TilerInput(Vec<LayoutSpec>);

impl Parse for TilerInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![<]) {
            input.parse::<Token![<]>()?;
            let mut modes = Vec::new();
            loop {
                if input.peek(Token![>]) {
                    break;
                }
                modes.push(LayoutSpec::parse_one(input)?);
                if input.peek(Token![,]) {
                    input.parse::<Token![,]>()?;
                } else if !input.peek(Token![>]) {
                    return Err(input.error("expected `,` or `>` after a tiler mode"));
                }
            }
            input.parse::<Token![>]>()?;
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the tiler"));
            }
            if modes.is_empty() {
                return Err(input.error("a tiler needs at least one mode"));
            }
            return Ok(TilerInput(modes));
        }
        // A plain shape: each mode `s` is the layout `s:1`.
        let TupleInput(tree) = input.parse()?;
        let modes = match tree {
            Tree::Tuple(items, _) => items,
            leaf => vec![leaf],
        };
        Ok(TilerInput(
            modes
                .into_iter()
                .map(|m| {
                    let span = m.span();
                    LayoutSpec { shape: m, stride: Some(Tree::Static(1, span)) }
                })
                .collect(),
        ))
    }
}

/// `tiler!(<3:3, (2,4):(1,8)>)`: a by-mode tiler, a tuple of layouts. See `const_layout::tiler!`.
#[proc_macro]
pub fn tiler(input: TokenStream) -> TokenStream {
    let TilerInput(modes) = syn::parse_macro_input!(input as TilerInput);
    let mut errors = Errors::default();
    modes.iter().for_each(|m| m.check(&mut errors));
    if let Err(e) = errors.finish() {
        return e.into_compile_error().into();
    }
    let all_static =
        modes.iter().all(|m| m.shape.is_static() && m.stride.as_ref().is_none_or(Tree::is_static));
    if all_static {
        let values = modes.iter().map(|m| layout_call(m, true));
        quote!((#(#values,)*)).into()
    } else {
        // Some mode has runtime integers: every mode is checked and the tiler is a `Result`.
        let values = modes.iter().map(|m| {
            let v = layout_call(m, false);
            quote!(#v?)
        });
        quote!((|| -> ::core::result::Result<_, ::const_layout::LayoutError> { Ok((#(#values,)*)) })()).into()
    }
}
