//! The token tree's node budget, chosen each round from the measured verify-cost curve (docs/METHODS.md section
//! 4): of the tree drafted this round, verify the first n nodes, n in 2..=max_nodes, with n maximising expected
//! tokens per second
//!
//! ```text
//!     rate(n) = E[accepted + 1](n) / (verify_cost(n) + draft_cost)
//!     E[accepted + 1](n) = 1 + sum over nodes i < n of P(i accepted),  P(i accepted) = c_i * P(parent(i) accepted)
//! ```
//!
//! where c_i is the running acceptance of node i given its parent was accepted (on the main chain, which is what a
//! lossless pipeline accepts along: the acceptance by depth), verify_cost is the curve the cost-model policy
//! measures at load ([`super::cost`]) and draft_cost the running seconds of a drafting round. A smaller budget is a
//! prefix of the tree `trie::build` makes (nodes are added best candidate first), so node i is the same
//! proposal whatever n is, and the choice can use this round's actual tree shape.
//!
//! Learning without bias: c_i is updated only in rounds where node i's parent is on the accepted path. Then it is
//! known whether node i holds the target's next token even when i was past the budget (the token after the path
//! is the bonus), so the node just past the budget is always observed: the policy explores larger trees for free.
//! Drafting goes only as deep as that: [`NodeBudget::depth_hint`] is the last budget (its drafts plus the
//! look-ahead node), which saves EAGLE, whose head runs once per depth, the calls nobody would verify.

use super::cost::CostCurve;
use crate::model::TokenTree;

/// Acceptance a node starts a pipeline with: optimistic, so larger trees are tried and their value learned.
const PRIOR: f64 = 0.5;

/// Chooses how many nodes of each round's tree to verify.
#[derive(Debug, Clone)]
pub(crate) struct NodeBudget {
    max_nodes: usize,
    alpha: f64,
    curve: Option<CostCurve>,
    /// c_i by node index (index 0, the pending token, is always accepted).
    conditional: Vec<f64>,
    /// Running seconds of one drafting round (head call(s), prompt lookup, trie).
    draft_seconds: Option<f64>,
    /// P(node i accepted) of the tree being sized (scratch).
    reach: Vec<f64>,
    /// Nodes chosen in the last round (the root included).
    last: usize,
}

impl NodeBudget {
    /// A policy for trees of at most `max_nodes` nodes (the pending token included), smoothing with `alpha`.
    pub fn new(max_nodes: usize, alpha: f64) -> Self {
        NodeBudget {
            max_nodes: max_nodes.max(2),
            alpha: alpha.clamp(1e-3, 1.0),
            curve: None,
            conditional: vec![PRIOR; max_nodes.max(2)],
            draft_seconds: None,
            reach: Vec::with_capacity(max_nodes.max(2)),
            last: max_nodes.max(2),
        }
    }

    /// Most tokens a verification pass may hold (the curve is measured up to this).
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Gives the policy the verify-cost curve measured on this machine.
    pub fn set_curve(&mut self, curve: CostCurve) {
        self.curve = Some(curve);
    }

    /// Whether the curve still has to be measured.
    pub fn needs_curve(&self) -> bool {
        self.curve.is_none()
    }

    /// Starts a request: drafting goes as deep as allowed again, while the acceptance learnt on the pipeline's
    /// earlier requests is kept (a running average, so each request moves it): a weak head's first rounds are
    /// sized from what it has shown, not from the optimistic prior again, which made every request of the SmolLM2
    /// heads start with 8-node trees the head could not fill (docs/HEADS.md). The drafting cost is the machine's
    /// and is kept too.
    pub fn begin_request(&mut self) {
        self.last = self.max_nodes;
    }

    /// How many tokens deep to draft: the last round's budget n, i.e. its n - 1 verified drafts plus the
    /// look-ahead node past them (so the budget can grow by one a round); `max_nodes` at the start of a request.
    pub fn depth_hint(&self) -> usize {
        self.last
    }

