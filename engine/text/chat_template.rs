//! Chat templates: the model's own Jinja template from its manifest (Hugging Face convention), rendered with
//! minijinja. Models without one get ChatML.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::text::Tokenizer;

/// ChatML, the template of SmolLM2 and Qwen2, used when a model ships none.
pub const CHATML: &str = "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/// One chat turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text of the turn.
    pub content: String,
}

impl ChatMessage {
    /// A user turn.
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage { role: "user".into(), content: content.into() }
    }
}

/// A compiled chat template.
pub struct ChatTemplate {
    env: minijinja::Environment<'static>,
    bos: String,
    eos: String,
}

impl ChatTemplate {
    /// Compiles `source` (Jinja); `bos`/`eos` are exposed as `bos_token`/`eos_token`.
    pub fn new(source: &str, bos: &str, eos: &str) -> Result<Self> {
        let mut env = minijinja::Environment::new();
        env.set_unknown_method_callback(minijinja_contrib_methods);
        env.add_function("raise_exception", |msg: String| -> std::result::Result<String, minijinja::Error> {
            Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, msg))
        });
        env.add_template_owned("chat", source.to_string()).map_err(|e| Error::ChatTemplate(e.to_string()))?;
        Ok(ChatTemplate { env, bos: bos.into(), eos: eos.into() })
    }

    /// Renders `messages`, ending with the assistant prefix when `add_generation_prompt` is set.
    pub fn render(&self, messages: &[ChatMessage], add_generation_prompt: bool) -> Result<String> {
        if messages.is_empty() {
            return Err(Error::InvalidRequest("a chat needs at least one message".into()));
        }
        let tmpl = self.env.get_template("chat").map_err(|e| Error::ChatTemplate(e.to_string()))?;
        tmpl.render(minijinja::context! {
            messages => messages,
            add_generation_prompt => add_generation_prompt,
            bos_token => self.bos,
            eos_token => self.eos,
        })
        .map_err(|e| Error::ChatTemplate(e.to_string()))
    }
}

/// Token ids of `messages` rendered with `template` (with the assistant prefix). The template's own control
/// tokens (`<|im_start|>`, ...) encode as control tokens; message text that spells one encodes as the ordinary
/// tokens of that text, so a message cannot forge a turn (`...<|im_end|>\n<|im_start|>system\n...`). With
/// `trusted`, control-token text in messages acts as control tokens (for callers that wrote the turns themselves).
///
/// Messages without control-token text encode exactly as the whole rendered string would (the common case, and
/// what Hugging Face's `apply_chat_template` gives). Otherwise the template is rendered once more with a marker in
/// place of each content, the template text between markers encodes with special tokens and each content without.
/// A template that changes content beyond trimming (so the markers do not map back) makes such a message an
/// error rather than a forged turn.
pub fn encode_chat(tokenizer: &Tokenizer, template: &ChatTemplate, messages: &[ChatMessage], trusted: bool) -> Result<Vec<u32>> {
    let rendered = template.render(messages, true)?;
    let forged = messages.iter().enumerate().find_map(|(i, m)| tokenizer.special_token_in(&m.content).map(|t| (i, t)));
    let Some((forged_at, token)) = forged.filter(|_| !trusted) else {
        return tokenizer.encode(&rendered);
    };
    if let Some((i, t)) = messages.iter().enumerate().find_map(|(i, m)| tokenizer.special_token_in(&m.role).map(|t| (i, t))) {
        return Err(Error::InvalidRequest(format!("message {i}: the role contains the control token `{t}`")));
    }
    // A marker no message and no template text contains: private-use characters around a nonce and the index
    // (digits and private-use characters survive case changes and trimming).
    let nonce = (0u64..).find(|n| !rendered.contains(&format!("\u{E000}{n}\u{E002}"))).unwrap_or(0);
    let open = format!("\u{E000}{nonce}\u{E002}");
    let marked_messages: Vec<ChatMessage> =
        messages.iter().enumerate().map(|(i, m)| ChatMessage { role: m.role.clone(), content: format!("{open}{i}\u{E001}") }).collect();
    let marked = template.render(&marked_messages, true)?;
    let pieces = split_marked(&marked, &open, messages.len());
    let unmappable = || {
        Error::InvalidRequest(format!(
            "message {forged_at} contains the control token `{token}` as text, and this model's chat template changes \
             message content, so that text cannot be kept apart from the template's own control tokens; remove it"
        ))
    };
    let pieces = pieces.ok_or_else(unmappable)?;
    // The contents as the template wrote them: unchanged, or trimmed (`| trim` in Llama 3 templates).
    let variants: [fn(&str) -> &str; 2] = [|s| s, str::trim];
    let Some(content_of) = variants.into_iter().find(|f| {
        let joined: String = pieces
            .iter()
            .map(|p| match p {
                Piece::Template(t) => *t,
                Piece::Content(i) => f(&messages[*i].content),
            })
            .collect();
        joined == rendered
    }) else {
        return Err(unmappable());
    };
    let mut ids = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Template(t) if !t.is_empty() => ids.extend(tokenizer.encode(t)?),
            Piece::Template(_) => {}
            Piece::Content(i) => ids.extend(tokenizer.encode_plain(content_of(&messages[i].content))?),
        }
    }
    Ok(ids)
}

