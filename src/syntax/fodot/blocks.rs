//! FO(·) blocks lowered to IDP3 AST items: vocabularies, theories with their definitions,
//! structures (a function's `else` value spread over the arguments not listed), `display`
//! (the consultant's settings) and `main` (handed to [`super::script`]).

use indexmap::IndexMap;
use pest::iterators::Pair;

use super::expr::{lift_ite, pointer, symbol_ref, Spanned};
use super::is_bool;
use super::{idp3_sort, Read, Reader, Rule};
use crate::source::Span;
use crate::syntax::ast;
use crate::syntax::ast::{
    BinConn, Constructor, Decl, Definition, Element, ElementKind, Formula, FormulaKind, FuncDecl,
    Ident, InterValue, Interpretation, Item, PredDecl, RuleHead, TableEntry, TheoryComponent,
    Truth, TypeBody, TypeDecl, VarDecl,
};

impl Reader {
    /// The names the blocks declare: types (with their listings, from the vocabulary or a
    /// structure), predicates, functions, `var` declarations and theories' vocabularies.
    pub(super) fn collect_names(&mut self, blocks: &[Pair<Rule>]) {
        for block in blocks {
            match block.as_rule() {
                Rule::vocabulary => self.collect_vocabulary(block.clone()),
                Rule::theory => {
                    let names: Vec<String> = block
                        .clone()
                        .into_inner()
                        .filter(|p| p.as_rule() == Rule::ident)
                        .map(|p| p.as_str().to_string())
                        .collect();
                    if let [t, v] = names.as_slice() {
                        self.names.theories.insert(t.clone(), v.clone());
                    }
                }
                _ => {}
            }
        }
        // The listings structures give to types the vocabulary leaves open.
        let mut listings: IndexMap<String, Vec<Pair<Rule>>> = IndexMap::new();
        for block in blocks.iter().filter(|b| b.as_rule() == Rule::structure) {
            for interp in block
                .clone()
                .into_inner()
                .filter(|p| p.as_rule() == Rule::interpretation)
            {
                let mut it = interp.into_inner();
                let name = it.next().expect("a name").as_str().to_string();
                if matches!(self.names.types.get(&name), Some(None)) {
                    let value = it.nth(1).expect("a value");
                    listings.entry(name).or_default().push(value);
                }
            }
        }
        for (name, values) in listings {
            if values.iter().any(|v| v.as_str().contains('#')) {
                self.names.date_types.push(name.clone());
            }
            // Structures that list a type differently each keep their own listing.
            if values.iter().any(|v| v.as_str() != values[0].as_str()) {
                continue;
            }
            let elements = self.type_elements(values[0].clone());
            self.names.types.insert(name.clone(), Some(elements));
            self.names.moved_types.insert(name, ());
        }
    }

