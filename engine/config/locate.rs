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

/// Where the value of serde's "invalid type: string \"x\"" (or integer `5`, floating point `1.5`, boolean `true`)
/// message is written, for the same buffered places: the first `key: x` whose value is exactly that text (block or
/// flow style). Points at the value; its line holds the key.
pub(crate) fn invalid_value_position(text: &str, message: &str) -> Option<(usize, usize)> {
    let rest = message.split("invalid type: ").nth(1).or_else(|| message.split("invalid value: ").nth(1))?;
    let value = match (rest.find('"'), rest.find('`')) {
        (Some(q), b) if b.is_none_or(|b| q < b) => rest[q + 1..].split('"').next()?,
        (_, Some(b)) => rest[b + 1..].split('`').next()?,
        _ => return None,
    };
    if value.is_empty() {
        return None;
    }
    let quoted = [format!("\"{value}\""), format!("'{value}'")];
    for (i, line) in text.lines().enumerate() {
        let code = line.split(" #").next().unwrap_or(line);
        let mut from = 0;
        while let Some(at) = code[from..].find(':') {
            let colon = from + at;
            let after = &code[colon + 1..];
            let lead = after.len() - after.trim_start().len();
            let v = after.trim_start();
            let len = if v.starts_with(value) { Some(value.len()) } else { quoted.iter().find(|q| v.starts_with(q.as_str())).map(String::len) };
            if let Some(len) = len {
                if lead > 0 && v[len..].trim_start().chars().next().is_none_or(|c| c == ',' || c == '}') {
                    return Some((i + 1, colon + 1 + lead + 1));
                }
            }
            from = colon + 1;
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
    fn finds_values_of_the_wrong_type() {
        let text = "model: x\nstrategy:\n  drafter: {kind: head, model: h, ngram: maybe}\n  window:\n    k: lots\n    k_max: '7x'\n";
        assert_eq!(invalid_value_position(text, "invalid type: string \"maybe\", expected true"), Some((3, 42)));
        assert_eq!(invalid_value_position(text, "invalid type: string \"lots\", expected usize"), Some((5, 8)));
        assert_eq!(invalid_value_position(text, "invalid type: string \"7x\", expected usize"), Some((6, 12)));
        assert_eq!(invalid_value_position(text, "invalid type: integer `5`, expected a string"), None);
        assert_eq!(invalid_value_position(text, "unknown field `size`"), None);
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
