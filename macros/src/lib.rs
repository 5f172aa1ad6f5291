//! The `layout!` macro of const-layout: CuTe's layout notation, translated into const-layout's types.
//!
//! This crate only parses and translates; every computation (the scalar-stride rule, sizes, checks)
//! is done by the types of `const_layout`. Use it through `const_layout::layout!`.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, Ident, LitInt, Token, braced, parenthesized};

/// An int tuple in CuTe notation: an integer leaf or a parenthesized list.
enum Tree {
    /// A static integer written as a literal (`8`, `-1`) or CuTe-style (`_8`).
    Static(i128, Span),
    /// A runtime integer: an identifier or a `{ expr }` block.
    Runtime(Expr),
    Tuple(Vec<Tree>),
}

impl Tree {
    fn is_static(&self) -> bool {
        match self {
            Tree::Static(..) => true,
            Tree::Runtime(_) => false,
            Tree::Tuple(items) => items.iter().all(Tree::is_static),
        }
    }

    fn check_shape(&self) -> syn::Result<()> {
        match self {
            Tree::Static(v, span) if *v <= 0 => Err(syn::Error::new(
                *span,
                format!("shape extent {v} is not positive: extents must be at least 1"),
            )),
            Tree::Tuple(items) => items.iter().try_for_each(Tree::check_shape),
            _ => Ok(()),
        }
    }

    fn expand(&self) -> TokenStream2 {
        match self {
            Tree::Static(v, span) => {
                let lit = proc_macro2::Literal::i128_unsuffixed(*v);
                let lit = if *v < 0 { quote_spanned!(*span=> { #lit }) } else { quote!(#lit) };
                quote_spanned!(*span=> ::const_layout::C::<#lit>)
            }
            Tree::Runtime(e) => quote!((#e)),
            Tree::Tuple(items) => {
                let items = items.iter().map(Tree::expand);
                quote!((#(#items,)*))
            }
        }
    }
}

impl Parse for Tree {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let lookahead = input.lookahead1();
        if lookahead.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            let mut items = Vec::new();
            while !content.is_empty() {
                items.push(content.parse()?);
                if content.is_empty() {
                    break;
                }
                content.parse::<Token![,]>()?;
            }
            Ok(Tree::Tuple(items))
        } else if lookahead.peek(LitInt) {
            let lit: LitInt = input.parse()?;
            Ok(Tree::Static(lit.base10_parse()?, lit.span()))
        } else if lookahead.peek(Token![-]) {
            let minus: Token![-] = input.parse()?;
            let lit: LitInt = input.parse()?;
            let v: i128 = lit.base10_parse()?;
            Ok(Tree::Static(-v, minus.span.join(lit.span()).unwrap_or(lit.span())))
        } else if lookahead.peek(syn::token::Brace) {
            let content;
            braced!(content in input);
            Ok(Tree::Runtime(content.parse()?))
        } else if lookahead.peek(Ident) {
            let ident: Ident = input.parse()?;
            let name = ident.to_string();
            // CuTe's spelling of a static integer, `_8`, is an identifier to Rust.
            if let Some(digits) =
                name.strip_prefix('_').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            {
                let v: i128 =
                    digits.parse().map_err(|_| syn::Error::new(ident.span(), "integer too large"))?;
                return Ok(Tree::Static(v, ident.span()));
            }
            Ok(Tree::Runtime(syn::parse_quote!(#ident)))
        } else {
            Err(lookahead.error())
        }
    }
}

struct LayoutInput {
    shape: Tree,
    stride: Option<Tree>,
}

impl Parse for LayoutInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let shape: Tree = input.parse()?;
        let stride = if input.peek(Token![:]) {
            input.parse::<Token![:]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the layout; expected `shape` or `shape:stride`"));
        }
        Ok(LayoutInput { shape, stride })
    }
}

/// A layout in CuTe notation: `layout!((8,(4,2)):(1,8))`, or `layout!((8,4))` for the compact
/// column-major layout. See `const_layout::layout!` for the full documentation.
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as LayoutInput);
    expand_layout(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

fn expand_layout(input: LayoutInput) -> syn::Result<TokenStream2> {
    input.shape.check_shape()?;
    let shape = input.shape.expand();
    let all_static = input.shape.is_static() && input.stride.as_ref().is_none_or(Tree::is_static);
    let stride = match &input.stride {
        Some(t) => t.expand(),
        None => quote!(::const_layout::LayoutLeft),
    };
    Ok(if all_static {
        quote!(::const_layout::make_static_layout(#shape, #stride))
    } else {
        quote!(::const_layout::make_layout(#shape, #stride))
    })
}
