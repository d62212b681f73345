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
//! look-ahead node).
//!
//! A head that runs once per depth (EAGLE) pays for depth as well as for nodes: drafting d tokens deep is d head
//! calls, so for it ([`NodeBudget::priced_per_depth`]) the drafting cost is `first + later x (depth(n) - 1)` (the
//! running seconds of a round's first call, and of each call after it, for the depth of the n-node prefix) instead
//! of one constant, and the look-ahead depth is
//! drafted only every [`EXPLORE_EVERY`]-th round (it is a whole call, not a free node). Why: on Qwen2.5-Coder-1.5B
//! the EAGLE hybrid drafting 2-3 deep spent 0.12 of a target step per round on head calls and ran at 1.19x the
//! fastest AR, against 1.24x with `max_depth: 1` set by hand (docs/HEADS.md); priced per call, the budget finds
//! the shallow tree itself. Why the first call apart: it finds the head's weights evicted by the target pass, the
//! later ones find them in cache (SmolLM2's one-node head: 553 us, then 195 and 138 us; examples/rust/head_call.rs),
//! and one average price learnt mostly from one-call rounds priced every further depth as a cold call.

use super::cost::{CostCurve, LiveCurve};
use crate::model::TokenTree;

/// Acceptance a node starts a pipeline with: optimistic, so larger trees are tried and their value learned.
const PRIOR: f64 = 0.5;

/// A per-depth head drafts one level past its budget's depth in one round of this many (the look-ahead that keeps
/// the next depth's acceptance learnt costs a head call, so it is not taken every round).
pub(crate) const EXPLORE_EVERY: u64 = 4;

