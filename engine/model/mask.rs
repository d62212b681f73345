//! Attention masks and positions for the decoder contract's `attention_bias` input (`[S, P + S]`, additive:
//! 0 visible, [`HIDDEN`] hidden). A chain is causal; a token tree lets each node see the context, its ancestors
//! and itself, at position `P + depth`.

/// The additive bias for a hidden position. Large and finite so a fully hidden row cannot produce NaN.
pub(crate) const HIDDEN: f32 = -1.0e9;

/// Writes the causal bias of `s` new tokens after `past` cached ones into `out` (resized, no shrink of capacity).
pub fn causal(out: &mut Vec<f32>, past: usize, s: usize) {
    let t = past + s;
    out.clear();
    out.resize(s * t, 0.0);
    for i in 0..s {
        for v in &mut out[i * t + past + i + 1..(i + 1) * t] {
            *v = HIDDEN;
        }
    }
}

/// A token tree to verify in one forward pass. Node `i` has token `tokens[i]` and parent `parents[i]`
/// (`None` = child of the last context token). Parents come before children (topological order), which the
/// graph's causal order needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenTree {
    /// Token of each node.
    pub tokens: Vec<u32>,
    /// Parent of each node (`None` for the roots).
    pub parents: Vec<Option<usize>>,
}

impl TokenTree {
    /// A chain: each token the child of the previous one.
    pub fn chain(tokens: &[u32]) -> Self {
        TokenTree { tokens: tokens.to_vec(), parents: (0..tokens.len()).map(|i| i.checked_sub(1)).collect() }
    }

    /// Adds a node and returns its index.
    pub fn push(&mut self, token: u32, parent: Option<usize>) -> usize {
        self.tokens.push(token);
        self.parents.push(parent);
        self.tokens.len() - 1
    }

    /// Makes this tree the first `n` nodes of `from` (a prefix of a topological order is a tree), reusing this
    /// tree's buffers.
    pub(crate) fn set_prefix_of(&mut self, from: &TokenTree, n: usize) {
        self.tokens.clear();
        self.tokens.extend_from_slice(&from.tokens[..n]);
        self.parents.clear();
        self.parents.extend_from_slice(&from.parents[..n]);
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// True when the tree has no nodes.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Checks that every parent index comes before its child.
    pub fn validate(&self) -> Result<(), String> {
        if self.tokens.len() != self.parents.len() {
            return Err(format!("{} tokens but {} parents", self.tokens.len(), self.parents.len()));
        }
        for (i, p) in self.parents.iter().enumerate() {
            if let Some(p) = p {
                if *p >= i {
                    return Err(format!("node {i} has parent {p}; parents must come first"));
                }
            }
        }
        Ok(())
    }

    /// Depth of each node (roots have depth 0).
    pub(crate) fn depths(&self) -> Vec<usize> {
        let mut d = vec![0usize; self.len()];
        for i in 0..self.len() {
            if let Some(p) = self.parents[i] {
                d[i] = d[p] + 1;
            }
        }
        d
    }

    /// The nodes from a root down to `node`, in order.
    pub fn path_to(&self, node: usize) -> Vec<usize> {
        let mut path = vec![node];
        let mut cur = node;
        while let Some(p) = self.parents[cur] {
            path.push(p);
            cur = p;
        }
        path.reverse();
        path
    }

    /// Writes the tree's bias (`[S, past + S]`) and positions (`past + depth`).
    pub(crate) fn bias_and_positions(&self, past: usize, bias: &mut Vec<f32>, positions: &mut Vec<i64>) {
        let s = self.len();
        let t = past + s;
        bias.clear();
        bias.resize(s * t, HIDDEN);
        positions.clear();
        let depths = self.depths();
        for i in 0..s {
            let row = &mut bias[i * t..(i + 1) * t];
            row[..past].fill(0.0);
            let mut cur = Some(i);
            while let Some(c) = cur {
                row[past + c] = 0.0;
                cur = self.parents[c];
            }
            positions.push((past + depths[i]) as i64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causal_bias_hides_the_future_only() {
        let mut b = Vec::new();
        causal(&mut b, 2, 2);
        assert_eq!(b, vec![0.0, 0.0, 0.0, HIDDEN, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn tree_nodes_see_only_ancestors() {
        // 0 -> 1, 0 -> 2, 2 -> 3
        let mut t = TokenTree::default();
        let a = t.push(10, None);
        t.push(11, Some(a));
        let c = t.push(12, Some(a));
        t.push(13, Some(c));
        t.validate().unwrap();
        let (mut b, mut p) = (Vec::new(), Vec::new());
        t.bias_and_positions(1, &mut b, &mut p);
        assert_eq!(p, vec![1, 2, 2, 3]);
        let row = |i: usize| b[i * 5..(i + 1) * 5].iter().map(|&v| v == 0.0).collect::<Vec<_>>();
        assert_eq!(row(0), vec![true, true, false, false, false]);
        assert_eq!(row(1), vec![true, true, true, false, false]);
        assert_eq!(row(2), vec![true, true, false, true, false]);
        assert_eq!(row(3), vec![true, true, false, true, true]);
        assert_eq!(t.path_to(3), vec![0, 2, 3]);
    }

    #[test]
    fn chain_is_a_degenerate_tree() {
        let t = TokenTree::chain(&[1, 2, 3]);
        let (mut b, mut p) = (Vec::new(), Vec::new());
        t.bias_and_positions(0, &mut b, &mut p);
        let mut c = Vec::new();
        causal(&mut c, 0, 3);
        assert_eq!(b, c);
        assert_eq!(p, vec![0, 1, 2]);
    }

    #[test]
    fn parents_must_come_first() {
        let t = TokenTree { tokens: vec![1, 2], parents: vec![Some(1), None] };
        assert!(t.validate().is_err());
    }
}