    /// Nodes of `tree` to verify (its root included): the whole tree while no curve is known. Unless side
    /// branches are followed, a node off the main chain is never accepted (a lossless walk ends the round there,
    /// see tree.rs), so it is worth nothing and the choice is a prefix of the main chain.
    pub fn choose(&mut self, tree: &TokenTree, follow_side: bool) -> usize {
        let len = tree.len().min(self.max_nodes);
        let Some(curve) = self.curve.as_ref() else {
            return len;
        };
        if len <= 2 {
            // Too small to choose from (e.g. a one-token candidate); not evidence for a smaller budget.
            return len;
        }
        let main = main_chain_len(tree);
        self.reach.clear();
        self.reach.push(1.0);
        for i in 1..len {
            let parent = tree.parents[i].unwrap_or(0);
            let c = if i < main || follow_side { self.conditional[i] } else { 0.0 };
            self.reach.push(c * self.reach[parent]);
        }
        self.last = best_budget(curve, &self.reach, self.draft_seconds.unwrap_or(0.0));
        self.last
    }

    /// Learns from a verified round: `full` is the tree as drafted, its first `verified` nodes were verified,
    /// `path` (node indices from the root) was accepted and `bonus` is the target's token after it. A node past
    /// the budget counts as accepted when its parent ends the path and it holds the bonus, on the main chain (or
    /// anywhere when side branches are followed).
    pub fn observe(&mut self, full: &TokenTree, verified: usize, path: &[usize], bonus: u32, follow_side: bool, draft_seconds: f64) {
        let main = main_chain_len(full);
        let last = path.last().copied().unwrap_or(0);
        for i in 1..full.len().min(self.max_nodes) {
            let Some(parent) = full.parents[i] else { continue };
            if !path.contains(&parent) {
                // The parent was not accepted: nothing is learnt about this node given its parent.
                continue;
            }
            let accepted = if i < verified { path.contains(&i) } else { parent == last && full.tokens[i] == bonus && (i < main || follow_side) };
            let c = &mut self.conditional[i];
            *c += self.alpha * (f64::from(u8::from(accepted)) - *c);
        }
        self.draft_seconds = Some(match self.draft_seconds {
            Some(old) => old + self.alpha * (draft_seconds - old),
            None => draft_seconds,
        });
    }
}

/// Nodes 0..n of the main chain (node i's parent is i - 1), the root included.
pub(crate) fn main_chain_len(tree: &TokenTree) -> usize {
    1 + (1..tree.len()).take_while(|&i| tree.parents[i] == Some(i - 1)).count()
}

