//! Chat templates: the model's own Jinja template from its manifest (Hugging Face convention), rendered with
//! minijinja. Models without one get ChatML.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