/// Chooses how many nodes of each round's tree to verify.
#[derive(Debug, Clone)]
pub(crate) struct NodeBudget {
    max_nodes: usize,
    alpha: f64,
    curve: Option<LiveCurve>,
    /// Correct the load-time curve with the passes decoding runs (`window.learn_costs`).
    learn_costs: bool,
    /// c_i by node index (index 0, the pending token, is always accepted).
    conditional: Vec<f64>,
    /// Running seconds of one drafting round (head call(s), prompt lookup, trie).
    draft_seconds: Option<f64>,
    /// P(node i accepted) of the tree being sized (scratch).
    reach: Vec<f64>,
    /// Nodes chosen in the last round (the root included).
    last: usize,
    /// Depth of the last round's chosen nodes (tokens below the root).
    last_depth: usize,
    /// The head runs once per depth: drafting is priced per call (see [`NodeBudget::priced_per_depth`]).
    per_depth: bool,
    /// Running seconds of a round's first head call, with the round's other drafting work (per-depth heads), once
    /// a call is seen.
    first_call_seconds: Option<f64>,
    /// Running seconds of each head call after a round's first (per-depth heads), once a round made two.
    later_call_seconds: Option<f64>,
    /// Rounds observed (the exploration clock of a per-depth head).
    rounds: u64,
    /// Depth of each node of the tree being sized (scratch).
    depths: Vec<usize>,
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
            learn_costs: true,
            reach: Vec::with_capacity(max_nodes.max(2)),
            last: max_nodes.max(2),
            last_depth: max_nodes.max(2),
            per_depth: false,
            first_call_seconds: None,
            later_call_seconds: None,
            rounds: 0,
            depths: Vec::with_capacity(max_nodes.max(2)),
        }
    }

    /// Prices drafting per head call when `on`, for a head that runs once per depth (see the module notes).
    pub fn priced_per_depth(mut self, on: bool) -> Self {
        self.per_depth = on;
        self
    }

    /// Most tokens a verification pass may hold (the curve is measured up to this).
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Gives the policy the verify-cost curve measured on this machine (corrected online by
    /// [`NodeBudget::observe_pass`] unless [`NodeBudget::learning_costs`] turned that off).
    pub fn set_curve(&mut self, curve: CostCurve) {
        self.curve = Some(LiveCurve::new(curve, self.learn_costs, self.alpha));
    }

    /// Whether the curve learns from observed passes (`window.learn_costs`, on by default).
    pub fn learning_costs(mut self, on: bool) -> Self {
        self.learn_costs = on;
        self
    }

    /// Learns the price of a target pass over `n` tokens that took `seconds` (every pass of the strategy: trees
    /// of any size, plain steps).
    pub fn observe_pass(&mut self, n: usize, seconds: f64) {
        if let Some(curve) = self.curve.as_mut() {
            curve.observe(n, seconds);
        }
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
        self.last_depth = self.max_nodes;
    }

    /// How many tokens deep to draft: the last round's budget n, i.e. its n - 1 verified drafts plus the
    /// look-ahead node past them (so the budget can grow by one a round); `max_nodes` at the start of a request.
    /// A per-depth head: the depth of the last budget, one deeper every [`EXPLORE_EVERY`]-th round.
    pub fn depth_hint(&self) -> usize {
        if self.per_depth {
            self.last_depth + usize::from(self.rounds.is_multiple_of(EXPLORE_EVERY))
        } else {
            self.last
        }
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
        self.depths.clear();
        self.depths.push(0);
        for i in 1..len {
            let parent = tree.parents[i].unwrap_or(0);
            let c = if i < main || follow_side { self.conditional[i] } else { 0.0 };
            self.reach.push(c * self.reach[parent]);
            self.depths.push(self.depths[parent] + 1);
        }
        let depths = &self.depths;
        let deepest = |n: usize| depths[..n].iter().copied().max().unwrap_or(0);
        // The call prices are learnt only for a per-depth head (see `observe`); until a round made two calls, a
        // later call is priced as a first one.
        self.last = match self.first_call_seconds {
            Some(first) => {
                let later = self.later_call_seconds.unwrap_or(first);
                best_budget(
                    |n| curve.seconds(n),
                    &self.reach,
                    |n| match deepest(n) {
                        0 => 0.0,
                        d => first + later * (d - 1) as f64,
                    },
                )
            }
            None => {
                let draft = self.draft_seconds.unwrap_or(0.0);
                best_budget(|n| curve.seconds(n), &self.reach, |_| draft)
            }
        };
        self.last_depth = deepest(self.last).max(1);
        self.last
    }

    /// Learns from a verified round (see [`TreeRound`]). A node past the budget counts as accepted when its parent
    /// ends the path and it holds the bonus, on the main chain (or anywhere when side branches are followed).
    pub fn observe(&mut self, round: &TreeRound) {
        let &TreeRound { full, verified, path, bonus, follow_side, draft_seconds, head_calls, later_call_seconds } = round;
        self.rounds += 1;
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
        let smooth = |old: Option<f64>, new: f64| Some(old.map_or(new, |old| old + self.alpha * (new - old)));
        self.draft_seconds = smooth(self.draft_seconds, draft_seconds);
        if self.per_depth && head_calls > 0 {
            self.first_call_seconds = smooth(self.first_call_seconds, (draft_seconds - later_call_seconds).max(0.0));
            if head_calls > 1 {
                self.later_call_seconds = smooth(self.later_call_seconds, later_call_seconds / (head_calls - 1) as f64);
            }
        }
    }
}

/// What a verified tree round tells [`NodeBudget::observe`].
pub struct TreeRound<'a> {
    /// The tree as drafted.
    pub full: &'a TokenTree,
    /// Its first `verified` nodes went through the target pass.
    pub verified: usize,
    /// The accepted node indices from the root.
    pub path: &'a [usize],
    /// The target's token after the accepted path.
    pub bonus: u32,
    /// Whether the walk follows side branches (sampling), so side nodes can be accepted.
    pub follow_side: bool,
    /// The round's drafting time.
    pub draft_seconds: f64,
    /// The head calls the round's drafting made (a per-depth head's price per call is learnt from them).
    pub head_calls: u64,
    /// Seconds of those calls after the first (0 with one call or none).
    pub later_call_seconds: f64,
}

/// Nodes 0..n of the main chain (node i's parent is i - 1), the root included.
pub(crate) fn main_chain_len(tree: &TokenTree) -> usize {
    1 + (1..tree.len()).take_while(|&i| tree.parents[i] == Some(i - 1)).count()
}

