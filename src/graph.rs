//! Graphs given as adjacency lists (`succ[v]` lists the successors of node `v`): their
//! strongly connected components, by petgraph's Kosaraju (iterative, so a path of a million
//! nodes does not overflow the stack).

use petgraph::graph::{DiGraph, NodeIndex};

/// The strongly connected components of the graph `succ`, each a list of nodes.
pub fn strongly_connected_components(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(succ.len(), 0);
    for _ in 0..succ.len() {
        graph.add_node(());
    }
    for (v, ws) in succ.iter().enumerate() {
        for &w in ws {
            graph.add_edge(NodeIndex::new(v), NodeIndex::new(w), ());
        }
    }
    petgraph::algo::kosaraju_scc(&graph)
        .into_iter()
        .map(|c| c.into_iter().map(NodeIndex::index).collect())
        .collect()
}

/// Whether each node lies on a cycle (a component of two or more nodes, or a self-loop).
pub fn on_cycle(succ: &[Vec<usize>]) -> Vec<bool> {
    let mut cyclic = vec![false; succ.len()];
    for component in strongly_connected_components(succ) {
        let cycle = component.len() > 1 || succ[component[0]].contains(&component[0]);
        for v in component {
            cyclic[v] = cycle;
        }
    }
    cyclic
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_and_cycles() {
        // 0 -> 1 -> 2 -> 1, 3 -> 3, 4 alone.
        let succ = vec![vec![1], vec![2], vec![1], vec![3], vec![]];
        let mut components: Vec<Vec<usize>> = strongly_connected_components(&succ)
            .into_iter()
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect();
        components.sort();
        assert_eq!(components, vec![vec![0], vec![1, 2], vec![3], vec![4]]);
        assert_eq!(on_cycle(&succ), vec![false, true, true, true, false]);
    }

    #[test]
    fn a_long_path_does_not_overflow_the_stack() {
        let n = 1_000_000;
        let succ: Vec<Vec<usize>> = (0..n).map(|v| vec![(v + 1) % n]).collect();
        assert_eq!(strongly_connected_components(&succ).len(), 1);
    }
}
