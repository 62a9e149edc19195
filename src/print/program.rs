//! The resolved program as IDP text (`idp --dump program`): every vocabulary, theory,
//! structure, term, query, procedure and namespace in declaration order, as a user reads them
//! after resolution: variables with their derived types, sentences fully parenthesised, and
//! structures completed (sorts autocompleted, tables built).

use crate::ids::NamespaceId;
use crate::print::structure::structure_to_string;
use crate::print::theory::{query_to_string, term_block_to_string};
use crate::print::theory_to_string;
use crate::print::vocabulary::vocabulary_to_source;
use crate::sema::{Component, Program};

/// The whole program, from the global namespace down.
pub fn program_to_string(program: &Program) -> String {
    let mut out = String::from(
        "// The program as idp resolved it: variables with their types, sentences in full\n\
         // parentheses, structures completed.\n",
    );
    namespace_members(program, NamespaceId(0), &mut out);
    out
}

fn namespace_members(program: &Program, ns: NamespaceId, out: &mut String) {
    for component in program.namespaces[ns.index()].members.values() {
        out.push('\n');
        let text = match *component {
            Component::Vocabulary(id) => vocabulary_to_source(program, program.voc(id)),
            Component::Theory(id) => theory_to_string(program, program.theory(id)),
            Component::Structure(id) => {
                let mut text = structure_to_string(program, &program.structures[id.index()]);
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text
            }
            Component::Term(id) => term_block_to_string(program, &program.terms[id.index()]),
            Component::Query(id) => query_to_string(program, &program.queries[id.index()]),
            Component::Procedure(id) => {
                let p = &program.procedures[id.index()];
                format!(
                    "procedure {}({}) {{{}}}\n",
                    p.name,
                    p.params.join(", "),
                    p.body
                )
            }
            Component::Namespace(id) => {
                let mut inner = String::new();
                namespace_members(program, id, &mut inner);
                let mut text = format!("namespace {} {{\n", program.namespaces[id.index()].name);
                for line in inner.trim_start_matches('\n').lines() {
                    if line.is_empty() {
                        text.push('\n');
                    } else {
                        text.push_str("  ");
                        text.push_str(line);
                        text.push('\n');
                    }
                }
                text.push_str("}\n");
                text
            }
        };
        out.push_str(&text);
    }
}
