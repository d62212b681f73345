//! The token tree of one SPACE step (docs/METHODS.md section 6). Real tokens: the pending token b and the
//! candidates c_1..c_n, a chain. Mask groups: k mask tokens after a real token (its owner), each mask the child of
//! the one before, the first the child of the owner. As a tree, every real token has two children (the next real
//! token and the first mask of its group), so the tree mask gives exactly SPACE's attention rule: a mask group sees
//! the context, the real tokens up to its owner and its own earlier masks; no later position sees it; a node's
//! position is the context length plus its depth (= its visible tokens - 1).
//!
//! Node ORDER: the real chain first (b, c_1..c_n), then the groups. On ONNX Runtime CPU a tree node computes
//! bitwise what a chain pass computes only when its ancestors sit contiguously at the front of the pass with
//! masked keys only after it (measured in issue 12: nodes with hidden keys in between sum in another order, and
//! int8-activation exports then flip near-ties against AR). With the chain first, every real token is such a node,
//! so greedy SPACE equals AR exactly; the paper's interleaved order (b, [M x k], c_1, [M x k], ...) would not.
//! Masks only need to come after their owner (topological order), which they do.

use crate::model::TokenTree;

/// Which real tokens carry a mask group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Groups {
    /// Every real token (b and each candidate).
    All,
    /// Only the last real token.
    Last,
}

/// A deliberately wrong layout, for negative controls in tests only.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    /// The correct layout.
    #[default]
    None,
    /// The paper's interleaved order as ONE causal chain: later real tokens see the earlier mask groups and sit
    /// at positions that count the masks. Outputs must then differ from AR.
    MasksVisible,
}

/// One step's tree plus where its real tokens and mask groups are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StepLayout {
    /// The nodes to evaluate.
    pub tree: TokenTree,
    /// Node index of real token j (0 = b, j = c_j).
    pub real: Vec<usize>,
    /// Node index of the first mask of real token j's group, if it has one.
    pub group: Vec<Option<usize>>,
    /// Masks per group.
    pub masks: usize,
}

impl StepLayout {
    /// Nodes in the step: (n + 1) real tokens plus the groups (the tests' size checks).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.tree.len()
    }

    /// Lays out b = `pending`, the `candidates` and groups of `masks` copies of `mask` (see the module notes).
    pub fn build(&mut self, pending: u32, candidates: &[u32], masks: usize, mask: u32, groups: Groups, fault: Fault) {
        let n = candidates.len();
        let owns = |j: usize| masks > 0 && (groups == Groups::All || j == n);
        let tree = &mut self.tree;
        tree.tokens.clear();
        tree.parents.clear();
        self.real.clear();
        self.group.clear();
        self.masks = masks;
        if fault == Fault::MasksVisible {
            for (j, &t) in std::iter::once(&pending).chain(candidates).enumerate() {
                self.real.push(tree.push(t, tree.len().checked_sub(1)));
                self.group.push(owns(j).then_some(tree.len()));
                for _ in 0..masks * usize::from(owns(j)) {
                    tree.push(mask, Some(tree.len() - 1));
                }
            }
            return;
        }
        for (j, &t) in std::iter::once(&pending).chain(candidates).enumerate() {
            self.real.push(tree.push(t, j.checked_sub(1)));
        }
        for j in 0..=n {
            if !owns(j) {
                self.group.push(None);
                continue;
            }
            self.group.push(Some(tree.len()));
            let mut parent = j;
            for _ in 0..masks {
                parent = tree.push(mask, Some(parent));
            }
        }
    }

    /// Whether the real tokens are nodes 0..=n (their logits rows are then one contiguous block).
    pub(crate) fn real_chain_in_front(&self) -> bool {
        self.real.iter().enumerate().all(|(i, &r)| i == r)
    }
}