    fn collect_vocabulary(&mut self, block: Pair<Rule>) {
        let voc = block
            .clone()
            .into_inner()
            .find(|p| p.as_rule() == Rule::ident)
            .map_or("V".to_string(), |p| p.as_str().to_string());
        if self.names.first_vocabulary.is_none() {
            self.names.first_vocabulary = Some(voc.clone());
        }
        let (mut imports, mut uses_bool) = (Vec::new(), false);
        for decl in block.into_inner() {
            match decl.as_rule() {
                Rule::import => imports.extend(
                    decl.into_inner()
                        .filter(|p| p.as_rule() == Rule::ident)
                        .map(|p| p.as_str().to_string()),
                ),
                Rule::type_decl => {
                    let mut it = decl.into_inner().skip(1);
                    let name = it.next().expect("a name").as_str().to_string();
                    let listing = it
                        .next()
                        .filter(|p| matches!(p.as_rule(), Rule::enumeration | Rule::constructed));
                    if listing.as_ref().is_some_and(|l| l.as_str().contains('#')) {
                        self.names.date_types.push(name.clone());
                    }
                    let elements = listing.clone().map(|p| self.type_elements(p));
                    self.names.types.insert(name.clone(), elements);
                    if let Some(l) = listing.filter(|l| l.as_str().starts_with("constructed")) {
                        self.collect_constructors(&voc, &name, l);
                    }
                }
                Rule::var_decl => {
                    let mut it = decl
                        .into_inner()
                        .filter(|p| matches!(p.as_rule(), Rule::ident | Rule::concept));
                    let (var, sort) = (it.next().expect("a var"), it.next().expect("a type"));
                    let sort = self.ident(sort);
                    if is_bool(&sort.name) {
                        uses_bool = true;
                        self.names.bool_vars.insert(var.as_str().to_string());
                    }
                    self.names.vars.insert(var.as_str().to_string(), sort);
                }
                Rule::symbol_decl => {
                    let (names, _, args, result) = self.signature(decl);
                    uses_bool |= args.iter().any(|a| is_bool(&a.name));
                    for n in names {
                        let args: Vec<String> = args.iter().map(|a| a.name.clone()).collect();
                        let concept = super::concepts::signature_name(&args, &result.name);
                        self.names.signatures.push((n.name.clone(), concept));
                        if is_bool(&result.name) {
                            self.names.preds.insert(n.name, args);
                        } else {
                            self.names.funcs.insert(n.name, (args, result.name.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
        if uses_bool {
            self.note_bool_vocabulary(&voc, &imports);
        }
    }

    /// The elements of a type's listing `{a, b}`, `{1..3}` or `constructed from {..}`
    /// (constructors with arguments are left out: such a type is not listed).
    fn type_elements(&mut self, pair: Pair<Rule>) -> Vec<Element> {
        let mut out = Vec::new();
        for entry in pair.into_inner() {
            match entry.as_rule() {
                Rule::constructor => {
                    let name = entry.into_inner().next().expect("a name");
                    let span = self.span(&name);
                    out.push(Element {
                        kind: ElementKind::Str {
                            value: name.as_str().to_string(),
                            quoted: false,
                        },
                        span,
                    });
                }
                Rule::range => out.extend(self.range(entry).into_iter().flat_map(expand)),
                Rule::element => out.push(self.element(entry)),
                Rule::element_tuple => {
                    let span = self.span(&entry);
                    self.error(
                        "fodot-type-tuple",
                        "a type's elements are single values, not tuples",
                        span,
                    );
                }
                _ => {}
            }
        }
        out
    }

    /// The names, partiality, argument types and value type of `a, b: T * U -> V`.
    fn signature(&mut self, decl: Pair<Rule>) -> (Vec<Ident>, bool, Vec<Ident>, Ident) {
        let (mut names, mut partial, mut args, mut result) = (Vec::new(), false, Vec::new(), None);
        let mut after_domain = false;
        for p in decl.into_inner() {
            match p.as_rule() {
                Rule::ident if !after_domain => names.push(self.ident(p)),
                Rule::partiality => partial = p.as_str() == "partial",
                Rule::domain => {
                    after_domain = true;
                    args = p.into_inner().map(|a| self.ident(a)).collect();
                }
                Rule::ident | Rule::concept => result = Some(self.ident(p)),
                _ => {}
            }
        }
        (names, partial, args, result.expect("a value type"))
    }

    /// All blocks, in order.
    pub(super) fn blocks(&mut self, blocks: Vec<Pair<Rule>>) -> Read {
        let mut read = Read::default();
        let mut main = None;
        for block in blocks {
            match block.as_rule() {
                Rule::vocabulary => {
                    let v = self.vocabulary(block);
                    read.file.items.push(Item::Vocabulary(v));
                }
                Rule::theory => {
                    let t = self.theory(block);
                    let span = t.span;
                    read.file.items.push(Item::Theory(t));
                    // Display settings written in the theory, as if in a display block.
                    let settings = std::mem::take(&mut self.theory_display);
                    if !settings.is_empty() {
                        read.file
                            .items
                            .push(Item::Display(ast::Display { settings, span }));
                    }
                }
                Rule::structure => {
                    let s = self.structure(block);
                    read.file.items.push(Item::Structure(s));
                }
                Rule::display => {
                    if let Some(d) = self.display(block) {
                        read.file.items.push(Item::Display(d));
                    }
                }
                Rule::procedure | Rule::main_block => {
                    let span = self.span(&block);
                    let name = block
                        .clone()
                        .into_inner()
                        .next()
                        .filter(|p| p.as_rule() == Rule::ident)
                        .map(|p| p.as_str().to_string());
                    if name.as_deref().is_some_and(|n| n != "main") {
                        self.warning(
                            "fodot-procedure-ignored",
                            "only the procedure `main` is run; this one is never called",
                            span,
                        );
                        continue;
                    }
                    main = Some(block);
                }
                _ => {}
            }
        }
        read.file.items.extend(self.theories_own_structures());
        // IDP-Z3 resolves names across the file; IDP3's resolver reads blocks in order, so
        // vocabularies go first (a structure may come before its vocabulary).
        read.file
            .items
            .sort_by_key(|i| usize::from(!matches!(i, Item::Vocabulary(_))));
        super::names::separate_shared_names(&mut read.file);
        if let Some(block) = main {
            read.script = Some(self.script(block, &mut read.file));
        }
        read
    }

    /// For each theory that interprets symbols itself, a structure `interpretations_of_T` with
    /// them (the structure of a call on `T` alone; `--dump program` writes it back into `T`).
    fn theories_own_structures(&self) -> Vec<Item> {
        let mut names: Vec<&String> = self.theory_interpretations.keys().collect();
        names.sort();
        names
            .into_iter()
            .map(|t| {
                let (vocabulary, interpretations) = &self.theory_interpretations[t];
                let span = interpretations
                    .first()
                    .map_or_else(Span::default, |i| i.span);
                Item::Structure(ast::Structure {
                    name: Ident {
                        name: format!("{OWN_STRUCTURE}{t}"),
                        span,
                    },
                    vocabulary: pointer(vocabulary),
                    interpretations: interpretations.clone(),
                    usings: Vec::new(),
                    span,
                })
            })
            .collect()
    }

    fn vocabulary(&mut self, block: Pair<Rule>) -> ast::Vocabulary {
        let span = self.span(&block);
        let mut name = None;
        let mut decls = Vec::new();
        for p in block.into_inner() {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::type_decl => decls.push(Decl::Type(self.type_decl(p))),
                Rule::symbol_decl => decls.extend(self.symbol_decl(p)),
                Rule::import => {
                    let target = p.into_inner().find(|p| p.as_rule() == Rule::ident);
                    if let Some(t) = target {
                        decls.push(Decl::ExternVocabulary(pointer(&self.ident(t))));
                    }
                }
                _ => {}
            }
        }
        let name = name.unwrap_or_else(|| default_name("V", span));
        // The types the reader declares come first: the symbols' declarations use them.
        let mut own: Vec<Decl> = self.bool_decl(&name.name, span).into_iter().collect();
        own.extend(self.concept_decls(&name.name, span));
        decls.splice(0..0, own);
        decls.extend(self.constructor_decls(&name.name));
        ast::Vocabulary {
            name,
            ltc: None,
            decls,
            span,
        }
    }

    fn type_decl(&mut self, pair: Pair<Rule>) -> TypeDecl {
        let span = self.span(&pair);
        let mut name = None;
        let mut listing = None;
        let mut isa = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident if name.is_none() => name = Some(self.ident(p)),
                Rule::ident => isa.push(pointer(&self.sort_ident(self.ident(p)))),
                Rule::constructed | Rule::enumeration => listing = Some(p),
                _ => {}
            }
        }
        let name = name.expect("a type name");
        let body = match listing {
            Some(p) if p.as_rule() == Rule::constructed => self.constructed(p),
            Some(_) | None => match self.names.elements(&name.name) {
                Some(elements) => self.listed_type(elements.to_vec(), &mut isa, span),
                None => TypeBody::Open,
            },
        };
        TypeDecl {
            name,
            isa,
            contains: Vec::new(),
            body,
            span,
        }
    }

    /// `type T := {..}` with numbers: an enumerated subtype of `int` (or `float`); with names,
    /// a constructed type, so that the names can be used in formulas.
    fn listed_type(
        &mut self,
        elements: Vec<Element>,
        isa: &mut Vec<ast::Pointer>,
        span: Span,
    ) -> TypeBody {
        let numeric = |k: &ElementKind| matches!(k, ElementKind::Int(_) | ElementKind::Float(_));
        if elements.iter().all(|e| numeric(&e.kind)) {
            if isa.is_empty() {
                let float = elements
                    .iter()
                    .any(|e| matches!(e.kind, ElementKind::Float(_)));
                let base = if float { "float" } else { "int" };
                isa.push(pointer(&Ident {
                    name: base.to_string(),
                    span,
                }));
            }
            return TypeBody::Enumerated(elements);
        }
        let mut constructors = Vec::new();
        for e in elements {
            match e.kind {
                ElementKind::Str { value, .. } => constructors.push(Constructor {
                    name: Ident {
                        name: value,
                        span: e.span,
                    },
                    args: Vec::new(),
                    span: e.span,
                }),
                _ => self.error(
                    "fodot-mixed-type",
                    "a type lists names and numbers together; idp reads one kind per type",
                    e.span,
                ),
            }
        }
        TypeBody::Constructed(constructors)
    }

    fn constructed(&mut self, pair: Pair<Rule>) -> TypeBody {
        let mut constructors = Vec::new();
        for c in pair.into_inner() {
            let span = self.span(&c);
            let mut it = c.into_inner();
            let name = self.ident(it.next().expect("a constructor"));
            let args = it
                .map(|acc| {
                    let sort = acc.into_inner().last().expect("a type");
                    pointer(&self.sort_ident(self.ident(sort)))
                })
                .collect();
            constructors.push(Constructor { name, args, span });
        }
        TypeBody::Constructed(constructors)
    }

    pub(super) fn sort_ident(&self, sort: Ident) -> Ident {
        Ident {
            name: idp3_sort(&sort.name).to_string(),
            span: sort.span,
        }
    }

    fn symbol_decl(&mut self, pair: Pair<Rule>) -> Vec<Decl> {
        let span = self.span(&pair);
        let (names, partial, args, result) = self.signature(pair);
        let args: Vec<ast::Pointer> = args
            .into_iter()
            .map(|a| pointer(&self.sort_ident(a)))
            .collect();
        names
            .into_iter()
            .map(|name| {
                if is_bool(&result.name) {
                    Decl::Predicate(PredDecl {
                        name,
                        args: args.clone(),
                        span,
                    })
                } else {
                    Decl::Function(FuncDecl {
                        name,
                        partial,
                        args: args.clone(),
                        result: pointer(&self.sort_ident(result.clone())),
                        span,
                    })
                }
            })
            .collect()
    }

    fn theory(&mut self, block: Pair<Rule>) -> ast::Theory {
        let span = self.span(&block);
        let mut names = Vec::new();
        let mut components = Vec::new();
        let mut interpretations = Vec::new();
        for p in block.into_inner() {
            match p.as_rule() {
                Rule::ident => names.push(self.ident(p)),
                Rule::definition => {
                    components.push(TheoryComponent::Definition(self.definition(p)))
                }
                Rule::axiom => {
                    let e = p.into_inner().next().expect("a formula");
                    let e = self.expr(e);
                    components.push(TheoryComponent::Sentence(self.formula(&e)));
                }
                Rule::interpretation => interpretations.extend(self.interpretation(p)),
                Rule::theory_display => {
                    let setting = p.into_inner().next().expect("a setting");
                    let setting = self.display_setting(setting);
                    self.theory_display.extend(setting);
                }
                _ => {}
            }
        }
        let mut names = names.into_iter();
        let name = names.next().unwrap_or_else(|| default_name("T", span));
        let vocabulary = names.next().unwrap_or_else(|| default_name("V", span));
        // IDP-Z3 reads `p := {..}.` in a theory as in a structure: the calls on this theory
        // add it to their structure.
        if !interpretations.is_empty() {
            self.theory_interpretations
                .insert(name.name.clone(), (vocabulary.clone(), interpretations));
        }
        components.extend(self.constructor_definitions(&vocabulary.name));
        ast::Theory {
            name,
            vocabulary: pointer(&vocabulary),
            components,
            span,
        }
    }

    pub(super) fn definition(&mut self, pair: Pair<Rule>) -> Definition {
        let span = self.span(&pair);
        let mut rules = Vec::new();
        for r in pair.into_inner().filter(|p| p.as_rule() == Rule::rule) {
            rules.extend(self.rule(r));
        }
        Definition { rules, span }
    }

    /// One FO(·) rule; a function value with if-then-else gives one rule per branch.
    fn rule(&mut self, pair: Pair<Rule>) -> Vec<ast::Rule> {
        let span = self.span(&pair);
        let mut vars: Vec<VarDecl> = Vec::new();
        let (mut head, mut value, mut body) = (None, None, None);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::rule_quant => {
                    let q = p.into_inner().find(|p| p.as_rule() == Rule::quantees);
                    if let Some(q) = q {
                        let quantees = self.quantees(q);
                        vars.extend(self.var_decls(&quantees));
                    }
                }
                Rule::applied => head = Some(p),
                Rule::rule_value => {
                    let v = p.into_inner().last().expect("a value");
                    value = Some(self.expr(v));
                }
                Rule::rule_body => {
                    let b = p.into_inner().last().expect("a body");
                    let b = self.expr(b);
                    body = Some(self.formula(&b));
                }
                _ => {}
            }
        }
        let head = head.expect("a head");
        let mut it = head.into_inner();
        let symbol = symbol_ref(&self.ident(it.next().expect("a name")));
        let args: Vec<ast::Term> = it
            .map(|a| {
                let e = self.expr(a);
                self.term(&e)
            })
            .collect();
        let mut rules = Vec::new();
        self.rules_for(&vars, &symbol, &args, value, body, span, &mut rules);
        rules
    }

    #[allow(clippy::too_many_arguments)]
    fn rules_for(
        &mut self,
        vars: &[VarDecl],
        symbol: &ast::SymbolRef,
        args: &[ast::Term],
        value: Option<Spanned>,
        body: Option<Formula>,
        span: Span,
        out: &mut Vec<ast::Rule>,
    ) {
        let Some(value) = value else {
            out.push(ast::Rule {
                vars: vars.to_vec(),
                head: RuleHead::Predicate {
                    symbol: symbol.clone(),
                    args: args.to_vec(),
                },
                body,
                span,
            });
            return;
        };
        if let Some((c, then, other)) = lift_ite(&value) {
            let c = self.formula(&c);
            let not_c = Formula {
                kind: FormulaKind::Not(Box::new(c.clone())),
                span: c.span,
            };
            let and = |extra: Formula| match &body {
                None => extra,
                Some(b) => Formula {
                    kind: FormulaKind::Binary {
                        op: BinConn::And,
                        left: Box::new(b.clone()),
                        right: Box::new(extra),
                    },
                    span,
                },
            };
            let (b1, b2) = (and(c), and(not_c));
            self.rules_for(vars, symbol, args, Some(then), Some(b1), span, out);
            self.rules_for(vars, symbol, args, Some(other), Some(b2), span, out);
            return;
        }
        let value = self.term(&value);
        out.push(ast::Rule {
            vars: vars.to_vec(),
            head: RuleHead::Function {
                symbol: symbol.clone(),
                args: args.to_vec(),
                value,
            },
            body,
            span,
        });
    }

    fn structure(&mut self, block: Pair<Rule>) -> ast::Structure {
        let span = self.span(&block);
        let mut names = Vec::new();
        let mut interpretations = Vec::new();
        for p in block.into_inner() {
            match p.as_rule() {
                Rule::ident => names.push(self.ident(p)),
                Rule::interpretation => interpretations.extend(self.interpretation(p)),
                _ => {}
            }
        }
        let mut names = names.into_iter();
        let name = names.next().unwrap_or_else(|| default_name("S", span));
        let vocabulary = names.next().unwrap_or_else(|| default_name("V", span));
        ast::Structure {
            name,
            vocabulary: pointer(&vocabulary),
            interpretations,
            usings: Vec::new(),
            span,
        }
    }

    /// `name := value.` (or `:>` for what is certainly true); a type's listing was moved to the
    /// vocabulary by [`Reader::collect_names`].
    fn interpretation(&mut self, pair: Pair<Rule>) -> Option<Interpretation> {
        let span = self.span(&pair);
        let mut it = pair.into_inner();
        let name = self.ident(it.next().expect("a name"));
        if matches!(self.names.types.get(&name.name), Some(Some(_))) {
            return None;
        }
        let sign = it.next().expect("a sign");
        if matches!(sign.as_str(), ">>" | ":>=") {
            let at = self.span(&sign);
            self.warning(
                "old-idp-z3",
                format!(
                    "`{}` is an older IDP-Z3's sign for what is certainly true; IDP-Z3 0.12 \
                     writes `{} :> {{...}}.`",
                    sign.as_str(),
                    name.name
                ),
                at,
            );
        }
        let truth = match sign.as_str() {
            ":>" | "⊇" | ">>" | ":>=" => Truth::Ct,
            _ => Truth::TwoValued,
        };
        let value = it.next().expect("a value");
        let value_span = self.span(&value);
        let mut rest: Vec<Pair<Rule>> = it.collect();
        if rest
            .last()
            .is_some_and(|p| p.as_rule() == Rule::missing_dot)
        {
            rest.pop();
            let end = rest.last().map_or(value_span, |p| self.span(p));
            self.missing_dot(&name.name, end);
        }
        let otherwise = rest.pop().map(|e| {
            let e = e.into_inner().last().expect("an else value");
            self.element(e)
        });
        let value = match value.as_rule() {
            Rule::function_enum => {
                let mut entries: Vec<TableEntry> =
                    value.into_inner().map(|m| self.map_entry(m)).collect();
                if let Some(d) = otherwise {
                    self.spread_else(&name, d, &mut entries);
                }
                InterValue::Table(entries)
            }
            Rule::enumeration => InterValue::Table(self.enumeration(value)),
            _ => {
                let e = self.element(value);
                match &e.kind {
                    ElementKind::Str {
                        value,
                        quoted: false,
                    } if value == "true" || value == "false" => InterValue::Bool(value == "true"),
                    _ => InterValue::Element(e),
                }
            }
        };
        Some(Interpretation {
            symbol: symbol_ref(&name),
            truth,
            value,
            span,
        })
    }

    /// An interpretation that ends without its '.': the error at its last character.
    fn missing_dot(&mut self, name: &str, value: Span) {
        let end = value.end as usize;
        let last = Span::new(value.file, end.saturating_sub(1)..end);
        self.error(
            "fodot-syntax-error",
            format!("the interpretation of {name} ends without a '.' (IDP-Z3's FO(\u{b7}) syntax)"),
            last,
        );
        self.hint_last(format!(
            "every interpretation ends with a '.', as in `{name} := {{...}}.`"
        ));
    }

    fn map_entry(&mut self, pair: Pair<Rule>) -> TableEntry {
        let span = self.span(&pair);
        let parts: Vec<Pair<Rule>> = pair.into_inner().collect();
        let (value, args) = parts.split_last().expect("a value");
        let value = self.element(value.clone());
        let args = match args.first() {
            None => Vec::new(),
            Some(p) if p.as_rule() == Rule::element_tuple => {
                p.clone().into_inner().map(|e| self.element(e)).collect()
            }
            Some(p) => vec![self.element(p.clone())],
        };
        TableEntry::Mapping { args, value, span }
    }

    fn enumeration(&mut self, pair: Pair<Rule>) -> Vec<TableEntry> {
        pair.into_inner()
            .filter_map(|entry| match entry.as_rule() {
                Rule::range => self.range(entry).map(TableEntry::Element),
                Rule::element_tuple => {
                    let span = self.span(&entry);
                    let elements = entry.into_inner().map(|e| self.element(e)).collect();
                    Some(TableEntry::Tuple(elements, span))
                }
                Rule::element => Some(TableEntry::Element(self.element(entry))),
                _ => None,
            })
            .collect()
    }

    fn range(&mut self, pair: Pair<Rule>) -> Option<Element> {
        let span = self.span(&pair);
        let bounds: Vec<i64> = pair
            .into_inner()
            .map(|n| match super::number::number(n.as_str()) {
                super::number::Number::Int(i) => i,
                _ => 0,
            })
            .collect();
        match bounds.as_slice() {
            [lo, hi] => Some(Element {
                kind: ElementKind::IntRange(*lo, *hi),
                span,
            }),
            _ => None,
        }
    }

    pub(super) fn element(&mut self, pair: Pair<Rule>) -> Element {
        let span = self.span(&pair);
        let inner = match pair.as_rule() {
            Rule::element => pair.into_inner().next().expect("an element"),
            _ => pair,
        };
        let kind = match inner.as_rule() {
            Rule::number => match super::number::number(inner.as_str()) {
                super::number::Number::Float(f) => ElementKind::Float(f),
                super::number::Number::Int(i) => ElementKind::Int(i),
                super::number::Number::Bad => {
                    let text = inner.as_str();
                    self.error(
                        "fodot-number",
                        format!("{text} is not a number or date idp reads"),
                        span,
                    );
                    ElementKind::Int(0)
                }
            },
            Rule::string => {
                let s = inner.as_str();
                ElementKind::Str {
                    value: s[1..s.len() - 1].to_string(),
                    quoted: true,
                }
            }
            Rule::compound => {
                let mut it = inner.into_inner();
                let constructor = pointer(&self.ident(it.next().expect("a constructor")));
                let args = it.map(|e| self.element(e)).collect();
                ElementKind::Compound { constructor, args }
            }
            _ => ElementKind::Str {
                value: inner.as_str().to_string(),
                quoted: false,
            },
        };
        Element { kind, span }
    }

    /// `f := {..} else d.`: a mapping to `d` for every argument tuple not listed.
    fn spread_else(&mut self, name: &Ident, d: Element, entries: &mut Vec<TableEntry>) {
        let Some((args, _)) = self.names.funcs.get(&name.name).cloned() else {
            self.error(
                "fodot-else",
                format!(
                    "`else` gives a default value, but `{}` is not a function",
                    name.name
                ),
                name.span,
            );
            return;
        };
        let mut domains = Vec::new();
        for a in &args {
            match self.names.elements(a) {
                Some(elements) => domains.push(elements.to_vec()),
                None => {
                    self.error(
                        "fodot-else",
                        format!(
                            "`else` needs the elements of type {a}, which the file does not list"
                        ),
                        name.span,
                    );
                    return;
                }
            }
        }
        let listed: std::collections::HashSet<Vec<String>> = entries
            .iter()
            .filter_map(|e| match e {
                TableEntry::Mapping { args, .. } => Some(args.iter().map(key).collect()),
                _ => None,
            })
            .collect();
        let mut tuples: Vec<Vec<Element>> = vec![Vec::new()];
        for domain in domains {
            tuples = tuples
                .into_iter()
                .flat_map(|t| {
                    domain.iter().map(move |e| {
                        let mut t = t.clone();
                        t.push(e.clone());
                        t
                    })
                })
                .collect();
        }
        for t in tuples {
            if !listed.contains(&t.iter().map(key).collect::<Vec<_>>()) {
                entries.push(TableEntry::Mapping {
                    args: t,
                    value: d.clone(),
                    span: d.span,
                });
            }
        }
    }
}

/// The text of an element, to compare listings.
fn key(e: &Element) -> String {
    match &e.kind {
        ElementKind::Int(i) => i.to_string(),
        ElementKind::Float(f) => f.to_string(),
        ElementKind::Str { value, .. } => value.clone(),
        ElementKind::Char(c) => c.to_string(),
        other => format!("{other:?}"),
    }
}

/// The elements of a range element (others as they are).
fn expand(e: Element) -> Vec<Element> {
    match e.kind {
        ElementKind::IntRange(lo, hi) => (lo..=hi)
            .map(|i| Element {
                kind: ElementKind::Int(i),
                span: e.span,
            })
            .collect(),
        _ => vec![e],
    }
}

/// The name of the structure of a theory's own interpretations, before the theory's name.
pub const OWN_STRUCTURE: &str = "interpretations_of_";

/// IDP-Z3's default block names (`vocabulary {` is `V`, `theory {` is `T:V`, `structure {` is
/// `S:V`).
fn default_name(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::new(span.file, span.start as usize..span.start as usize),
    }
}

/// The settings of IDP-Z3's `display` block, with what each takes: a set of concepts
/// (`` goal_symbol := {`p}. ``), concepts (`` hide(`p). ``), a text before them
/// (`` unit('m', `length). ``), a single text (`introduction('...').`), nothing or a view.
const DISPLAY_SETTINGS: &[(&str, DisplayArgs)] = &[
    ("goal_symbol", DisplayArgs::Enumeration),
    ("expand", DisplayArgs::Enumeration),
    ("counter", DisplayArgs::Enumeration),
    ("hide", DisplayArgs::Concepts),
    ("noOptimization", DisplayArgs::Concepts),
    ("unit", DisplayArgs::TextThenConcepts),
    ("heading", DisplayArgs::TextThenConcepts),
    ("introduction", DisplayArgs::Text),
    ("moveSymbols", DisplayArgs::None),
    ("optionalPropagation", DisplayArgs::None),
    ("manualPropagation", DisplayArgs::None),
    ("optionalRelevance", DisplayArgs::None),
    ("manualRelevance", DisplayArgs::None),
    ("view", DisplayArgs::View),
];

/// What a display setting takes (see [`DISPLAY_SETTINGS`]).
#[derive(Clone, Copy, PartialEq)]
enum DisplayArgs {
    Enumeration,
    Concepts,
    TextThenConcepts,
    Text,
    None,
    View,
}

impl Reader {
    /// A `display` block's settings; `None` (with a warning) when its text is not made of
    /// settings the grammar reads. A setting IDP-Z3 does not know, or written with the wrong
    /// form or arguments, is left out with a warning.
    fn display(&mut self, block: Pair<Rule>) -> Option<ast::Display> {
        let span = self.span(&block);
        let head = Span::new(self.fid, span.start as usize..span.start as usize + 7);
        let Some(settings) = block
            .into_inner()
            .find(|p| p.as_rule() == Rule::display_settings)
        else {
            self.warning(
                "fodot-display-ignored",
                "this display block is skipped: its text is not made of the settings IDP-Z3's \
                 consultant reads (`goal_symbol := {`p}.`, `hide(`p).`, `unit('m', `p).`, \
                 `view() = expanded.`, ...)",
                head,
            );
            return None;
        };
        let settings: Vec<ast::DisplaySetting> = settings
            .into_inner()
            .filter_map(|p| self.display_setting(p))
            .collect();
        Some(ast::Display { settings, span })
    }

