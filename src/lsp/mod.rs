//! `idp lsp`: a Language Server Protocol server over stdio for both dialects (IDP3 and
//! IDP-Z3's FO(·)), on `lsp-server` and `lsp-types` (the crates rust-analyzer uses).
//!
//! One thread reads the editor's messages in order. A change marks its document; when no
//! message is waiting, each marked document is analysed again (`analysis`: what `idp --check`
//! reads and reports, plus the resolver's index of names) and its diagnostics published.
//! Requests are answered from the latest analysis: hover, definition, references and rename
//! (`navigate`), completion (`complete`), outline, folding, semantic tokens and inlay hints
//! (`outline`), formatting (`crate::syntax::format`), quick fixes (`fixes`) and the code
//! lenses that run a theory (`lenses`, in a child `idp` process that the editor can cancel).

mod analysis;
mod complete;
mod fixes;
mod lenses;
mod navigate;
mod outline;
mod text;

use std::collections::HashMap;
use std::rc::Rc;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    notification, request, CodeActionProviderCapability, CompletionOptions, Diagnostic,
    DiagnosticSeverity, FoldingRangeProviderCapability, HoverProviderCapability, Location,
    NumberOrString, OneOf, Position, PublishDiagnosticsParams, Range, RenameOptions,
    SemanticTokensFullOptions, SemanticTokensLegend, SemanticTokensOptions,
    SemanticTokensServerCapabilities, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextEdit, Url, WorkspaceEdit,
};
use serde_json::Value;

use crate::diagnostics::Severity;
use crate::source::Span;

use analysis::Analysis;
use outline::Lines;
use text::LineIndex;

/// Runs `idp lsp ARGS` on stdin and stdout; the process's exit code.
pub fn run(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!(
            "idp lsp: a language server for .idp files (IDP3 and IDP-Z3's FO(·)) over stdio.\n\n\
             Usage: idp lsp [--stdio]\n\n\
             An editor starts it and talks the Language Server Protocol on its stdin and stdout:\n\
             diagnostics as you type, hover, go to definition, references, rename, completion,\n\
             outline, folding, semantic tokens, inlay hints, formatting, quick fixes, and code\n\
             lenses that run, count and explain a theory. See the README for editor set-ups."
        );
        return 0;
    }
    // Some clients add `--stdio` (the only transport there is).
    if let Some(other) = args.iter().find(|a| *a != "--stdio") {
        eprintln!("Error: idp lsp takes no arguments (got `{other}`); try idp lsp --help");
        return 1;
    }
    let idp = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("Error: idp lsp cannot find its own program (to run lenses): {e}");
            return 1;
        }
    };
    let (connection, threads) = Connection::stdio();
    let outcome = serve(&connection, &idp);
    drop(connection);
    let joined = threads.join();
    match (outcome, joined) {
        (Ok(()), Ok(())) => 0,
        (Err(e), _) => {
            eprintln!("Error: idp lsp: {e}");
            1
        }
        (_, Err(e)) => {
            eprintln!("Error: idp lsp: {e}");
            1
        }
    }
}

/// What the server announces it can do.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), "(".into()]),
            ..Default::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: SemanticTokensLegend {
                    token_types: outline::TOKEN_TYPES.to_vec(),
                    token_modifiers: outline::TOKEN_MODIFIERS.to_vec(),
                },
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            },
        )),
        inlay_hint_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        code_lens_provider: Some(lsp_types::CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: lenses::COMMANDS.iter().map(|c| c.to_string()).collect(),
            work_done_progress_options: Default::default(),
        }),
        ..Default::default()
    }
}

