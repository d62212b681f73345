//! Token-tree speculative decoding with a draft head (docs/METHODS.md sections 3 and 4). Each round: the head
//! proposes ranked candidate continuations from the target's own hidden states; prompt lookup adds its
//! continuation when it finds one (hybrid drafting: it is free); the candidates are merged into a trie rooted at
//! the pending token and verified in ONE target pass with the tree mask and depth positions; the longest path
//! whose tokens equal the target's argmax is accepted, its KV rows compacted into contiguous slots, the target's
//! own next token is the bonus, and the head is fed the hidden states of the accepted path from the same pass
//! (no extra target call).
//!
//! Side branches, decided by measurement at load ([`LanguageModel::side_branches`], engine/model/invariance.rs):
//! - ONNX Runtime's attention (measured, SmolLM2 int4): a tree pass is NOT bitwise equal to chain passes for
//!   nodes off the main chain. A node whose ancestors are not the consecutive nodes 0, 1, ..., d sees its context
//!   at other key indices (siblings masked in between), the attention reductions group the same terms
//!   differently, and with int8 activations the rounding difference flips near-ties: greedy output left AR's at
//!   token 61 of a 256-token chat answer. Nodes of the MAIN chain (the first, best candidate, laid out first) see
//!   exactly what a chain pass sees, plus masked keys only after them, and match bitwise. So there a lossless
//!   pipeline accepts nodes only along the main chain; a side child that holds the target's token ends the round
//!   as the bonus (it is that token anyway).
//! - The engine's attention kernel sums each row over its visible keys alone (engine/kernels/attention.rs), so
//!   every node equals the chain pass over its own path and the probe finds side branches exact: the walk may follow
//!   them losslessly, and the tree is then laid out level by level ([`trie::level_order`]) so that a node budget's
//!   prefix holds the first depth's alternatives before deeper guesses.
//!
//! Following exact side branches is opt-in (`side_branches: exact`): on an AMD EPYC Zen 3, where a third verify row
//! costs ~0.2 of a target step, the SmolLM2 EAGLE head alone ran 2-5% slower with them in three runs (side nodes
//! carried a fifth of its accepted tokens and cut target calls 4%), the hybrids and Medusa within the run-to-run
//! spread (docs/HEADS.md "Side branches, exact"). With `allow_lossy` the walk follows side branches whatever the
//! probe says.
//!
//! Lossless: at each node the target's own token is drawn (argmax under greedy decoding, a draw from its processed
//! distribution under sampling) and the walk moves to the child holding that token, if any; otherwise that token
//! is the bonus. The drafts are deterministic proposals, so every output token is exactly the target's draw given
//! the tokens before it: greedy output equals AR and sampled output follows the target's distribution (tested:
//! tests/draft_heads.rs). No draft probabilities are needed, which is what makes collapsed CTC candidates usable.
//!
//! Tree size: static (`max_nodes` / `max_depth` from the YAML), or with `window.policy: cost_model` chosen each
//! round from the verify-cost curve measured at load and the running acceptance of each node
//! ([`super::budget::NodeBudget`]; `max_nodes` is then the upper bound).

use std::time::Instant;

use super::budget::{main_chain_len, NodeBudget, TreeRound};
use super::cost;
use super::guard::PayoffGuard;
use super::head::HeadDrafter;
use super::ngram::NgramDrafter;
use crate::contract::draft_head::HeadKind;
use crate::error::Result;
use crate::model::{trie, LanguageModel, SideBranches, TokenTree};
use crate::stats::Details;
use crate::strategy::{decode_loop, DecodeContext, RoundOutcome, Strategy};

/// Tree shape limits from the config.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TreeShape {
    /// Most nodes in one verification pass, the pending token included.
    pub max_nodes: usize,
    /// Most draft tokens below the pending token.
    pub max_depth: usize,
}

/// A hybrid's lookup-only rounds (prompt lookup found a continuation; the tree is that chain), judged and sized on
/// their own: a lookup chain is accepted deep (~80-90% per node past depth 2 on SmolLM2) and costs no model call,
/// where a head's tree is accepted at ~55-60% and costs a head call. With one guard and one node budget for both,
/// the Medusa hybrid with match-length lookup ran at 1.18x the fastest AR against lookup alone's 1.32x, with LOWER
/// tau (1.66 vs 1.86) although it drafts everything lookup does: the shared budget sized lookup chains by the head's
/// acceptance, capped them at the head's depth hint, and the guard stopped lookup when head rounds did not pay.
#[derive(Debug, Clone)]
struct LookupRounds {
    guard: PayoffGuard,
    sizer: Option<NodeBudget>,
}

