//! Reading a PTX module as LLVM's NVPTX back end writes it: its functions, each entry point's
//! parameter declarations and performance directives, and the lines of each body.

use std::fmt;

/// One `.param` declaration of an entry point, as the PTX module writes it.
///
/// ```
/// use const_layout_builder::ParamDecl;
/// let d = ParamDecl::parse(".param .align 8 .b8 copy_f32_param_0[64]").unwrap();
/// assert_eq!(d.to_string(), ".param .align 8 .b8 [64]");
/// assert_eq!(ParamDecl::parse(".param .u64 .ptr .align 1 f_param_1").unwrap().to_string(), ".param .u64 .ptr .align 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDecl {
    /// The declaration without the parameter's name: `.param .u32`, `.param .align 8 .b8 [64]`.
    text: String,
    pub(crate) kind: DeclKind,
    /// The 1-based line of the declaration in the module (0 when parsed alone).
    pub(crate) line: usize,
}

/// What a declaration passes, as far as the checks care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DeclKind {
    /// A scalar of a PTX type (`u32`, `f32`, `b64`, ...), a pointer when `.ptr` qualifies it.
    Scalar { ty: String, ptr: bool },
    /// Bytes: an array parameter, `.param .align ALIGN .b8 name[SIZE]` (or of a wider type).
    Bytes { size: u64, align: u64 },
}

impl ParamDecl {
    /// Reads one declaration (a trailing comma is allowed). `None` if it is not a `.param`
    /// declaration this reader understands.
    ///
    /// ```
    /// use const_layout_builder::ParamDecl;
    /// assert!(ParamDecl::parse(".param .f32 k_param_3,").is_some());
    /// assert!(ParamDecl::parse(".reg .b32 %r<4>;").is_none());
    /// ```
    pub fn parse(decl: &str) -> Option<ParamDecl> {
        let decl = decl.trim().trim_end_matches(',').trim();
        let mut tokens = decl.split_whitespace().peekable();
        if tokens.next()? != ".param" {
            return None;
        }
        let (mut align, mut ty, mut ptr, mut array) = (None, None, false, None);
        let mut text = vec![".param".to_string()];
        while let Some(tok) = tokens.next() {
            match tok {
                ".align" => {
                    let n = tokens.next()?;
                    align = Some(n.parse::<u64>().ok()?);
                    text.push(format!(".align {n}"));
                }
                ".ptr" => {
                    ptr = true;
                    text.push(tok.to_string());
                }
                ".global" | ".shared" | ".const" | ".local" => text.push(tok.to_string()),
                t if t.starts_with('.') => {
                    ty = Some(t[1..].to_string());
                    text.push(tok.to_string());
                }
                name => {
                    // The parameter's name, possibly with the array extent glued on (`p[64]`).
                    let rest: String = std::iter::once(name).chain(tokens.by_ref()).collect();
                    if let Some(open) = rest.find('[') {
                        let close = rest[open..].find(']')? + open;
                        array = Some(rest[open + 1..close].trim().parse::<u64>().ok()?);
                        text.push(format!("[{}]", array?));
                    }
                    break;
                }
            }
        }
        let ty = ty?;
        let kind = match array {
            Some(n) => {
                let elem = scalar_bytes(&ty)?;
                DeclKind::Bytes { size: n * elem, align: align.unwrap_or(elem) }
            }
            None => DeclKind::Scalar { ty, ptr },
        };
        Some(ParamDecl { text: text.join(" "), kind, line: 0 })
    }

    /// The 1-based line of the declaration in its module (0 when it was parsed alone).
    ///
    /// ```
    /// use const_layout_builder::PtxModule;
    /// let m = PtxModule::parse(".visible .entry k(\n\t.param .u32 k_param_0\n)\n{\n\tret;\n}\n");
    /// assert_eq!(m.entries()[0].params[0].line(), 2);
    /// ```
    pub fn line(&self) -> usize {
        self.line
    }
}