/// The node count n in 2..=reach.len() maximising (1 + sum of reach[1..n]) / (curve(n) + draft_seconds), where
/// reach[i] is P(node i accepted); ties go to the smaller tree.
pub(crate) fn best_budget(curve: &CostCurve, reach: &[f64], draft_seconds: f64) -> usize {
    let mut expected = 1.0 + reach.get(1).copied().unwrap_or(0.0);
    let mut best = (2.min(reach.len().max(1)), f64::NEG_INFINITY);
    for n in 2..=reach.len() {
        if n > 2 {
            expected += reach[n - 1];
        }
        let rate = expected / (curve.seconds(n) + draft_seconds).max(1e-12);
        if rate > best.1 * (1.0 + 1e-12) {
            best = (n, rate);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(points: &[(usize, f64)]) -> CostCurve {
        CostCurve::from_points(points.iter().map(|&(n, t)| (n, t / 1e3)).collect())
    }

    // A chain: node i at depth i, P(accepted) 0.6 / 0.3 / 0.15 / 0.05 (conditional 0.6, 0.5, 0.5, 1/3).
    const REACH: [f64; 5] = [1.0, 0.6, 0.3, 0.15, 0.05];

    #[test]
    fn picks_the_hand_computed_optimum() {
        // Verify 10 / 10.5 / 12 / 14 / 17 ms for 1..5 tokens, drafting 2 ms. rate(n) = E / (T(n) + 2):
        // n=2: 1.6 / 12.5 = 0.1280; n=3: 1.9 / 14 = 0.1357; n=4: 2.05 / 16 = 0.1281; n=5: 2.1 / 19 = 0.1105.
        let curve = ms(&[(1, 10.0), (2, 10.5), (3, 12.0), (4, 14.0), (5, 17.0)]);
        assert_eq!(best_budget(&curve, &REACH, 0.002), 3);
        // More drafting cost makes the extra nodes relatively cheaper: at 20 ms, n=4 (2.05/34) beats n=3 (1.9/32).
        assert_eq!(best_budget(&curve, &REACH, 0.020), 4);
    }

    #[test]
    fn a_flat_curve_takes_the_largest_tree_and_a_steep_one_the_smallest() {
        let flat = ms(&[(1, 10.0), (5, 10.0)]);
        assert_eq!(best_budget(&flat, &REACH, 0.002), 5);
        let steep = ms(&[(1, 10.0), (2, 20.0), (3, 30.0), (4, 40.0), (5, 50.0)]);
        assert_eq!(best_budget(&steep, &REACH, 0.002), 2);
        // Nodes that are never accepted are not worth any cost, however small.
        let gentle = ms(&[(1, 10.0), (5, 10.4)]);
        assert_eq!(best_budget(&gentle, &[1.0, 0.6, 0.0, 0.0, 0.0], 0.002), 2);
    }

    #[test]
    fn learns_acceptance_by_node_and_sizes_the_tree_with_it() {
        // Root -> 1 -> 2 -> 3 (the main chain), plus a side child 4 of the root.
        let mut tree = TokenTree::default();
        for (t, p) in [(9, None), (1, Some(0)), (2, Some(1)), (3, Some(2)), (7, Some(0))] {
            tree.push(t, p);
        }
        let curve = ms(&[(1, 10.0), (2, 10.5), (3, 12.0), (4, 14.0), (5, 17.0)]);
        let mut b = NodeBudget::new(5, 0.5);
        assert_eq!(b.choose(&tree, false), 5, "no curve yet: the whole tree");
        b.set_curve(curve);
        // Every round: node 1 accepted, node 2 verified and rejected (the bonus is 8).
        for _ in 0..20 {
            b.observe(&tree, 3, &[0, 1], 8, false, 0.002);
        }
        assert!(b.conditional[1] > 0.99 && b.conditional[2] < 0.01, "{:?}", b.conditional);
        // Node 3's parent was never accepted: it keeps its prior; node 4 (a side child of the root) is never
        // accepted in a lossless walk.
        assert_eq!(b.conditional[3], PRIOR);
        assert!(b.conditional[4] < 0.01);
        assert_eq!(b.choose(&tree, false), 2, "only node 1 pays");
        assert_eq!(b.depth_hint(), 2, "draft node 1 and the look-ahead node 2 only");
        // Past the budget: verified 2 nodes, path [0, 1], and the bonus equals node 2's token -> node 2 learnt
        // as accepted without being verified.
        for _ in 0..20 {
            b.observe(&tree, 2, &[0, 1], 2, false, 0.002);
        }
        assert!(b.conditional[2] > 0.99);
        // reach 1 / 1 / 0.5 (node 3 keeps its prior) / 0 (side): n=4 gives 3.5 / 16 ms against 3 / 14 ms at n=3.
        assert_eq!(b.choose(&tree, false), 4);
        // A side node that would be accepted is worth verifying only when side branches are followed.
        b.conditional[4] = 1.0;
        assert_eq!(b.choose(&tree, false), 4);
        assert_eq!(b.choose(&tree, true), 5);
        assert_eq!(b.depth_hint(), 5);
        b.begin_request();
        assert_eq!(b.depth_hint(), 5, "a new request drafts as deep as allowed");
        assert!(b.conditional[2] > 0.99 && b.conditional[4] == 1.0, "and keeps what earlier requests taught");
        // A side child holding the target's token ends a lossless round as the bonus: not accepted, unless side
        // branches are followed.
        let mut side = NodeBudget::new(5, 1.0);
        side.observe(&tree, 2, &[0], 7, false, 0.002);
        assert_eq!(side.conditional[4], 0.0);
        side.observe(&tree, 2, &[0], 7, true, 0.002);
        assert_eq!(side.conditional[4], 1.0);
    }
}
