//! Finds the line of a dotted key path in YAML text, for errors found after parsing (serde only knows
//! positions while it parses). Block mappings only; good enough to point a user at the right line.

/// Returns the 1-based (line, column) of the last key in `path`, or of the deepest prefix found.
pub(crate) fn key_position(text: &str, path: &[String]) -> Option<(usize, usize)> {
    let mut best = None;
    let mut parent_indent: Option<usize> = None;
    let mut start = 0usize;
    let lines: Vec<&str> = text.lines().collect();
    'outer: for key in path {
        let mut i = start;
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                i += 1;
                continue;
            }
            if let Some(p) = parent_indent {
                if indent <= p && i > start {
                    break;
                }
            }
            let body = trimmed.strip_prefix("- ").unwrap_or(trimmed);
            if body.starts_with(&format!("{key}:")) {
                best = Some((i + 1, indent + 1 + (trimmed.len() - body.len())));
                parent_indent = Some(indent);
                start = i + 1;
                continue 'outer;
            }
            i += 1;
        }
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_keys() {
        let text = "model: x\ngeneration:\n  max_tokens: 3\n  top_p: 2\nbackend:\n  top_p: 9\n";
        let p = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(key_position(text, &p(&["generation", "top_p"])), Some((4, 3)));
        assert_eq!(key_position(text, &p(&["backend", "top_p"])), Some((6, 3)));
        assert_eq!(key_position(text, &p(&["model"])), Some((1, 1)));
        assert_eq!(key_position(text, &p(&["missing"])), None);
    }
}