/// Speculative decoding with a draft head and tree verification.
pub(crate) struct TreeSpeculative {
    head: HeadDrafter,
    ngram: Option<NgramDrafter>,
    shape: TreeShape,
    /// The tree as drafted (up to `shape.max_nodes`); `tree` is the prefix of it that is verified.
    full: TokenTree,
    tree: TokenTree,
    /// Chooses the verified prefix from the cost curve (`window.policy: cost_model`); `None` verifies it all.
    sizer: Option<NodeBudget>,
    /// The payoff guard and node budget of a hybrid's lookup-only rounds (see [`LookupRounds`]).
    lookup_rounds: LookupRounds,
    candidates: Vec<Vec<u32>>,
    path: Vec<usize>,
    /// The payoff guard of the head's rounds (of every round without prompt lookup).
    guard: PayoffGuard,
    /// The walk accepts side nodes: the load-time probe found them exact, or the user allowed a lossy walk.
    follow_side_branches: bool,
    /// `allow_lossy`: side branches followed without the probe, and prompt lookup's rounds call the head too.
    lossy: bool,
    /// What the load-time probe found (`None` before `prepare`, or with `allow_lossy`).
    side_branches: Option<SideBranches>,
    /// `side_branches: exact`: probe at load and follow side branches if exact.
    probe_side_branches: bool,
}

impl TreeSpeculative {
    /// A strategy drafting with `head` (and prompt lookup when `ngram` is given) within `shape`.
    pub fn new(head: HeadDrafter, ngram: Option<NgramDrafter>, shape: TreeShape) -> Self {
        TreeSpeculative {
            head,
            ngram,
            shape,
            full: TokenTree::default(),
            tree: TokenTree::default(),
            sizer: None,
            lookup_rounds: LookupRounds { guard: PayoffGuard::new(false), sizer: None },
            candidates: Vec::new(),
            path: Vec::new(),
            guard: PayoffGuard::new(false),
            follow_side_branches: false,
            lossy: false,
            side_branches: None,
            probe_side_branches: false,
        }
    }

    /// Follows side branches where the load-time probe finds them exact (`side_branches: exact`; off by default,
    /// see the module notes); `allow_lossy` follows them regardless.
    pub(crate) fn with_side_branches_when_exact(mut self, on: bool) -> Self {
        self.probe_side_branches = on;
        self
    }

    /// Follows side branches whether or not they are exact (`allow_lossy`; see the module notes). Without it the
    /// load-time probe decides.
    pub(crate) fn with_lossy_side_branches(mut self, on: bool) -> Self {
        self.lossy = on;
        self.follow_side_branches = on;
        self
    }

    /// Chooses the tree size each round from the measured verify-cost curve (see [`NodeBudget`]) instead of always
    /// verifying `max_nodes`; `alpha` smooths the running acceptance and drafting cost.
    /// `learn_costs`: correct the load-time curve with the passes decoding runs (`window.learn_costs`).
    pub(crate) fn with_cost_model(mut self, on: bool, alpha: f64, learn_costs: bool) -> Self {
        // EAGLE runs once per depth: its drafting is priced per call (see `NodeBudget::priced_per_depth`).
        let per_depth = self.head.kind() == HeadKind::Eagle;
        self.sizer = on.then(|| NodeBudget::new(self.shape.max_nodes, alpha).priced_per_depth(per_depth).learning_costs(learn_costs));
        self.lookup_rounds.sizer = on.then(|| NodeBudget::new(self.shape.max_nodes, alpha).learning_costs(learn_costs));
        self
    }

    /// Stops drafting while it does not pay (see [`PayoffGuard`]); off unless asked for.
    pub(crate) fn with_fallback(mut self, on: bool) -> Self {
        self.guard = PayoffGuard::new(on);
        self.lookup_rounds.guard = PayoffGuard::new(on);
        self
    }
}