/// The node count n in 2..=reach.len() maximising (1 + sum of reach[1..n]) / (curve(n) + draft_seconds(n)), where
/// reach[i] is P(node i accepted); ties go to the smaller tree.
pub(crate) fn best_budget(verify_seconds: impl Fn(usize) -> f64, reach: &[f64], draft_seconds: impl Fn(usize) -> f64) -> usize {
    let mut expected = 1.0 + reach.get(1).copied().unwrap_or(0.0);
    let mut best = (2.min(reach.len().max(1)), f64::NEG_INFINITY);
    for n in 2..=reach.len() {
        if n > 2 {
            expected += reach[n - 1];
        }
        let rate = expected / (verify_seconds(n) + draft_seconds(n)).max(1e-12);
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
        assert_eq!(best_budget(|n| curve.seconds(n), &REACH, |_| 0.002), 3);
        // More drafting cost makes the extra nodes relatively cheaper: at 20 ms, n=4 (2.05/34) beats n=3 (1.9/32).
        assert_eq!(best_budget(|n| curve.seconds(n), &REACH, |_| 0.020), 4);
    }

    #[test]
    fn a_flat_curve_takes_the_largest_tree_and_a_steep_one_the_smallest() {
        let flat = ms(&[(1, 10.0), (5, 10.0)]);
        assert_eq!(best_budget(|n| flat.seconds(n), &REACH, |_| 0.002), 5);
        let steep = ms(&[(1, 10.0), (2, 20.0), (3, 30.0), (4, 40.0), (5, 50.0)]);
        assert_eq!(best_budget(|n| steep.seconds(n), &REACH, |_| 0.002), 2);
        // Nodes that are never accepted are not worth any cost, however small.
        let gentle = ms(&[(1, 10.0), (5, 10.4)]);
        assert_eq!(best_budget(|n| gentle.seconds(n), &[1.0, 0.6, 0.0, 0.0, 0.0], |_| 0.002), 2);
    }

    #[test]
    fn a_head_that_runs_once_per_depth_pays_for_each_depth() {
        // Root -> 1 -> 2 -> 3, each node accepted 80% of the time given its parent; verify 10 / 10.5 / 11 / 11.5 ms.
        let tree = TokenTree::chain(&[9, 1, 2, 3]);
        let curve = ms(&[(1, 10.0), (2, 10.5), (3, 11.0), (4, 11.5)]);
        let reach = [1.0, 0.8, 0.64, 0.512];
        // One constant drafting cost of 6 ms: 1.8 / 16.5 < 2.44 / 17 < 2.952 / 17.5, the deepest chain.
        assert_eq!(best_budget(|n| curve.seconds(n), &reach, |_| 0.006), 4);
        // 6 ms per call, one call per depth: 1.8 / 16.5 = 0.109 > 2.44 / 23 = 0.106 > 2.952 / 29.5 = 0.100.
        assert_eq!(best_budget(|n| curve.seconds(n), &reach, |n| 0.006 * (n - 1) as f64), 2);

        // Learnt from rounds: 18 ms of drafting in 3 head calls is 6 ms a call.
        let learn = |b: &mut NodeBudget| {
            b.set_curve(curve.clone());
            b.observe(&TreeRound {
                full: &tree,
                verified: 4,
                path: &[0, 1, 2, 3],
                bonus: 5,
                follow_side: false,
                draft_seconds: 0.018,
                head_calls: 3,
                later_call_seconds: 0.012,
            });
            b.conditional = vec![1.0, 0.8, 0.8, 0.8];
        };
        let mut per_depth = NodeBudget::new(4, 1.0).priced_per_depth(true);
        learn(&mut per_depth);
        assert_eq!(per_depth.choose(&tree, false), 2, "a node one deeper is not worth its call");
        assert_eq!(per_depth.depth_hint(), 1, "no look-ahead call in an ordinary round");
        for round in 2..=EXPLORE_EVERY {
            per_depth.observe(&TreeRound {
                full: &tree,
                verified: 2,
                path: &[0, 1],
                bonus: 2,
                follow_side: false,
                draft_seconds: 0.006,
                head_calls: 1,
                later_call_seconds: 0.0,
            });
            per_depth.conditional = vec![1.0, 0.8, 0.8, 0.8];
            assert_eq!(per_depth.choose(&tree, false), 2);
            let explore = round.is_multiple_of(EXPLORE_EVERY);
            assert_eq!(per_depth.depth_hint(), 1 + usize::from(explore), "round {round}: one deeper every {EXPLORE_EVERY}th");
        }
        // The control: the same rounds priced as one constant drafting cost (18 ms) draft the whole chain.
        let mut constant = NodeBudget::new(4, 1.0);
        learn(&mut constant);
        assert_eq!(constant.choose(&tree, false), 4);
        assert_eq!(constant.depth_hint(), 4);
    }

    #[test]
    fn a_head_whose_later_calls_are_cheap_drafts_deeper() {
        // As above (verify 10 / 10.5 / 11 / 11.5 ms, 80% per node), but the head's first call of a round costs 6 ms
        // (its weights come from memory) and each later one 0.5 ms (they are in cache). Rounds drafting one deep see
        // only first calls; every 4th drafts two deep and shows the cheap second call.
        let tree = TokenTree::chain(&[9, 1, 2, 3]);
        let curve = ms(&[(1, 10.0), (2, 10.5), (3, 11.0), (4, 11.5)]);
        let run = |later_ms: f64| {
            let mut b = NodeBudget::new(4, 0.5).priced_per_depth(true);
            b.set_curve(curve.clone());
            for round in 1..=8u64 {
                let calls = if round.is_multiple_of(EXPLORE_EVERY) { 2 } else { 1 };
                let later = later_ms * (calls - 1) as f64 / 1e3;
                let path: &[usize] = if calls == 2 { &[0, 1, 2] } else { &[0, 1] };
                b.observe(&TreeRound {
                    full: &tree,
                    verified: calls as usize + 1,
                    path,
                    bonus: 5,
                    follow_side: false,
                    draft_seconds: 0.006 + later,
                    head_calls: calls,
                    later_call_seconds: later,
                });
                b.conditional = vec![1.0, 0.8, 0.8, 0.8];
            }
            b.choose(&tree, false)
        };
        // first + later x (depth - 1): 1.8 / 16.5 = 0.109 < 2.44 / 17.5 = 0.139 < 2.952 / 18.5 = 0.160: the chain.
        assert_eq!(run(0.5), 4);
        // The control: later calls as dear as the first (6 ms each) keep it one deep (0.109 > 0.106 > 0.100).
        assert_eq!(run(6.0), 2);
        // One average price per call, as these rounds taught it before (6 ms in one-call rounds, 3.25 ms in the
        // two-call ones, smoothed at 0.5: ~4.6 ms), stops a node short of the chain (0.119 < 0.121 > 0.117).
        assert_eq!(best_budget(|n| curve.seconds(n), &[1.0, 0.8, 0.64, 0.512], |n| 0.0046 * (n - 1) as f64), 3);
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
            b.observe(&TreeRound {
                full: &tree,
                verified: 3,
                path: &[0, 1],
                bonus: 8,
                follow_side: false,
                draft_seconds: 0.002,
                head_calls: 0,
                later_call_seconds: 0.0,
            });
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
            b.observe(&TreeRound {
                full: &tree,
                verified: 2,
                path: &[0, 1],
                bonus: 2,
                follow_side: false,
                draft_seconds: 0.002,
                head_calls: 0,
                later_call_seconds: 0.0,
            });
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
        side.observe(&TreeRound {
            full: &tree,
            verified: 2,
            path: &[0],
            bonus: 7,
            follow_side: false,
            draft_seconds: 0.002,
            head_calls: 0,
            later_call_seconds: 0.0,
        });
        assert_eq!(side.conditional[4], 0.0);
        side.observe(&TreeRound {
            full: &tree,
            verified: 2,
            path: &[0],
            bonus: 7,
            follow_side: true,
            draft_seconds: 0.002,
            head_calls: 0,
            later_call_seconds: 0.0,
        });
        assert_eq!(side.conditional[4], 1.0);
    }
}
