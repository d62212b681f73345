//! Candidate continuations merged into one token tree (a trie) rooted at the pending token, so a single target
//! pass verifies every candidate: shared prefixes become shared nodes (docs/METHODS.md section 3).

use crate::model::TokenTree;

/// Builds the tree `root -> candidates...`: node 0 is `root` (the pending token, not yet fed to the target),
/// each candidate sequence hangs below it, prefixes shared. Candidates come best first; a candidate's tokens are
/// added only while the tree has fewer than `max_nodes` nodes (root included) and its depth stays within
/// `max_depth` tokens below the root, so the best candidates always get in whole.
pub fn build(root: u32, candidates: &[Vec<u32>], max_nodes: usize, max_depth: usize, tree: &mut TokenTree) {
    tree.tokens.clear();
    tree.parents.clear();
    tree.push(root, None);
    for cand in candidates {
        let mut cur = 0usize;
        for &t in cand.iter().take(max_depth) {
            // Children of `cur` appear after it; a linear scan is fine for the few nodes a CPU tree has.
            let existing = (cur + 1..tree.len()).find(|&i| tree.parents[i] == Some(cur) && tree.tokens[i] == t);
            cur = match existing {
                Some(i) => i,
                None if tree.len() < max_nodes => tree.push(t, Some(cur)),
                None => break,
            };
        }
    }
}

/// Lays `tree` out level by level: every node of depth d before any of depth d + 1, each level in its old order
/// (a stable sort by depth; parents are renumbered). Still topological. Used where any node may be accepted
/// (side branches exact), so a node budget's prefix takes the first depth's alternatives before deeper guesses.
pub fn level_order(tree: &mut TokenTree) {
    let depths = tree.depths();
    let mut order: Vec<usize> = (0..tree.len()).collect();
    order.sort_by_key(|&i| depths[i]);
    if order.iter().enumerate().all(|(new, &old)| new == old) {
        return;
    }
    let mut new_index = vec![0usize; tree.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let tokens: Vec<u32> = order.iter().map(|&old| tree.tokens[old]).collect();
    let parents: Vec<Option<usize>> = order.iter().map(|&old| tree.parents[old].map(|p| new_index[p])).collect();
    tree.tokens = tokens;
    tree.parents = parents;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_prefixes_share_nodes_and_limits_hold() {
        let mut t = TokenTree::default();
        build(9, &[vec![1, 2, 3], vec![1, 2, 4], vec![5], vec![1, 6, 7]], 16, 8, &mut t);
        assert_eq!(t.tokens, vec![9, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(t.parents, vec![None, Some(0), Some(1), Some(2), Some(2), Some(0), Some(1), Some(6)]);
        t.validate().unwrap();
        // Node budget: the first candidate whole, then what fits.
        build(9, &[vec![1, 2, 3], vec![4, 5]], 5, 8, &mut t);
        assert_eq!(t.tokens, vec![9, 1, 2, 3, 4]);
        // Depth budget.
        build(9, &[vec![1, 2, 3]], 16, 2, &mut t);
        assert_eq!(t.tokens, vec![9, 1, 2]);
        // No candidates: the root alone.
        build(9, &[], 16, 2, &mut t);
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn level_order_puts_each_depth_before_the_next() {
        // 9 -> 1 -> 2 -> 3 (the main chain), 9 -> 4, 9 -> 5, 1 -> 6 -> 7
        let mut t = TokenTree::default();
        build(9, &[vec![1, 2, 3], vec![4], vec![5], vec![1, 6, 7]], 16, 8, &mut t);
        assert_eq!(t.tokens, vec![9, 1, 2, 3, 4, 5, 6, 7]);
        level_order(&mut t);
        assert_eq!(t.tokens, vec![9, 1, 4, 5, 2, 6, 3, 7]);
        assert_eq!(t.parents, vec![None, Some(0), Some(0), Some(0), Some(1), Some(1), Some(4), Some(5)]);
        t.validate().unwrap();
        // Paths keep their tokens: 9 1 6 7.
        assert_eq!(t.path_to(7).iter().map(|&n| t.tokens[n]).collect::<Vec<_>>(), vec![9, 1, 6, 7]);
        // A chain is already in level order.
        let mut chain = TokenTree::chain(&[3, 4, 5]);
        level_order(&mut chain);
        assert_eq!(chain, TokenTree::chain(&[3, 4, 5]));
    }
}