    fn display_setting(&mut self, pair: Pair<Rule>) -> Option<ast::DisplaySetting> {
        let span = self.span(&pair);
        let form = pair.as_rule();
        let mut parts = pair.into_inner();
        let (kind, symbols, texts) = if form == Rule::display_view {
            // The view's name is the last part (`view() is expanded.` has `is` before it).
            let view = parts.last()?;
            let kind = Ident {
                name: "view".into(),
                span,
            };
            (kind, Vec::new(), vec![view.as_str().to_string()])
        } else {
            let kind = self.ident(parts.next()?);
            let (mut symbols, mut texts) = (Vec::new(), Vec::new());
            for arg in parts {
                let text = arg.as_str();
                match arg.as_rule() {
                    Rule::concept_ref => symbols.push(Ident {
                        name: text.trim_start_matches('`').to_string(),
                        span: self.span(&arg),
                    }),
                    Rule::display_text => texts.push(text[1..text.len() - 1].to_string()),
                    _ => texts.push(text.to_string()),
                }
            }
            (kind, symbols, texts)
        };
        let Some(&(_, args)) = DISPLAY_SETTINGS.iter().find(|(n, _)| *n == kind.name) else {
            let known: Vec<&str> = DISPLAY_SETTINGS.iter().map(|(n, _)| *n).collect();
            self.warning(
                "fodot-display-setting",
                format!(
                    "IDP-Z3's consultant has no display setting `{}`: it is left out",
                    kind.name
                ),
                kind.span,
            );
            self.hint_last(format!("the settings are {}", known.join(", ")));
            return None;
        };
        let enumeration = form == Rule::display_enum;
        let fits = match args {
            DisplayArgs::Enumeration => enumeration && texts.is_empty(),
            DisplayArgs::Concepts => !enumeration && texts.is_empty() && !symbols.is_empty(),
            DisplayArgs::TextThenConcepts => {
                !enumeration && texts.len() == 1 && !symbols.is_empty()
            }
            DisplayArgs::Text => !enumeration && texts.len() == 1 && symbols.is_empty(),
            DisplayArgs::None => !enumeration && texts.is_empty() && symbols.is_empty(),
            DisplayArgs::View => {
                form == Rule::display_view
                    && texts
                        .first()
                        .is_some_and(|t| matches!(t.as_str(), "normal" | "expanded"))
            }
        };
        if !fits {
            let form = match (kind.name.as_str(), args) {
                (name, DisplayArgs::Enumeration) => format!("`{name} := {{`p, `q}}.`"),
                (name, DisplayArgs::Concepts) => format!("`{name}(`p, `q).`"),
                (name, DisplayArgs::TextThenConcepts) => format!("`{name}('text', `p, `q).`"),
                (name, DisplayArgs::Text) => format!("`{name}('text').`"),
                (name, DisplayArgs::None) => format!("`{name}().`"),
                (_, DisplayArgs::View) => "`view() = expanded.` or `view() = normal.`".into(),
            };
            self.warning(
                "fodot-display-setting",
                format!("this display setting is written {form}: it is left out"),
                span,
            );
            return None;
        }
        Some(ast::DisplaySetting {
            kind,
            symbols,
            texts,
            span,
        })
    }
}
