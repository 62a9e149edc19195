//! Blocks that share a name. IDP-Z3 keeps vocabularies, theories and structures apart (`theory
//! environment:environment` and `structure environment:environment` are usual), and a name in
//! `main` means the structure of that name, else the theory, else the vocabulary. idp has one
//! namespace, so the blocks a name in `main` does not mean are renamed apart here, with every
//! pointer to a renamed vocabulary.

use std::collections::HashSet;

use crate::syntax::ast::{self, Decl, Item, Pointer};

/// What a renamed block's name ends with (a space: no FO(·) name can be it).
const VOCABULARY_SUFFIX: &str = " (vocabulary)";
const THEORY_SUFFIX: &str = " (theory)";

/// The name a block was written with (without what [`separate_shared_names`] added).
pub fn written_name(name: &str) -> &str {
    name.strip_suffix(VOCABULARY_SUFFIX)
        .or_else(|| name.strip_suffix(THEORY_SUFFIX))
        .unwrap_or(name)
}

/// Renames the theories a structure of the same name hides, and the vocabularies a theory or a
/// structure of the same name hides.
pub(super) fn separate_shared_names(file: &mut ast::File) {
    let structures = block_names(file, |i| match i {
        Item::Structure(s) => Some(&s.name.name),
        _ => None,
    });
    for item in &mut file.items {
        if let Item::Theory(t) = item {
            if structures.contains(&t.name.name) {
                t.name.name.push_str(THEORY_SUFFIX);
            }
        }
    }
    let mut hiding = structures;
    hiding.extend(block_names(file, |i| match i {
        Item::Theory(t) => Some(&t.name.name),
        _ => None,
    }));
    let hidden: HashSet<String> = block_names(file, |i| match i {
        Item::Vocabulary(v) => Some(&v.name.name),
        _ => None,
    })
    .into_iter()
    .filter(|v| hiding.contains(v))
    .collect();
    if !hidden.is_empty() {
        rename_vocabularies(file, &hidden);
    }
}

/// The names of the items `name` picks.
fn block_names(file: &ast::File, name: impl Fn(&Item) -> Option<&String>) -> HashSet<String> {
    file.items.iter().filter_map(name).cloned().collect()
}

/// Renames the vocabularies in `hidden` and every pointer to them.
fn rename_vocabularies(file: &mut ast::File, hidden: &HashSet<String>) {
    for item in &mut file.items {
        match item {
            Item::Vocabulary(v) => {
                if hidden.contains(&v.name.name) {
                    v.name.name.push_str(VOCABULARY_SUFFIX);
                }
                for d in &mut v.decls {
                    if let Decl::ExternVocabulary(p) = d {
                        repoint(p, hidden);
                    }
                }
            }
            Item::Theory(t) => repoint(&mut t.vocabulary, hidden),
            Item::Structure(s) => repoint(&mut s.vocabulary, hidden),
            _ => {}
        }
    }
}

/// Points `p` at the renamed vocabulary when it named a hidden one.
fn repoint(p: &mut Pointer, hidden: &HashSet<String>) {
    if p.parts.len() != 1 || !hidden.contains(p.name()) {
        return;
    }
    if let Some(last) = p.parts.last_mut() {
        last.name.push_str(VOCABULARY_SUFFIX);
    }
}
