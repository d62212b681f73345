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

/// Where the field of serde's "unknown field `X`" message is written, for the places serde cannot say: inside an
/// internally tagged enum (`drafter: {kind: ngram, ...}`) it buffers the mapping and reports line 1, column 1. The
/// first `X:` written as a key (block or flow style) is taken.
pub(crate) fn unknown_field_position(text: &str, message: &str) -> Option<(usize, usize)> {
    let field = message.split("unknown field `").nth(1)?.split('`').next()?;
    for (i, line) in text.lines().enumerate() {
        let code = line.split(" #").next().unwrap_or(line);
        let mut from = 0;
        while let Some(at) = code[from..].find(field) {
            let start = from + at;
            let before = code[..start].chars().next_back();
            let after = code[start + field.len()..].trim_start();
            if before.is_none_or(|c| c == ' ' || c == '{' || c == ',' || c == '-') && after.starts_with(':') {
                return Some((i + 1, start + 1));
            }
            from = start + field.len();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_unknown_fields_in_flow_and_block_mappings() {
        let text = "model: x\nstrategy:\n  drafter: {kind: ngram, sizes: 1, size: 3}\n  window:\n    colour: red\n";
        assert_eq!(unknown_field_position(text, "unknown field `size`, expected one of `a`"), Some((3, 36)));
        assert_eq!(unknown_field_position(text, "unknown field `colour`"), Some((5, 5)));
        assert_eq!(unknown_field_position(text, "unknown field `absent`"), None);
        assert_eq!(unknown_field_position(text, "invalid type"), None);
    }

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