/// Serves one editor on `connection` until it says `exit` (after `shutdown`) or goes away;
/// code lenses run the program `idp`. Runs on the caller's thread, which needs a large stack
/// (the parser's: `idp lsp` runs on the command line's 512 MiB thread).
pub fn serve(connection: &Connection, idp: &std::path::Path) -> Result<(), String> {
    let (id, _params) = connection
        .initialize_start()
        .map_err(|e| format!("the editor did not initialise the session: {e}"))?;
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo {
            name: "idp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("the editor did not initialise the session: {e}"))?;
    let mut server = Server::new(connection, idp.to_path_buf());
    server.main_loop()
}

/// One open document.
struct Document {
    text: String,
    /// The latest analysis, when the text has not changed since.
    analysis: Option<Rc<Analysis>>,
    /// The latest analysis without errors of syntax (what completion falls back on).
    good: Option<Rc<Analysis>>,
    /// The other files (includes) that diagnostics were published for.
    published_elsewhere: Vec<Url>,
}

struct Server<'c> {
    connection: &'c Connection,
    documents: HashMap<Url, Document>,
    /// IDP3's Lua built-ins, for completion in procedures.
    lua_api: Vec<String>,
    lenses: lenses::Runs,
    next_request: i32,
    /// The program that lenses run.
    idp: std::path::PathBuf,
}