impl Strategy for TreeSpeculative {
    fn name(&self) -> &'static str {
        "speculative"
    }

    fn exact_under_sampling(&self) -> bool {
        true
    }

    fn verifies_in_batches(&self) -> bool {
        true
    }

    fn backend_seconds(&self) -> f64 {
        self.head.backend_seconds()
    }

    fn backend_calls(&self) -> u64 {
        self.head.backend_calls()
    }

    fn prepare(&mut self, target: &mut LanguageModel) -> Result<()> {
        if !self.lossy && self.probe_side_branches {
            // After the batch-invariance probe (the pipeline runs it first): chain passes in the chosen mode are
            // the reference the tree's nodes are compared with.
            let side = target.side_branches()?;
            self.side_branches = Some(side);
            self.follow_side_branches = side == SideBranches::Exact;
        }
        if let Some(sizer) = self.sizer.as_mut().filter(|s| s.needs_curve()) {
            // A tree pass of n nodes runs n rows like a chain pass of n tokens: the chain curve prices it.
            let max = sizer.max_nodes().min(64).min(target.capacity() / 2).max(2);
            let curve = cost::measure_or_load(target, max)?;
            if let Some(lookup) = self.lookup_rounds.sizer.as_mut() {
                lookup.set_curve(curve.clone());
            }
            sizer.set_curve(curve);
        }
        Ok(())
    }

    fn generate(&mut self, ctx: &mut DecodeContext<'_, '_>) -> Result<()> {
        self.head.reset();
        self.guard.begin_request();
        self.lookup_rounds.guard.begin_request();
        for sizer in self.sizer.iter_mut().chain(self.lookup_rounds.sizer.iter_mut()) {
            sizer.begin_request();
        }
        let TreeSpeculative { head, ngram, shape, full, tree, sizer, lookup_rounds, candidates, path, guard, follow_side_branches, lossy, .. } = self;
        let follow_side = *follow_side_branches;
        let lossy = *lossy;
        let mut lookup_only_rounds = 0usize;
        let mut side_tokens = 0usize;
        let mut main_tokens: Vec<u32> = Vec::new();
        let prompt_len = ctx.prompt.len();
        let result = decode_loop(ctx, |ctx, pending, history, budget| {
            let hidden = head_hidden_size(ctx);
            if head.is_empty() {
                // First round: the prefill's last pass holds the prompt's newest hidden states.
                let states = ctx.target.last_hidden_states().unwrap_or(&[]);
                let rows = states.len() / hidden.max(1);
                let first = prompt_len - rows;
                for r in rows.saturating_sub(head_window(head))..rows {
                    let next = if first + r + 1 < prompt_len { history[first + r + 1] } else { pending };
                    head.push(&states[r * hidden..(r + 1) * hidden], next)?;
                }
            }
            let t_draft = Instant::now();
            let calls_before = head.backend_calls();
            // With a sizer, the head drafts no deeper than its last budget plus the look-ahead node (EAGLE runs once
            // per depth). Lookup is free: its chain may fill the tree (`max_nodes - 1`), its own budget cuts it.
            let head_depth = shape.max_depth.min(budget).min(sizer.as_ref().map_or(usize::MAX, |s| s.depth_hint()));
            let lookup_depth = shape.max_depth.max(shape.max_nodes - 1).min(budget);
            candidates.clear();
            let cont = match ngram.as_ref() {
                Some(ng) if lookup_depth > 0 => ng.draft(history, lookup_depth),
                _ => Vec::new(),
            };
            // The lookup continuation is the main chain. Where side branches are not exact (module notes), the
            // head's candidates would be side branches that cannot add a token; where they are, they would pay only
            // when lookup's first token is wrong (~30% of its rounds) and the head's right (~50%), for a head call
            // every round (0.05-0.13 of a target step for SmolLM2's one-node EAGLE head; docs/HEADS.md). So a round
            // with a continuation is lookup's alone, judged by lookup's own guard and sized by its own budget
            // (`allow_lossy` keeps the older merge of both).
            let lookup_round = !cont.is_empty() && !lossy && lookup_rounds.guard.should_draft();
            let drafting = lookup_round || (head_depth > 0 && guard.should_draft());
            let mut depth = head_depth;
            if lookup_round {
                lookup_only_rounds += 1;
                depth = cont.len();
                candidates.push(cont);
            } else if drafting {
                head.candidates(head_depth.min(head.max_depth()), candidates)?;
                if lossy && !cont.is_empty() {
                    depth = depth.max(cont.len());
                    candidates.insert(0, cont);
                }
            }
            trie::build(pending, candidates, shape.max_nodes.min(budget + 1), depth, full);
            // The best candidate's tokens (the main chain as built), to count what side branches add.
            main_tokens.clear();
            main_tokens.extend_from_slice(&full.tokens[..main_chain_len(full)]);
            if follow_side {
                // Any node may be accepted: alternatives at depth 1 come before deeper guesses, so a node index
                // means the same slot whatever depth a round drafts to (the budget learns acceptance by index).
                trie::level_order(full);
            }
            // The round's node budget sizes the tree now and learns from the verdict below (lookup's own, see
            // `LookupRounds`, in lookup-only rounds).
            let mut round_sizer = if lookup_round { lookup_rounds.sizer.as_mut() } else { sizer.as_mut() };
            let verified = round_sizer.as_deref_mut().map_or(full.len(), |s| s.choose(full, follow_side));
            tree.set_prefix_of(full, verified);
            let draft_seconds = t_draft.elapsed().as_secs_f64();
            ctx.stats.draft_seconds += draft_seconds;

            let t_verify = Instant::now();
            if tree.len() == 1 {
                // Nothing to verify: a plain step (padded when the target needs it; a one-node tree pass would
                // not be), and the head learns the new position.
                let logits = ctx.target.append(&[pending])?;
                let pass_seconds = t_verify.elapsed().as_secs_f64();
                for s in sizer.iter_mut().chain(lookup_rounds.sizer.iter_mut()) {
                    s.observe_pass(1, pass_seconds);
                }
                ctx.stats.target_calls += 1;
                let next = ctx.sampler.sample(logits, history);
                let states = ctx.target.last_hidden_states().unwrap_or(&[]);
                head.push(&states[..hidden], next)?;
                let seconds = t_verify.elapsed().as_secs_f64();
                ctx.stats.verify_seconds += seconds;
                // Every plain step prices both guards' reference (the step's cost does not depend on who skipped).
                guard.plain(seconds);
                lookup_rounds.guard.plain(seconds);
                return Ok(RoundOutcome { accepted: 0, next });
            }
            let vocab = ctx.target.vocab_size();
            // Nodes 0..main hold the main chain (node i's parent is i - 1): their logits equal a chain pass's.
            let main = main_chain_len(tree);
            let logits = ctx.target.eval_tree(tree)?;
            let pass_seconds = t_verify.elapsed().as_secs_f64();
            ctx.stats.target_calls += 1;
            // The walk: draw the target's token at each node; follow the child holding it.
            path.clear();
            path.push(0);
            let mut cur = 0;
            let bonus = loop {
                let t = ctx.sampler.sample(&logits[cur * vocab..(cur + 1) * vocab], history);
                match (cur + 1..tree.len()).find(|&i| tree.parents[i] == Some(cur) && tree.tokens[i] == t) {
                    Some(child) if child < main || follow_side => {
                        history.push(t);
                        path.push(child);
                        cur = child;
                    }
                    // No child holds it, or only a side child (whose own logits are not exact): t is the bonus.
                    _ => break t,
                }
            };
            ctx.target.commit_tree_path(path)?;
            let on_main = path.iter().zip(main_tokens.iter()).take_while(|&(&n, &t)| tree.tokens[n] == t).count();
            side_tokens += path.len() - on_main;
            if let Some(sizer) = round_sizer {
                let head_calls = head.backend_calls() - calls_before;
                let later_call_seconds = if head_calls > 1 { head.later_call_seconds() } else { 0.0 };
                sizer.observe(&TreeRound { full, verified: tree.len(), path, bonus, follow_side, draft_seconds, head_calls, later_call_seconds });
            }
            // Both budgets price passes by the same machine: each learns every pass (engine/strategy/speculative/
            // cost.rs `LiveCurve`).
            for s in sizer.iter_mut().chain(lookup_rounds.sizer.iter_mut()) {
                s.observe_pass(tree.len(), pass_seconds);
            }
            // The head learns the accepted positions from the same pass: (hidden state, the token after it).
            let states = ctx.target.last_hidden_states().unwrap_or(&[]);
            for (i, &node) in path.iter().enumerate() {
                let next = path.get(i + 1).map_or(bonus, |&n| tree.tokens[n]);
                head.push(&states[node * hidden..(node + 1) * hidden], next)?;
            }
            ctx.stats.verify_seconds += t_verify.elapsed().as_secs_f64();
            let accepted = path.len() - 1;
            let round_guard = if lookup_round { &mut lookup_rounds.guard } else { &mut *guard };
            round_guard.drafted(accepted + 1, t_draft.elapsed().as_secs_f64());
            ctx.stats.record_step(tree.len() - 1, accepted);
            Ok(RoundOutcome { accepted, next: bonus })
        });
        ctx.stats.details = Details::Tree {
            head: self.head.name(),
            head_kind: format!("{:?}", self.head.kind()).to_lowercase(),
            fallback_rounds: self.guard.skipped + self.lookup_rounds.guard.skipped,
            head_seconds: self.head.backend_seconds(),
            lookup_only_rounds,
            side_branches: match (self.lossy, self.side_branches) {
                (true, _) => "lossy",
                (false, Some(side)) => side.as_str(),
                (false, None) => "main_chain",
            }
            .to_string(),
            side_tokens,
        };
        result
    }
}

fn head_hidden_size(ctx: &DecodeContext<'_, '_>) -> usize {
    ctx.target.manifest().dims.hidden_size
}

fn head_window(head: &HeadDrafter) -> usize {
    head.window()
}