impl fmt::Display for ParamDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The size in bytes of a PTX fundamental type (`u32`, `b8`, `f64`, ...).
fn scalar_bytes(ty: &str) -> Option<u64> {
    let bits: u64 = ty.get(1..)?.parse().ok()?;
    matches!(ty.as_bytes()[0], b'u' | b's' | b'b' | b'f').then_some(bits / 8).filter(|&b| b > 0)
}

/// A function of the module: an entry point (`.entry`) or a device function (`.func`).
///
/// ```
/// use const_layout_builder::PtxModule;
/// let m = PtxModule::parse(".visible .entry k()\n.maxntid 64, 1, 1\n{\n\tret;\n}\n");
/// let k = &m.entries()[0];
/// assert_eq!((k.name.as_str(), k.params.len(), k.instructions), ("k", 0, 1));
/// assert_eq!(k.max_threads, Some(64));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PtxFunction {
    /// Its name.
    pub name: String,
    /// An entry point (`.entry`), not a device function (`.func`).
    pub entry: bool,
    /// Its parameters, in order.
    pub params: Vec<ParamDecl>,
    /// Its instructions (statements of its body other than declarations and labels).
    pub instructions: usize,
    /// `.maxntid X, Y, Z` (the product), if declared.
    pub max_threads: Option<u32>,
    /// `.minnctapersm N`, if declared.
    pub min_blocks: Option<u32>,
    /// The 0-based index of the line that closes the parameter list.
    pub(crate) close: usize,
    /// The 0-based indices of the performance directives between the parameter list and the body.
    pub(crate) directives: Vec<usize>,
    /// The 0-based indices of the body's first (`{`) and last (`}`) lines.
    pub(crate) body: Option<(usize, usize)>,
}

/// A PTX module, read: its directives and functions.
///
/// ```
/// use const_layout_builder::PtxModule;
/// let ptx = ".version 8.3\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\t.param .f32 k_param_0\n)\n{\n\tret;\n}\n";
/// let m = PtxModule::parse(ptx);
/// assert_eq!((m.version.as_deref(), m.target.as_deref()), (Some("8.3"), Some("sm_90a")));
/// assert_eq!(m.entries()[0].params[0].to_string(), ".param .f32");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PtxModule {
    /// `.version`.
    pub version: Option<String>,
    /// `.target`.
    pub target: Option<String>,
    /// Its functions in the module's order, entry points and device functions.
    pub functions: Vec<PtxFunction>,
}

impl PtxModule {
    /// Reads a module. Anything it does not understand is skipped, never an error: the checks
    /// name what they miss.
    ///
    /// ```
    /// use const_layout_builder::PtxModule;
    /// assert!(PtxModule::parse("not ptx").functions.is_empty());
    /// ```
    pub fn parse(ptx: &str) -> PtxModule {
        let lines: Vec<&str> = ptx.lines().collect();
        let mut module = PtxModule { version: None, target: None, functions: Vec::new() };
        let mut i = 0;
        while i < lines.len() {
            let line = code(lines[i]).trim();
            if let Some(v) = line.strip_prefix(".version ") {
                module.version = Some(v.trim().to_string());
            } else if let Some(t) = line.strip_prefix(".target ") {
                module.target = Some(t.trim().to_string());
            }
            match header(line) {
                Some((name, entry, after)) => {
                    let (function, next) = read_function(&lines, i, name, entry, after);
                    if let Some(f) = function {
                        module.functions.push(f);
                    }
                    i = next;
                }
                None => i += 1,
            }
        }
        module
    }

    /// The entry points, in the module's order.
    ///
    /// ```
    /// use const_layout_builder::PtxModule;
    /// let m = PtxModule::parse(".func f()\n{\n\tret;\n}\n.visible .entry k()\n{\n\tret;\n}\n");
    /// assert_eq!(m.entries().len(), 1);
    /// ```
    pub fn entries(&self) -> Vec<&PtxFunction> {
        self.functions.iter().filter(|f| f.entry).collect()
    }

    /// The entry point named `name`.
    ///
    /// ```
    /// use const_layout_builder::PtxModule;
    /// let m = PtxModule::parse(".visible .entry k()\n{\n\tret;\n}\n");
    /// assert!(m.entry("k").is_some() && m.entry("j").is_none());
    /// ```
    pub fn entry(&self, name: &str) -> Option<&PtxFunction> {
        self.functions.iter().find(|f| f.entry && f.name == name)
    }
}

