//! Dependency graphs as `petgraph` graphs: the resources' (creation order, cycles) and the
//! conditions' (cycles). Nodes are added in template order, so a node's index is its position in
//! the template and "template order" is index order. Pure; it knows names and edges, not
//! templates.
//!
//! AWS reports a resource cycle as `Circular dependency between resources: [A, B]`, and the list
//! "can include resources that depend on the cycle" (aws-contract.md §6.3): Cumulo names the
//! members of every cycle (the strongly connected components with more than one node, or a node
//! depending on itself) and everything that depends on them, in template order.

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Dfs;
use petgraph::Direction;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use indexmap::IndexMap;

/// A directed graph over names in template order; an edge `a → b` means "b needs a" (a comes
/// first).
pub(crate) struct NameGraph<'a> {
    graph: DiGraph<&'a str, ()>,
}

impl<'a> NameGraph<'a> {
    /// The graph of `names` (template order) where each entry of `needs` lists the names its
    /// key needs. Names not in `names` are ignored (they are reported elsewhere), and so are
    /// repeated edges.
    pub fn new(
        names: impl IntoIterator<Item = &'a str>,
        needs: &'a IndexMap<String, Vec<String>>,
    ) -> NameGraph<'a> {
        let mut graph: DiGraph<&'a str, ()> = DiGraph::new();
        let mut index: IndexMap<&str, NodeIndex> = IndexMap::new();
        for name in names {
            index.entry(name).or_insert_with(|| graph.add_node(name));
        }
        for (name, deps) in needs {
            let Some(&to) = index.get(name.as_str()) else {
                continue;
            };
            for dep in deps {
                if let Some(&from) = index.get(dep.as_str()) {
                    graph.update_edge(from, to, ());
                }
            }
        }
        NameGraph { graph }
    }

    /// The nodes on a cycle: every strongly connected component of more than one node, and every
    /// node with an edge to itself; in template order.
    fn cyclic(&self) -> Vec<NodeIndex> {
        let mut nodes: Vec<NodeIndex> = tarjan_scc(&self.graph)
            .into_iter()
            .filter(|scc| scc.len() > 1 || self.graph.contains_edge(scc[0], scc[0]))
            .flatten()
            .collect();
        nodes.sort();
        nodes
    }

    /// The names on a cycle, in template order; empty when the graph is acyclic.
    pub fn cycle_members(&self) -> Vec<&'a str> {
        self.cyclic().into_iter().map(|n| self.graph[n]).collect()
    }

    /// The names on a cycle and every name that needs one of them (directly or not), in
    /// template order; empty when the graph is acyclic.
    pub fn blocked_by_cycles(&self) -> Vec<&'a str> {
        let mut blocked = vec![false; self.graph.node_count()];
        for start in self.cyclic() {
            let mut dfs = Dfs::new(&self.graph, start);
            while let Some(n) = dfs.next(&self.graph) {
                blocked[n.index()] = true;
            }
        }
        self.graph
            .node_indices()
            .filter(|n| blocked[n.index()])
            .map(|n| self.graph[n])
            .collect()
    }

    /// A topological order (every name after the names it needs) in which, among the names
    /// ready at each step, the earliest in the template goes first; `Err` with
    /// [`NameGraph::blocked_by_cycles`] when there is a cycle.
    pub fn order(&self) -> Result<Vec<&'a str>, Vec<&'a str>> {
        let blocked = self.blocked_by_cycles();
        if !blocked.is_empty() {
            return Err(blocked);
        }
        let mut pending: Vec<usize> = self
            .graph
            .node_indices()
            .map(|n| {
                self.graph
                    .neighbors_directed(n, Direction::Incoming)
                    .count()
            })
            .collect();
        let mut ready: BinaryHeap<Reverse<NodeIndex>> = self
            .graph
            .node_indices()
            .filter(|n| pending[n.index()] == 0)
            .map(Reverse)
            .collect();
        let mut order = Vec::with_capacity(pending.len());
        while let Some(Reverse(n)) = ready.pop() {
            order.push(self.graph[n]);
            for next in self.graph.neighbors_directed(n, Direction::Outgoing) {
                pending[next.index()] -= 1;
                if pending[next.index()] == 0 {
                    ready.push(Reverse(next));
                }
            }
        }
        Ok(order)
    }
}

#[cfg(test)]
mod tests {
    use indexmap::IndexMap;

    use super::NameGraph;

    fn needs(pairs: &[(&str, &[&str])]) -> IndexMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn order_is_topological_with_template_order_ties() {
        let deps = needs(&[
            ("B", &["C", "D"]),
            ("C", &["A"]),
            ("D", &["A"]),
            ("E", &["B", "C", "B"]),
        ]);
        let graph = NameGraph::new(["A", "B", "C", "D", "E", "F"], &deps);
        assert_eq!(graph.order(), Ok(vec!["A", "C", "D", "B", "E", "F"]));
        assert!(graph.cycle_members().is_empty());
    }

    #[test]
    fn cycles_block_their_members_and_dependents_only() {
        // X is independent; C needs the A–B cycle; D needs C; E needs nothing; S needs itself.
        let deps = needs(&[
            ("C", &["A"]),
            ("A", &["B"]),
            ("B", &["A"]),
            ("D", &["C"]),
            ("S", &["S"]),
            ("Z", &["Unknown"]),
        ]);
        let graph = NameGraph::new(["X", "C", "A", "B", "D", "E", "S", "Z"], &deps);
        assert_eq!(graph.cycle_members(), ["A", "B", "S"]);
        assert_eq!(graph.order(), Err(vec!["C", "A", "B", "D", "S"]));
    }
}