impl<'c> Server<'c> {
    fn new(connection: &'c Connection, idp: std::path::PathBuf) -> Server<'c> {
        Server {
            connection,
            documents: HashMap::new(),
            lua_api: lua_api(),
            lenses: lenses::Runs::default(),
            next_request: 0,
            idp,
        }
    }

    fn main_loop(&mut self) -> Result<(), String> {
        loop {
            let message = match self.lenses.wait(&self.connection.receiver) {
                lenses::Wake::Message(m) => m,
                lenses::Wake::Finished(done) => {
                    self.finished_run(*done);
                    continue;
                }
                lenses::Wake::Progress(token, text) => {
                    self.notify::<notification::Progress>(lenses::progress_report(&token, &text));
                    continue;
                }
                lenses::Wake::Closed => return Ok(()),
            };
            match message {
                Message::Request(req) => {
                    if self
                        .connection
                        .handle_shutdown(&req)
                        .map_err(|e| e.to_string())?
                    {
                        self.lenses.cancel_all();
                        return Ok(());
                    }
                    let id = req.id.clone();
                    let response = match self.request(req) {
                        Ok(Some(value)) => Response::new_ok(id, value),
                        Ok(None) => Response::new_ok(id, Value::Null),
                        Err(Refusal(code, message)) => Response::new_err(id, code as i32, message),
                    };
                    if !self.lenses.is_running(&response.id) {
                        self.send(Message::Response(response));
                    }
                }
                Message::Notification(n) => {
                    if n.method == notification::Exit::METHOD {
                        return Ok(());
                    }
                    self.notification(n);
                }
                Message::Response(_) => {}
            }
            if self.connection.receiver.is_empty() {
                self.publish_changed();
            }
        }
    }

    fn send(&self, message: Message) {
        let _ = self.connection.sender.send(message);
    }

    fn notify<N: notification::Notification>(&self, params: N::Params) {
        self.send(Message::Notification(Notification::new(
            N::METHOD.to_string(),
            params,
        )));
    }

    /// A request to the editor (its answer is not awaited).
    fn ask<R: request::Request>(&mut self, params: R::Params) {
        self.next_request += 1;
        let id = RequestId::from(format!("idp-{}", self.next_request));
        self.send(Message::Request(Request::new(
            id,
            R::METHOD.to_string(),
            params,
        )));
    }

    // -- documents --------------------------------------------------------------------------

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            notification::DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                {
                    self.documents.insert(
                        p.text_document.uri,
                        Document {
                            text: p.text_document.text,
                            analysis: None,
                            good: None,
                            published_elsewhere: Vec::new(),
                        },
                    );
                }
            }
            notification::DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                {
                    if let Some(doc) = self.documents.get_mut(&p.text_document.uri) {
                        text::apply_changes(&mut doc.text, p.content_changes);
                        doc.analysis = None;
                    }
                }
            }
            notification::DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                {
                    if let Some(doc) = self.documents.remove(&p.text_document.uri) {
                        for uri in doc
                            .published_elsewhere
                            .into_iter()
                            .chain([p.text_document.uri])
                        {
                            self.publish(uri, Vec::new());
                        }
                    }
                }
            }
            notification::Cancel::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(n.params) {
                    let id = match p.id {
                        NumberOrString::Number(k) => RequestId::from(k),
                        NumberOrString::String(s) => RequestId::from(s),
                    };
                    self.lenses.cancel(&id);
                }
            }
            _ => {}
        }
    }

    /// The analysis of a document, made if its text changed.
    fn analysis(&mut self, uri: &Url) -> Option<Rc<Analysis>> {
        let name = document_name(uri);
        let doc = self.documents.get_mut(uri)?;
        if doc.analysis.is_none() {
            let a = Rc::new(Analysis::of(&name, &doc.text));
            if !a.diagnostics.iter().any(|d| d.code == "syntax-error") && a.has_vocabulary() {
                doc.good = Some(a.clone());
            }
            doc.analysis = Some(a);
        }
        doc.analysis.clone()
    }

    /// Analyses each changed document and publishes its diagnostics.
    fn publish_changed(&mut self) {
        let changed: Vec<Url> = self
            .documents
            .iter()
            .filter(|(_, d)| d.analysis.is_none())
            .map(|(u, _)| u.clone())
            .collect();
        for uri in changed {
            let Some(a) = self.analysis(&uri) else {
                continue;
            };
            let mut by_file: HashMap<Url, Vec<Diagnostic>> = HashMap::new();
            by_file.insert(uri.clone(), Vec::new());
            for d in a.diagnostics.iter().filter(|d| !d.is_verbose_only()) {
                let (target, range) = match d.span {
                    Some(span) if span.file != a.file => match file_url(&a, span.file) {
                        Some(other) => (other, other_range(&a, span)),
                        None => (uri.clone(), Range::default()),
                    },
                    Some(span) => (uri.clone(), Lines::of(&a).range(span).unwrap_or_default()),
                    None => (uri.clone(), Range::default()),
                };
                by_file.entry(target).or_default().push(to_lsp(d, range));
            }
            let lines = Lines::of(&a);
            for (span, message) in fixes::slips(&a) {
                if let Some(range) = lines.range(span) {
                    by_file.entry(uri.clone()).or_default().push(Diagnostic {
                        range,
                        severity: Some(DiagnosticSeverity::INFORMATION),
                        code: Some(NumberOrString::String("exists-implies".into())),
                        source: Some("idp".into()),
                        message,
                        ..Default::default()
                    });
                }
            }
            let before = self
                .documents
                .get_mut(&uri)
                .map(|d| std::mem::take(&mut d.published_elsewhere))
                .unwrap_or_default();
            let elsewhere: Vec<Url> = by_file.keys().filter(|u| **u != uri).cloned().collect();
            for stale in before.into_iter().filter(|u| !by_file.contains_key(u)) {
                self.publish(stale, Vec::new());
            }
            if let Some(d) = self.documents.get_mut(&uri) {
                d.published_elsewhere = elsewhere;
            }
            for (target, diagnostics) in by_file {
                self.publish(target, diagnostics);
            }
        }
    }

    fn publish(&self, uri: Url, diagnostics: Vec<Diagnostic>) {
        self.notify::<notification::PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        });
    }

    // -- requests ---------------------------------------------------------------------------

    fn request(&mut self, req: Request) -> Result<Option<Value>, Refusal> {
        let method = req.method.clone();
        let params = req.params.clone();
        macro_rules! answer {
            ($kind:ty, $handler:ident) => {{
                let p: <$kind as lsp_types::request::Request>::Params =
                    serde_json::from_value(params)
                        .map_err(|e| Refusal(ErrorCode::InvalidParams, format!("{method}: {e}")))?;
                let result = self.$handler(p)?;
                Ok(Some(serde_json::to_value(result).unwrap_or(Value::Null)))
            }};
        }
        match method.as_str() {
            request::HoverRequest::METHOD => answer!(request::HoverRequest, hover),
            request::GotoDefinition::METHOD => answer!(request::GotoDefinition, definition),
            request::References::METHOD => answer!(request::References, references),
            request::PrepareRenameRequest::METHOD => {
                answer!(request::PrepareRenameRequest, prepare_rename)
            }
            request::Rename::METHOD => answer!(request::Rename, rename),
            request::Completion::METHOD => answer!(request::Completion, completion),
            request::DocumentSymbolRequest::METHOD => {
                answer!(request::DocumentSymbolRequest, document_symbols)
            }
            request::FoldingRangeRequest::METHOD => answer!(request::FoldingRangeRequest, folding),
            request::SemanticTokensFullRequest::METHOD => {
                answer!(request::SemanticTokensFullRequest, semantic_tokens)
            }
            request::InlayHintRequest::METHOD => answer!(request::InlayHintRequest, inlay_hints),
            request::Formatting::METHOD => answer!(request::Formatting, formatting),
            request::CodeActionRequest::METHOD => answer!(request::CodeActionRequest, code_actions),
            request::CodeLensRequest::METHOD => answer!(request::CodeLensRequest, code_lenses),
            request::ExecuteCommand::METHOD => {
                let p: lsp_types::ExecuteCommandParams = serde_json::from_value(params)
                    .map_err(|e| Refusal(ErrorCode::InvalidParams, format!("{method}: {e}")))?;
                self.execute(req.id, p)
            }
            _ => Err(Refusal(
                ErrorCode::MethodNotFound,
                format!("idp lsp does not answer {method}"),
            )),
        }
    }

    /// The document's analysis and the byte offset of `position` in it.
    fn at(&mut self, uri: &Url, position: Position) -> Result<(Rc<Analysis>, usize), Refusal> {
        let a = self.open(uri)?;
        let offset = a.line_index.offset(a.text(), position);
        Ok((a, offset))
    }

    fn open(&mut self, uri: &Url) -> Result<Rc<Analysis>, Refusal> {
        self.analysis(uri).ok_or_else(|| {
            Refusal(
                ErrorCode::InvalidParams,
                format!("{uri} is not open (send textDocument/didOpen first)"),
            )
        })
    }

    fn hover(&mut self, p: lsp_types::HoverParams) -> Result<Option<lsp_types::Hover>, Refusal> {
        let pos = p.text_document_position_params;
        let (a, offset) = self.at(&pos.text_document.uri, pos.position)?;
        if let Some(hover) = self.lenses.hover(&pos.text_document.uri, pos.position, &a) {
            return Ok(Some(hover));
        }
        let Some(o) = navigate::occurrence_at(&a, offset) else {
            return Ok(None);
        };
        Ok(Some(lsp_types::Hover {
            contents: lsp_types::HoverContents::Markup(lsp_types::MarkupContent {
                kind: lsp_types::MarkupKind::Markdown,
                value: navigate::hover_text(&a, o.target),
            }),
            range: Lines::of(&a).range(o.span),
        }))
    }

    fn definition(
        &mut self,
        p: lsp_types::GotoDefinitionParams,
    ) -> Result<Option<lsp_types::GotoDefinitionResponse>, Refusal> {
        let pos = p.text_document_position_params;
        let uri = pos.text_document.uri;
        let (a, offset) = self.at(&uri, pos.position)?;
        let Some(o) = navigate::occurrence_at(&a, offset) else {
            return Ok(None);
        };
        Ok(navigate::declaration(&a, o.target)
            .and_then(|span| location(&a, &uri, span))
            .map(lsp_types::GotoDefinitionResponse::Scalar))
    }

    fn references(
        &mut self,
        p: lsp_types::ReferenceParams,
    ) -> Result<Option<Vec<Location>>, Refusal> {
        let uri = p.text_document_position.text_document.uri;
        let (a, offset) = self.at(&uri, p.text_document_position.position)?;
        let Some(o) = navigate::occurrence_at(&a, offset) else {
            return Ok(None);
        };
        let with_declaration = p.context.include_declaration;
        Ok(Some(
            navigate::references(&a, o.target)
                .into_iter()
                .filter(|r| with_declaration || !r.declaration)
                .filter_map(|r| location(&a, &uri, r.span))
                .collect(),
        ))
    }

    fn prepare_rename(
        &mut self,
        p: lsp_types::TextDocumentPositionParams,
    ) -> Result<Option<lsp_types::PrepareRenameResponse>, Refusal> {
        let (a, offset) = self.at(&p.text_document.uri, p.position)?;
        let Some(o) = navigate::occurrence_at(&a, offset) else {
            return Err(Refusal(
                ErrorCode::InvalidRequest,
                "there is no name to rename here".into(),
            ));
        };
        if matches!(o.target, crate::sema::index::Target::Sort(s) if a.program.sort(s).builtin.is_some())
        {
            return Err(Refusal(
                ErrorCode::InvalidRequest,
                "a built-in type cannot be renamed".into(),
            ));
        }
        Ok(Lines::of(&a)
            .range(o.span)
            .map(lsp_types::PrepareRenameResponse::Range))
    }

    fn rename(&mut self, p: lsp_types::RenameParams) -> Result<Option<WorkspaceEdit>, Refusal> {
        let uri = p.text_document_position.text_document.uri;
        let (a, offset) = self.at(&uri, p.text_document_position.position)?;
        let Some(o) = navigate::occurrence_at(&a, offset) else {
            return Ok(None);
        };
        if let Some(why) = navigate::rename_refusal(&a, o.target, &p.new_name) {
            return Err(Refusal(ErrorCode::InvalidRequest, why));
        }
        let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
        for r in navigate::references(&a, o.target) {
            if let Some(at) = location(&a, &uri, r.span) {
                changes.entry(at.uri).or_default().push(TextEdit {
                    range: at.range,
                    new_text: p.new_name.clone(),
                });
            }
        }
        Ok(Some(WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        }))
    }

    fn completion(
        &mut self,
        p: lsp_types::CompletionParams,
    ) -> Result<Option<lsp_types::CompletionResponse>, Refusal> {
        let uri = p.text_document_position.text_document.uri;
        let (a, offset) = self.at(&uri, p.text_document_position.position)?;
        let good = self.documents.get(&uri).and_then(|d| d.good.clone());
        let items = complete::completions(&a, good.as_deref(), offset, &self.lua_api);
        Ok(Some(lsp_types::CompletionResponse::Array(items)))
    }

    fn document_symbols(
        &mut self,
        p: lsp_types::DocumentSymbolParams,
    ) -> Result<Option<lsp_types::DocumentSymbolResponse>, Refusal> {
        let a = self.open(&p.text_document.uri)?;
        Ok(Some(lsp_types::DocumentSymbolResponse::Nested(
            outline::document_symbols(&a),
        )))
    }

    fn folding(
        &mut self,
        p: lsp_types::FoldingRangeParams,
    ) -> Result<Option<Vec<lsp_types::FoldingRange>>, Refusal> {
        let a = self.open(&p.text_document.uri)?;
        Ok(Some(outline::folding_ranges(&a)))
    }

    fn semantic_tokens(
        &mut self,
        p: lsp_types::SemanticTokensParams,
    ) -> Result<Option<lsp_types::SemanticTokensResult>, Refusal> {
        let a = self.open(&p.text_document.uri)?;
        Ok(Some(lsp_types::SemanticTokensResult::Tokens(
            lsp_types::SemanticTokens {
                result_id: None,
                data: outline::semantic_tokens(&a),
            },
        )))
    }

    fn inlay_hints(
        &mut self,
        p: lsp_types::InlayHintParams,
    ) -> Result<Option<Vec<lsp_types::InlayHint>>, Refusal> {
        let a = self.open(&p.text_document.uri)?;
        Ok(Some(outline::inlay_hints(&a, p.range)))
    }

    fn formatting(
        &mut self,
        p: lsp_types::DocumentFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>, Refusal> {
        let uri = p.text_document.uri;
        let a = self.open(&uri)?;
        let text = a.text();
        let formatted =
            crate::print::formatted(&document_name(&uri), text, crate::syntax::Stack::Callers)
                .map_err(|e| Refusal(ErrorCode::RequestFailed, e))?;
        if formatted == text {
            return Ok(Some(Vec::new()));
        }
        Ok(Some(vec![TextEdit {
            range: a.line_index.range(text, 0, text.len()),
            new_text: formatted,
        }]))
    }

    fn code_actions(
        &mut self,
        p: lsp_types::CodeActionParams,
    ) -> Result<Option<lsp_types::CodeActionResponse>, Refusal> {
        let uri = p.text_document.uri.clone();
        let a = self.open(&uri)?;
        Ok(Some(fixes::code_actions(&a, &uri, &p)))
    }

    fn code_lenses(
        &mut self,
        p: lsp_types::CodeLensParams,
    ) -> Result<Option<Vec<lsp_types::CodeLens>>, Refusal> {
        let uri = p.text_document.uri;
        let a = self.open(&uri)?;
        Ok(Some(self.lenses.lenses(&a, &uri)))
    }

    /// Starts a lens's run; its answer is sent when the run ends (or is cancelled).
    fn execute(
        &mut self,
        id: RequestId,
        p: lsp_types::ExecuteCommandParams,
    ) -> Result<Option<Value>, Refusal> {
        let run = lenses::Command::parse(&p).map_err(|e| Refusal(ErrorCode::InvalidParams, e))?;
        let text = self
            .documents
            .get(&run.uri)
            .map(|d| d.text.clone())
            .ok_or_else(|| Refusal(ErrorCode::InvalidParams, format!("{} is not open", run.uri)))?;
        let token = NumberOrString::String(format!("idp-run-{}", self.next_request + 1));
        self.ask::<request::WorkDoneProgressCreate>(lsp_types::WorkDoneProgressCreateParams {
            token: token.clone(),
        });
        self.notify::<notification::Progress>(lenses::progress_begin(&token, &run));
        self.lenses
            .start(&self.idp, id, run, text, token)
            .map_err(|e| Refusal(ErrorCode::InternalError, e))?;
        Ok(None)
    }

    /// A run ended: its answer to the editor, its diagnostics, the lenses' new titles.
    fn finished_run(&mut self, done: lenses::Finished) {
        self.notify::<notification::Progress>(lenses::progress_end(&done));
        let uri = done.uri.clone();
        if let Some(a) = self.analysis(&uri) {
            let why = lenses::core_diagnostics(&a, &done);
            if !why.is_empty() {
                let mut all: Vec<Diagnostic> = a
                    .diagnostics
                    .iter()
                    .filter(|d| !d.is_verbose_only() && d.span.is_none_or(|s| s.file == a.file))
                    .map(|d| {
                        let range = d.span.and_then(|s| Lines::of(&a).range(s));
                        to_lsp(d, range.unwrap_or_default())
                    })
                    .collect();
                all.extend(why);
                self.publish(uri, all);
            }
        }
        let response = self.lenses.finish(done);
        self.ask::<request::CodeLensRefresh>(());
        self.send(Message::Response(response));
    }
}