/// A line without its `//` comment.
pub(crate) fn code(line: &str) -> &str {
    match line.find("//") {
        Some(at) => &line[..at],
        None => line,
    }
}

/// A function header: `[.visible|.weak|.extern] .entry NAME(` or `... .func [(RET)] NAME(`:
/// the name, whether it is an entry point, and the text after the name.
fn header(line: &str) -> Option<(String, bool, &str)> {
    let mut rest = line;
    loop {
        let (tok, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        match tok {
            ".visible" | ".weak" | ".extern" | ".common" => rest = after.trim_start(),
            _ => break,
        }
    }
    let (entry, mut rest) = if let Some(r) = rest.strip_prefix(".entry") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix(".func") {
        (false, r)
    } else {
        return None;
    };
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    rest = rest.trim_start();
    if !entry && rest.starts_with('(') {
        // A device function's return value: `(.param .b32 func_retval0)`.
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let end = rest.find(|c: char| c == '(' || c == ';' || c.is_whitespace()).unwrap_or(rest.len());
    let name = &rest[..end];
    if name.is_empty() {
        return None;
    }
    Some((name.to_string(), entry, rest[end..].trim_start()))
}

/// Reads the function whose header is line `start`: its parameters, directives and body.
/// Returns it (`None` for a prototype without a body) and the index of the line after it.
fn read_function(
    lines: &[&str],
    start: usize,
    name: String,
    entry: bool,
    after: &str,
) -> (Option<PtxFunction>, usize) {
    let mut params = Vec::new();
    let mut close = start;
    // The parameter list, from the `(` after the name to its `)`.
    if let Some(open) = after.strip_prefix('(') {
        let mut segment = open;
        let mut j = start;
        loop {
            let (list, done) = match segment.find(')') {
                Some(at) => (&segment[..at], true),
                None => (segment, false),
            };
            for decl in list.split(',') {
                if let Some(mut d) = ParamDecl::parse(decl) {
                    d.line = j + 1;
                    params.push(d);
                }
            }
            if done {
                close = j;
                break;
            }
            j += 1;
            if j >= lines.len() {
                return (None, lines.len());
            }
            segment = code(lines[j]);
        }
    }
    if code(lines[close]).trim_end().ends_with(';') {
        return (None, close + 1); // a prototype
    }
    let mut function = PtxFunction {
        name,
        entry,
        params,
        instructions: 0,
        max_threads: None,
        min_blocks: None,
        close,
        directives: Vec::new(),
        body: None,
    };
    let mut k = close + 1;
    while k < lines.len() {
        let line = code(lines[k]).trim();
        if line.starts_with('{') {
            break;
        }
        if line.ends_with(';') {
            return (None, k + 1); // a prototype with directives
        }
        if let Some(dims) = line.strip_prefix(".maxntid") {
            function.max_threads = dims.split(',').map(|d| d.trim().parse::<u32>().ok()).product();
            function.directives.push(k);
        } else if let Some(n) = line.strip_prefix(".minnctapersm") {
            function.min_blocks = n.trim().parse().ok();
            function.directives.push(k);
        } else if line.starts_with('.') {
            function.directives.push(k);
        }
        k += 1;
    }
    if k >= lines.len() {
        return (Some(function), lines.len());
    }
    // The body: braces balance (inline assembly's blocks open and close on their lines).
    let mut depth = 0i64;
    let mut end = k;
    for (n, line) in lines.iter().enumerate().skip(k) {
        let c = code(line);
        depth += c.matches('{').count() as i64 - c.matches('}').count() as i64;
        function.instructions += count_instructions(c);
        end = n;
        if depth <= 0 {
            break;
        }
    }
    function.body = Some((k, end));
    (Some(function), end + 1)
}

/// The statements of a line of a body (comments removed) with their opcodes, without
/// declarations, directives, labels and braces.
pub(crate) fn statements(code: &str) -> impl Iterator<Item = &str> {
    code.split(';').filter_map(|s| {
        let s = s.trim().trim_start_matches(['{', '}']).trim_start().trim_end_matches('}').trim();
        let label = s.ends_with(':') && !s.contains(char::is_whitespace);
        (!s.is_empty() && !s.starts_with('.') && !label).then_some(s)
    })
}

fn count_instructions(code: &str) -> usize {
    statements(code).count()
}

/// The opcode of a statement, without its guard predicate (`@%p1`, `@!%p2`).
pub(crate) fn opcode(statement: &str) -> &str {
    let mut tokens = statement.split_whitespace();
    let first = tokens.next().unwrap_or("");
    if first.starts_with('@') { tokens.next().unwrap_or("") } else { first }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations() {
        let d = ParamDecl::parse("\t.param .align 8 .b8 copy_f32_param_0[64],").unwrap();
        assert_eq!(d.kind, DeclKind::Bytes { size: 64, align: 8 });
        let d = ParamDecl::parse(".param .align 4 .b8 k_param_1[64]").unwrap();
        assert_eq!(d.kind, DeclKind::Bytes { size: 64, align: 4 });
        let d = ParamDecl::parse(".param .u32 k_param_2[4]").unwrap();
        assert_eq!(d.kind, DeclKind::Bytes { size: 16, align: 4 });
        let d = ParamDecl::parse(".param .u64 .ptr .global .align 16 k_param_0").unwrap();
        assert_eq!(d.kind, DeclKind::Scalar { ty: "u64".into(), ptr: true });
        assert_eq!(d.to_string(), ".param .u64 .ptr .global .align 16");
        let d = ParamDecl::parse(".param .f64 k_param_0").unwrap();
        assert_eq!(d.kind, DeclKind::Scalar { ty: "f64".into(), ptr: false });
        assert_eq!(ParamDecl::parse(".param .b8 k_param_0[x]"), None);
        assert_eq!(ParamDecl::parse(".param"), None);
    }

    #[test]
    fn functions_and_bodies() {
        let ptx = "\
.version 8.3
.target sm_90a
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(
\t.param .b64 vprintf_param_0,
\t.param .b64 vprintf_param_1
)
;
.func  (.param .b32 func_retval0) helper(
\t.param .b32 helper_param_0
)
{
\tret;
}
.visible .entry k(
\t.param .u32 k_param_0,
\t.param .align 8 .b8 k_param_1[64]
)                                       // @k
.maxntid 128, 2, 1
.minnctapersm 3
{
\t.reg .b32 \t%r<4>;
$L__BB0_1:
\tld.param.b32 \t%r1, [k_param_0];
\t// begin inline asm
\t{ .reg .pred p; setp.eq.u32 p, %r1, 0; @p bra.uni done; }
\t// end inline asm
\tret;
}
.visible .entry z()
{
\tret;
}
";
        let m = PtxModule::parse(ptx);
        let names: Vec<_> = m.functions.iter().map(|f| (f.name.as_str(), f.entry)).collect();
        assert_eq!(names, [("helper", false), ("k", true), ("z", true)]);
        let k = m.entry("k").unwrap();
        assert_eq!(k.params.len(), 2);
        assert_eq!(k.params[1].line(), 17);
        assert_eq!((k.max_threads, k.min_blocks), (Some(256), Some(3)));
        // ld.param, setp, bra, ret (the declarations and the label are not instructions).
        assert_eq!(k.instructions, 4);
        assert_eq!(k.close, 17);
        assert_eq!(k.body, Some((20, 28)));
        assert_eq!(m.entry("z").unwrap().instructions, 1);
    }

    #[test]
    fn opcodes() {
        assert_eq!(opcode("@%p1 div.s32 %r1, %r2, %r3"), "div.s32");
        assert_eq!(opcode("@!%p1 bra $L__BB0_2"), "bra");
        assert_eq!(opcode("call.uni (retval0), f, (param0)"), "call.uni");
        let s: Vec<_> = statements("\t{ .reg .b16 l, h; mov.b32 {l, h}, %r1; }").collect();
        assert_eq!(s, ["mov.b32 {l, h}, %r1"]);
    }
}