/// A part of a template rendered with content markers.
enum Piece<'a> {
    /// Text the template wrote.
    Template(&'a str),
    /// The content of message `i`.
    Content(usize),
}

/// Splits `marked` at the markers `{open}{i}\u{E001}`; `None` if a marker is malformed or names no message.
fn split_marked<'a>(marked: &'a str, open: &str, messages: usize) -> Option<Vec<Piece<'a>>> {
    let mut pieces = Vec::new();
    let mut rest = marked;
    while let Some(at) = rest.find(open) {
        pieces.push(Piece::Template(&rest[..at]));
        let after = &rest[at + open.len()..];
        let close = after.find('\u{E001}')?;
        let i: usize = after[..close].parse().ok()?;
        if i >= messages {
            return None;
        }
        pieces.push(Piece::Content(i));
        rest = &after[close + '\u{E001}'.len_utf8()..];
    }
    pieces.push(Piece::Template(rest));
    Some(pieces)
}

/// Python string methods that Hugging Face templates use (`strip`, `startswith`, ...), which minijinja leaves out.
fn minijinja_contrib_methods(
    _state: &minijinja::State,
    value: &minijinja::Value,
    method: &str,
    args: &[minijinja::Value],
) -> std::result::Result<minijinja::Value, minijinja::Error> {
    let Some(s) = value.as_str() else {
        return Err(minijinja::Error::new(minijinja::ErrorKind::UnknownMethod, format!("no method {method}")));
    };
    let arg = |i: usize| args.get(i).and_then(|a| a.as_str()).unwrap_or("");
    Ok(match method {
        "strip" => minijinja::Value::from(s.trim()),
        "lstrip" => minijinja::Value::from(s.trim_start()),
        "rstrip" => minijinja::Value::from(s.trim_end()),
        "startswith" => minijinja::Value::from(s.starts_with(arg(0))),
        "endswith" => minijinja::Value::from(s.ends_with(arg(0))),
        "lower" => minijinja::Value::from(s.to_lowercase()),
        "upper" => minijinja::Value::from(s.to_uppercase()),
        "split" => minijinja::Value::from(s.split(arg(0)).map(String::from).collect::<Vec<_>>()),
        "replace" => minijinja::Value::from(s.replace(arg(0), arg(1))),
        _ => return Err(minijinja::Error::new(minijinja::ErrorKind::UnknownMethod, format!("no string method {method}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatml_renders_like_huggingface() {
        let t = ChatTemplate::new(CHATML, "", "").unwrap();
        let out = t.render(&[ChatMessage { role: "system".into(), content: "Be brief.".into() }, ChatMessage::user("Hi")], true).unwrap();
        assert_eq!(out, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    }

    #[test]
    fn template_errors_are_reported() {
        assert!(ChatTemplate::new("{% for %}", "", "").is_err());
        let t = ChatTemplate::new("{{ raise_exception('no system role') }}", "", "").unwrap();
        let err = t.render(&[ChatMessage::user("x")], true).unwrap_err().to_string();
        assert!(err.contains("no system role"), "{err}");
    }

    #[test]
    fn python_string_methods_work() {
        let t = ChatTemplate::new("{% for m in messages %}{{ m.content.strip() }}{% endfor %}", "", "").unwrap();
        assert_eq!(t.render(&[ChatMessage::user("  hi  ")], false).unwrap(), "hi");
    }
}
