//! Diagnostics as data: every error and warning `idp` reports, with a stable code, a primary
//! span, an optional hint, and the rendering (ariadne on a terminal, IDP3-style plain lines
//! otherwise). Stages push into a [`Diagnostics`] sink; only the CLI renders.

use crate::source::{SourceMap, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// The codes of the warnings shown only with `--verbose`.
pub const VERBOSE_ONLY: &[&str] = &["autocomplete"];

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable, kebab-case code such as `syntax-error`, `unknown-symbol`, `type-mismatch`.
    pub code: &'static str,
    pub message: String,
    pub span: Option<Span>,
    /// What is wrong at the span (shown as the label); defaults to the message.
    pub label: Option<String>,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>, span: Option<Span>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: None,
            hint: None,
        }
    }
    pub fn warning(
        code: &'static str,
        message: impl Into<String>,
        span: Option<Span>,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            code,
            message: message.into(),
            span,
            label: None,
            hint: None,
        }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// Whether it is only shown when asked for (`--verbose`): IDP3's notes that every run of
    /// a file with a structure would print (`Verifying and/or autocompleting structure S`),
    /// which say nothing about a mistake and teach readers to skip warnings.
    pub fn is_verbose_only(&self) -> bool {
        VERBOSE_ONLY.contains(&self.code)
    }
}

/// A sink that stages push diagnostics into.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    pub fn error(&mut self, code: &'static str, message: impl Into<String>, span: Span) {
        self.push(Diagnostic::error(code, message, Some(span)));
    }
    pub fn warning(&mut self, code: &'static str, message: impl Into<String>, span: Span) {
        self.push(Diagnostic::warning(code, message, Some(span)));
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }
    /// All diagnostics in the order of their positions, so that a warning comes before the
    /// error it leads to (at one position, warnings first); unlocated ones last, in the order
    /// they were reported. Errors that make others ([`ROOT_CAUSES`]: a file that is not text,
    /// an include that cannot be read, a file in another language) come before everything
    /// else. Duplicates are removed
    /// (IDP3 prints an identical message only once).
    pub fn sorted(&self) -> Vec<Diagnostic> {
        let mut items = self.items.clone();
        items.sort_by_key(|d| {
            let pos = d
                .span
                .map(|s| (s.file, s.start))
                .unwrap_or((u32::MAX, u32::MAX));
            (!ROOT_CAUSES.contains(&d.code), pos, d.severity)
        });
        items.dedup_by(|a, b| a.message == b.message && a.span == b.span && a.code == b.code);
        mark_consequences(&mut items);
        items
    }
}

/// The codes of errors that an unread part of the input can cause: a name it would have
/// declared is missing.
const CONSEQUENCES: [&str; 5] = [
    "unknown-symbol",
    "unknown-sort",
    "unknown-vocabulary",
    "unknown-namespace",
    "unknown-fact",
];

/// Marks the errors that may follow from the first root cause in `items` (sorted, root causes
/// first): a missing name after an include that could not be read (anywhere) or after a byte
/// that is not text (in the same file, from the name it cuts on) gets a hint saying so, in place of one that
/// would guess at another name.
fn mark_consequences(items: &mut [Diagnostic]) {
    let Some(root) = items
        .first()
        .filter(|d| ROOT_CAUSES.contains(&d.code))
        .cloned()
    else {
        return;
    };
    let what = match root.code {
        "include-not-found" => "the included file that could not be read",
        "invalid-utf8" => "the line with the byte that is not UTF-8",
        _ => return,
    };
    for d in items.iter_mut().skip(1) {
        let after = match (root.span, d.span) {
            _ if root.code == "include-not-found" => true,
            (Some(r), Some(s)) => s.file == r.file && s.end >= r.start,
            _ => false,
        };
        if after && d.is_error() && CONSEQUENCES.contains(&d.code) {
            d.hint = Some(format!(
                "this may follow from the first error: the name may be declared in {what}; fix that error first"
            ));
        }
    }
}

/// The codes of errors that cause others (what an unreadable file declares is missing
/// further on), shown first by [`Diagnostics::sorted`].
pub const ROOT_CAUSES: [&str; 3] = ["invalid-utf8", "include-not-found", "idp-z3-file"];

/// How diagnostics are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderStyle {
    /// IDP3's one-line form: `Error: <message> At <file>:<line>:<col>` plus a hint line.
    Plain,
    /// ariadne reports with source excerpts and colour.
    Fancy,
}

/// Renders one diagnostic to a string (ends with a newline).
pub fn render(d: &Diagnostic, sources: &SourceMap, style: RenderStyle) -> String {
    match (style, d.span) {
        (RenderStyle::Fancy, Some(span)) if sources.text(span.file).is_some() => {
            render_fancy(d, span, sources)
        }
        _ => render_plain(d, sources),
    }
}

fn severity_word(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
    }
}

/// `Error: message At file:line:col` then `  [code] hint: ...`.
pub fn render_plain(d: &Diagnostic, sources: &SourceMap) -> String {
    let mut out = format!("{}: {}", severity_word(d), d.message);
    if let Some(span) = d.span {
        let (line, col) = sources.line_col(span.file, span.start);
        out.push_str(&format!(" At {}:{}:{}", sources.name(span.file), line, col));
    }
    out.push_str(&format!(" [{}]\n", d.code));
    if let Some(hint) = &d.hint {
        // Further lines of a hint line up under its first.
        out.push_str(&format!("  hint: {}\n", hint.replace('\n', "\n        ")));
    }
    out
}

fn render_fancy(d: &Diagnostic, span: Span, sources: &SourceMap) -> String {
    use ariadne::{Color, Config, Label, Report, ReportKind, Source};
    let name = sources.name(span.file).to_string();
    let text = sources.text(span.file).unwrap_or("");
    let (start, end) = char_range(text, span);
    let (kind, colour) = match d.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
    };
    let label = d.label.clone().unwrap_or_else(|| d.message.clone());
    let mut report = Report::build(kind, name.clone(), start)
        .with_code(d.code)
        .with_message(&d.message)
        .with_config(Config::default().with_color(true))
        .with_label(
            Label::new((name.clone(), start..end))
                .with_message(label)
                .with_color(colour),
        );
    if let Some(hint) = &d.hint {
        report = report.with_help(hint);
    }
    let mut buf = Vec::new();
    let written = report.finish().write((name, Source::from(text)), &mut buf);
    match written {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(_) => render_plain(d, sources),
    }
}

/// ariadne counts characters, spans count bytes.
fn char_range(text: &str, span: Span) -> (usize, usize) {
    let clamp = |b: u32| (b as usize).min(text.len());
    let to_char = |b: usize| text.get(..b).map(|s| s.chars().count()).unwrap_or(0);
    let start = to_char(clamp(span.start));
    let end = to_char(clamp(span.end)).max(start + 1);
    (start, end)
}