/// Nodes of a step with `n` candidates and `masks` masks per group.
pub(crate) fn step_len(n: usize, masks: usize, groups: Groups) -> usize {
    let owners = if masks == 0 {
        0
    } else {
        match groups {
            Groups::All => n + 1,
            Groups::Last => 1,
        }
    };
    n + 1 + owners * masks
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u32 = 99;

    /// The dense bias of a layout as rows of '1' (visible) and '.' (hidden) over the new tokens only (the
    /// context is checked separately: always visible) and the positions minus the context length.
    fn render(l: &StepLayout, past: usize) -> (Vec<String>, Vec<i64>) {
        let (mut bias, mut pos) = (Vec::new(), Vec::new());
        l.tree.bias_and_positions(past, &mut bias, &mut pos);
        let s = l.len();
        let t = past + s;
        let rows = (0..s)
            .map(|i| {
                assert!(bias[i * t..i * t + past].iter().all(|&v| v == 0.0), "row {i} must see the whole context");
                bias[i * t + past..(i + 1) * t].iter().map(|&v| if v == 0.0 { '1' } else { '.' }).collect()
            })
            .collect();
        (rows, pos.iter().map(|&p| p - past as i64).collect())
    }

    fn layout(n: usize, k: usize, groups: Groups) -> StepLayout {
        let cands: Vec<u32> = (1..=n as u32).collect();
        let mut l = StepLayout::default();
        l.build(0, &cands, k, M, groups, Fault::None);
        l
    }

    #[test]
    fn k1_all_by_hand() {
        let l = layout(1, 1, Groups::All);
        assert_eq!(l.tree.tokens, vec![0, 1, M, M]);
        let (rows, pos) = render(&l, 3);
        assert_eq!(rows, vec!["1...", "11..", "1.1.", "11.1"]);
        assert_eq!(pos, vec![0, 1, 1, 2]);
        assert_eq!(l.real, vec![0, 1]);
        assert_eq!(l.group, vec![Some(2), Some(3)]);
    }

    #[test]
    fn k2_all_by_hand() {
        let l = layout(2, 2, Groups::All);
        assert_eq!(l.tree.tokens, vec![0, 1, 2, M, M, M, M, M, M]);
        let (rows, pos) = render(&l, 5);
        #[rustfmt::skip]
        let want = vec![
            "1........", // b
            "11.......", // c1
            "111......", // c2
            "1..1.....", // b's masks
            "1..11....",
            "11...1...", // c1's masks
            "11...11..",
            "111....1.", // c2's masks
            "111....11",
        ];
        assert_eq!(rows, want);
        assert_eq!(pos, vec![0, 1, 2, 1, 2, 2, 3, 3, 4]);
    }

    #[test]
    fn k2_last_by_hand() {
        let l = layout(2, 2, Groups::Last);
        let (rows, pos) = render(&l, 0);
        assert_eq!(rows, vec!["1....", "11...", "111..", "1111.", "11111"]);
        assert_eq!(pos, vec![0, 1, 2, 3, 4]);
        assert_eq!(l.group, vec![None, None, Some(3)]);
    }

    #[test]
    fn k3_first_step_has_one_group() {
        // After the prefill (or a rejection in `last` mode) there are no candidates: [b, M x k].
        let l = layout(0, 3, Groups::All);
        let (rows, pos) = render(&l, 2);
        assert_eq!(rows, vec!["1...", "11..", "111.", "1111"]);
        assert_eq!(pos, vec![0, 1, 2, 3]);
    }

    /// SPACE's rule written from the roles, independently of the tree: (is_real, owner j, index in group m).
    fn expected(n: usize, k: usize, groups: Groups) -> (Vec<String>, Vec<i64>) {
        let owners: Vec<usize> = match groups {
            Groups::All => (0..=n).collect(),
            Groups::Last => vec![n],
        };
        let mut roles = (0..=n).map(|j| (true, j, 0)).collect::<Vec<_>>();
        for &j in &owners {
            roles.extend((0..k).map(|m| (false, j, m)));
        }
        let visible = |q: (bool, usize, usize), key: (bool, usize, usize)| match (q, key) {
            ((_, jq, _), (true, jk, _)) => jk <= jq, // real keys up to the query's own real token / owner
            ((true, _, _), (false, _, _)) => false,  // masks are hidden from every real token
            ((false, jq, mq), (false, jk, mk)) => jq == jk && mk <= mq, // own group, earlier masks
        };
        let rows = roles.iter().map(|&q| roles.iter().map(|&key| if visible(q, key) { '1' } else { '.' }).collect()).collect();
        let pos = roles.iter().map(|&q| roles.iter().filter(|&&key| visible(q, key)).count() as i64 - 1).collect();
        (rows, pos)
    }

    #[test]
    fn every_k_from_1_to_6_follows_the_rule() {
        for k in 1..=6 {
            for n in 0..=k {
                for groups in [Groups::All, Groups::Last] {
                    let l = layout(n, k, groups);
                    assert_eq!(l.len(), step_len(n, k, groups));
                    assert!(l.real_chain_in_front());
                    assert_eq!(render(&l, 4), expected(n, k, groups), "k {k}, n {n}, {groups:?}");
                }
            }
            assert_eq!(step_len(k, k, Groups::All), (k + 1) * (k + 1));
        }
    }

    #[test]
    fn the_fault_breaks_the_rule() {
        // Negative control of the test above: the interleaved causal chain differs from the rule.
        let mut l = StepLayout::default();
        l.build(0, &[1, 2], 2, M, Groups::All, Fault::MasksVisible);
        assert!(!l.real_chain_in_front());
        assert_ne!(render(&l, 0), expected(2, 2, Groups::All));
    }
}
