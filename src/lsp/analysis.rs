//! One document read as `idp --check` reads it: loaded (its includes from disk), resolved with
//! the index of names, and its procedures compiled; the diagnostics are `--check`'s, with
//! the same codes, messages and hints. Everything the server answers about a document comes
//! from its latest analysis (and, for what a syntax error hides, from its last analysis that
//! had one).

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::sema::index::Index;
use crate::sema::Program;
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast;

/// What the server knows of one document's text.
pub struct Analysis {
    /// The document's file in [`Analysis::sources`].
    pub file: FileId,
    pub sources: SourceMap,
    pub ast: ast::File,
    pub program: Program,
    pub index: Index,
    /// Sorted as `--check` prints them.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether the document was read as IDP-Z3's FO(·).
    pub fodot: bool,
    /// The document's line starts, to turn its spans into the editor's positions.
    pub line_index: super::text::LineIndex,
}

impl Analysis {
    /// Reads `text` as the file `name` (a path: includes are found relative to it). Runs on the
    /// caller's thread, whose stack must be large (the server's is).
    pub fn of(name: &str, text: &str) -> Analysis {
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        let std_lib = |lib: &str| crate::stdlib::source_in(None, lib);
        let loaded = crate::syntax::load_with(
            vec![(name.to_string(), text.as_bytes().to_vec())],
            &std_lib,
            false,
            None,
            crate::syntax::Stack::Callers,
            &mut sources,
            &mut diags,
        );
        let (program, index) =
            crate::sema::resolve_indexed(&loaded.file, Some(&sources), &mut diags);
        for d in crate::lua::procedure_syntax_diagnostics(&program, &sources) {
            diags.push(d);
        }
        let file = (0..sources.len() as FileId)
            .find(|&f| sources.name(f) == name)
            .unwrap_or(0);
        Analysis {
            file,
            line_index: super::text::LineIndex::new(text),
            sources,
            ast: loaded.file,
            program,
            index,
            diagnostics: diags.sorted(),
            fodot: loaded.fodot,
        }
    }

    /// The text of the document.
    pub fn text(&self) -> &str {
        self.sources.text(self.file).unwrap_or("")
    }

    /// The text a span covers.
    pub fn span_text(&self, span: Span) -> &str {
        self.sources
            .text(span.file)
            .and_then(|t| t.get(span.start as usize..span.end as usize))
            .unwrap_or("")
    }

    /// Whether the document declares a vocabulary (what completion and hover need most).
    pub fn has_vocabulary(&self) -> bool {
        self.program
            .vocabularies
            .iter()
            .any(|v| v.span.is_some_and(|s| s.file == self.file))
    }
}