/// A request that cannot be answered, and why.
struct Refusal(ErrorCode, String);

/// The name a document is read under: its path (includes are found relative to it).
fn document_name(uri: &Url) -> String {
    uri.to_file_path()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| uri.to_string())
}

/// The address of another loaded file (an include).
fn file_url(a: &Analysis, file: u32) -> Option<Url> {
    let name = a.sources.name(file);
    let path = std::path::Path::new(name);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    Url::from_file_path(absolute).ok()
}

/// The range of a span of another loaded file.
fn other_range(a: &Analysis, span: Span) -> Range {
    let text = a.sources.text(span.file).unwrap_or("");
    LineIndex::new(text).range(text, span.start as usize, span.end as usize)
}

/// Where a span is, in the document `uri` or in a file it includes.
fn location(a: &Analysis, uri: &Url, span: Span) -> Option<Location> {
    if span.file == a.file {
        return Some(Location::new(uri.clone(), Lines::of(a).range(span)?));
    }
    Some(Location::new(file_url(a, span.file)?, other_range(a, span)))
}

/// A diagnostic as the protocol has it: the message, then the hint on a line of its own.
fn to_lsp(d: &crate::diagnostics::Diagnostic, range: Range) -> Diagnostic {
    let mut message = d.message.clone();
    if let Some(hint) = &d.hint {
        message.push_str("\nhint: ");
        message.push_str(hint);
    }
    Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("idp".into()),
        message,
        ..Default::default()
    }
}

/// The global functions and tables of IDP3's Lua environment (what a procedure can call).
fn lua_api() -> Vec<String> {
    let mut diags = crate::diagnostics::Diagnostics::default();
    let program = crate::sema::resolve(&crate::syntax::ast::File::default(), &mut diags);
    let Ok(runtime) = crate::lua::Runtime::new(program, false) else {
        return Vec::new();
    };
    let mut names: Vec<String> = runtime
        .lua()
        .globals()
        .pairs::<String, mlua::Value>()
        .filter_map(Result::ok)
        .filter(|(name, value)| {
            !name.starts_with('_')
                && matches!(
                    value,
                    mlua::Value::Function(_) | mlua::Value::Table(_) | mlua::Value::UserData(_)
                )
        })
        .map(|(name, _)| name)
        .collect();
    names.sort();
    names
}
