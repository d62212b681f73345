//! CTC NAT translation (`strategy: {kind: nat}`): the committed English->German model translates real
//! sentences in one pass, batching changes nothing, the CLI and the AR baseline work, and every kind of bad
//! input (wrong model kind, broken manifest, empty or too-long sentences, bad YAML values) is a clear error.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use specrt::config::CtcDecodeKind;
use specrt::nat::model::NatModel;
use specrt::nat::upsample::upsample;
use specrt::nat::NatPipeline;
use specrt::{Error, Pipeline};

fn nat_yaml(dir: &Path, model: &Path, extra: &str) -> PathBuf {
    let path = dir.join("nat.yaml");
    std::fs::write(&path, format!("model: {}\nbackend:\n  threads: 2\nstrategy:\n  kind: nat\n{extra}", model.display())).unwrap();
    path
}

fn tiny_nat() -> PathBuf {
    model_dir("tiny-ctc-nat")
}

fn sentences() -> Vec<String> {
    [
        "The committee approved the report.",
        "I would like to thank the President.",
        "This film is very good.",
        "We must protect the environment for our children.",
        "The government has adopted new measures to support small businesses.",
        "Hello",
        "The meeting will take place in Geneva next year, and all member states are invited to participate.",
        "Water is important.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn batched_logits_equal_one_sentence_passes() {
    // fp32 (ONNX Runtime's MultiHeadAttention with its key padding mask) and q8_0 (the engine's fused
    // EncoderLayerGgml, which masks the padded keys itself).
    batched_equals_alone(&tiny_nat());
    batched_equals_alone(&model_dir("tiny-ctc-nat-q8_0"));
}

fn batched_equals_alone(dir: &Path) {
    let mut model = NatModel::open(&backend(2), dir).unwrap();
    let (mask, limit) = (model.manifest().ctc.mask_id, model.manifest().ctc.upsample.position_limit);
    let batch: Vec<Vec<u32>> = (1..12u32).map(|n| upsample(&(100..100 + 3 * n).collect::<Vec<_>>(), 2.0, limit, mask).unwrap()).collect();
    let together = model.forward(&batch).unwrap();
    for (i, s) in batch.iter().enumerate() {
        let alone = model.forward(std::slice::from_ref(s)).unwrap();
        let d = max_abs_diff(together.sentence(i), alone.sentence(0));
        assert!(d < 1e-4, "{}, sentence {i}: padding in a batch changed the logits by {d}", dir.display());
        assert_eq!(together.sentence(i).len(), s.len() * together.vocab());
    }
}

#[test]
fn translate_keeps_order_and_bounds_the_output_by_the_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (decode, batch) in [("greedy", 3), ("beam", 4), ("greedy", 64)] {
        let cfg = nat_yaml(dir.path(), &tiny_nat(), &format!("  decode: {decode}\n  batch_size: {batch}\n  beam_width: 4\n"));
        let mut p = NatPipeline::load(&cfg).unwrap();
        let all = p.translate(&sentences()).unwrap();
        assert_eq!(all.len(), sentences().len());
        for (s, t) in sentences().iter().zip(&all) {
            let one = p.translate_one(s).unwrap();
            // Order kept: the batched output at position i is sentence i's own translation.
            assert_eq!((&one.tokens, &one.text), (&t.tokens, &t.text), "order kept: `{s}`");
            assert_eq!(one.source_tokens, t.source_tokens);
            assert_eq!(one.positions, t.positions);
            assert!(t.tokens.len() <= t.positions, "CTC output is at most as long as its positions");
            assert_eq!(t.positions, (2 * t.source_tokens).min(128), "rate 2 from the manifest");
        }
    }
}

#[test]
fn bad_sentences_are_errors_naming_the_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = NatPipeline::load(&nat_yaml(dir.path(), &tiny_nat(), "")).unwrap();
    let err = p.translate(&["Fine.".into(), "   ".into()]).unwrap_err();
    assert!(matches!(&err, Error::InvalidRequest(m) if m.contains("sentence 1") && m.contains("empty")), "{err}");
    let long = "word ".repeat(400);
    let err = p.translate(&["Fine.".into(), long]).unwrap_err();
    assert!(matches!(&err, Error::InvalidRequest(m) if m.contains("sentence 1") && m.contains("128 positions")), "{err}");
    // nothing was lost: the pipeline still works
    assert!(p.translate_one("Fine.").is_ok());
}

#[test]
fn one_bad_sentence_never_fails_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = NatPipeline::load(&nat_yaml(dir.path(), &tiny_nat(), "  batch_size: 3\n")).unwrap();
    let mut sources = sentences();
    // Bad sentences interleaved with good ones, inside the same length-sorted batches: empty, too many tokens,
    // and far too many bytes (refused before tokenizing, so the error says bytes, not a token count).
    sources.insert(1, "   ".into());
    sources.insert(4, "word ".repeat(400));
    sources.insert(6, "x".repeat(p.max_source_bytes() + 1));
    let each = p.translate_each(&sources);
    assert_eq!(each.len(), sources.len());
    for (i, r) in each.iter().enumerate() {
        match i {
            1 => assert!(matches!(r, Err(Error::InvalidRequest(m)) if m.contains("sentence 1") && m.contains("empty")), "{r:?}"),
            4 => assert!(matches!(r, Err(Error::InvalidRequest(m)) if m.contains("sentence 4") && m.contains("128 positions")), "{r:?}"),
            6 => assert!(matches!(r, Err(Error::InvalidRequest(m)) if m.contains("sentence 6") && m.contains("bytes")), "{r:?}"),
            _ => {
                // The good ones are exactly what they are alone.
                let alone = p.translate_one(&sources[i]).unwrap();
                let got = r.as_ref().unwrap_or_else(|e| panic!("sentence {i} failed: {e}"));
                assert_eq!((&got.tokens, &got.text), (&alone.tokens, &alone.text), "sentence {i}");
            }
        }
    }
    // The strict form still fails as a whole, naming the first bad sentence.
    let err = p.translate(&sources).unwrap_err();
    assert!(err.to_string().contains("sentence 1"), "{err}");
}

#[test]
fn model_kinds_cannot_be_mixed_up() {
    let dir = tempfile::tempdir().unwrap();
    // a decoder model under strategy nat
    let err = NatPipeline::load(&nat_yaml(dir.path(), &tiny(), "")).err().expect("a decoder is not a CTC NAT model");
    assert!(err.to_string().contains("kind is `decoder`") && err.to_string().contains("ctc_nat"), "{err}");
    // a CTC NAT model in a decoder pipeline
    let cfg = pipeline_yaml(dir.path(), &tiny_nat(), "");
    let err = Pipeline::load(&cfg).err().expect("a CTC NAT model is not a decoder");
    assert!(err.to_string().contains("kind is `ctc_nat`") && err.to_string().contains("kind: nat"), "{err}");
    // a NAT config given to the decoder pipeline type
    let err = Pipeline::load(&nat_yaml(dir.path(), &tiny_nat(), "")).err().expect("refused");
    assert!(err.to_string().contains("NatPipeline"), "{err}");
}

fn copy_model(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn edit_manifest(dir: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let path = dir.join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn manifests_that_break_the_contract_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("model");
    let cases: Vec<(&str, Box<dyn Fn(&mut serde_json::Value)>)> = vec![
        ("output `logits`", Box::new(|v| v["graph"]["outputs"][0]["shape"][2] = 999.into())),
        ("ctc.blank_id", Box::new(|v| v["ctc"]["blank_id"] = 100000.into())),
        ("input `attention_mask`", Box::new(|v| v["graph"]["inputs"][1]["dtype"] = "float32".into())),
        ("position_limit", Box::new(|v| v["ctc"]["upsample"]["position_limit"] = 100000.into())),
        ("mask_insertion", Box::new(|v| v["ctc"]["upsample"]["policy"] = "duplicate".into())),
    ];
    for (needle, edit) in cases {
        let _ = std::fs::remove_dir_all(&m);
        copy_model(&tiny_nat(), &m);
        edit_manifest(&m, edit);
        let err = NatModel::open(&backend(2), &m).err().unwrap_or_else(|| panic!("{needle}: accepted a broken manifest"));
        assert!(err.to_string().contains(needle), "expected `{needle}` in: {err}");
    }
}

#[test]
fn bad_nat_settings_point_at_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, key, line) in
        [("  beam_width: 0\n", "strategy.beam_width", 6), ("  rate: 0.5\n", "strategy.rate", 6), ("  batch_size: 0\n", "strategy.batch_size", 6)]
    {
        let cfg = nat_yaml(dir.path(), &tiny_nat(), extra);
        let err = NatPipeline::load(&cfg).err().expect("invalid");
        let msg = err.to_string();
        assert!(msg.contains(key) && msg.contains(&format!("nat.yaml:{line}:")), "{msg}");
    }
    let cfg = nat_yaml(dir.path(), &tiny_nat(), "  decode: sample\n");
    let msg = NatPipeline::load(&cfg).err().expect("invalid").to_string();
    assert!(msg.contains("nat.yaml:") && msg.contains("greedy"), "{msg}");
}

// ---- the committed English->German model ------------------------------------------------------------------

/// Sentences of the kind the model was trained on (UN documents, reviews, news), with words their German
/// translation must contain (checked case-insensitively; not exact strings).
const EXPECTED: &[(&str, &[&str])] = &[
    ("This film is very good.", &["Film", "sehr gut"]),
    ("The children are playing in the garden.", &["Kinder", "Garten"]),
    ("The book was written by a famous author.", &["Buch", "Autor", "geschrieben"]),
    ("We must protect the environment for our children.", &["Umwelt", "Kinder"]),
    ("The government has adopted new measures to support small businesses.", &["Regierung", "Maßnahmen", "Unternehmen"]),
    ("I would like to thank the President.", &["Präsident"]),
];

fn trained_config() -> PathBuf {
    model_dir("ctc-nat-en-de");
    model_dir("ar-en-de-q8_0");
    root().join("configs/ctc-nat-en-de.yaml")
}

#[test]
fn the_trained_model_translates_real_sentences() {
    let mut p = NatPipeline::load(&trained_config()).unwrap();
    for decode in [CtcDecodeKind::Greedy, CtcDecodeKind::Beam] {
        p.set_decode(decode);
        let sources: Vec<String> = EXPECTED.iter().map(|(s, _)| s.to_string()).collect();
        let out = p.translate(&sources).unwrap();
        for ((src, words), t) in EXPECTED.iter().zip(&out) {
            let text = t.text.to_lowercase();
            for w in *words {
                assert!(text.contains(&w.to_lowercase()), "{decode:?}: `{src}` -> `{}` lacks `{w}`", t.text);
            }
        }
    }
}

#[test]
fn the_q8_0_export_on_the_engine_kernels_translates_like_the_fp32_one() {
    // The same trained weights as GGML Q8_0 blocks on ai.specrt::MatMulGgml (int8 weights and activations): the
    // key words still come out, and nearly every greedy translation is the fp32 export's to the letter.
    model_dir("ctc-nat-en-de-q8_0");
    let mut fp32 = NatPipeline::load(&trained_config()).unwrap();
    let mut q8 = NatPipeline::load(&root().join("configs/bench/pipelines/ctc-nat-en-de-q8_0.yaml")).unwrap();
    let mut sources: Vec<String> = EXPECTED.iter().map(|(s, _)| s.to_string()).collect();
    sources.extend(sentences());
    let (a, b) = (fp32.translate(&sources).unwrap(), q8.translate(&sources).unwrap());
    for ((src, words), t) in EXPECTED.iter().zip(&b) {
        for w in *words {
            assert!(t.text.to_lowercase().contains(&w.to_lowercase()), "`{src}` -> `{}` lacks `{w}`", t.text);
        }
    }
    let same = a.iter().zip(&b).filter(|(x, y)| x.text == y.text).count();
    assert!(same + 1 >= sources.len(), "only {same} of {} translations equal the fp32 export's", sources.len());
}

fn specrt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_specrt")).args(args).output().expect("specrt runs")
}

#[test]
fn cli_translates_each_line_and_runs_the_ar_baseline() {
    let cfg = trained_config();
    let (src, words) = EXPECTED[0];
    let two = format!("{src}\n\n{}\n", EXPECTED[1].0);
    let o = specrt(&["generate", "--config", cfg.to_str().unwrap(), "--prompt", &two]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "one line per sentence: {out}");
    assert!(words.iter().all(|w| lines[0].to_lowercase().contains(&w.to_lowercase())), "{out}");
    assert!(err.contains("[nat/greedy] 2 sentence(s)"), "{err}");
    // --json
    let o = specrt(&["generate", "--config", cfg.to_str().unwrap(), "--json", "--prompt", src]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["translations"][0]["stats"]["strategy"], "nat");
    assert_eq!(v["translations"][0]["stats"]["target_calls"], 1);
    // the AR baseline through the same CLI
    let o = specrt(&["generate", "--config", cfg.to_str().unwrap(), "--strategy", "ar", "--prompt", src]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{err}");
    assert!(err.contains("baseline") && err.contains("[ar]"), "{err}");
    assert!(words.iter().any(|w| out.to_lowercase().contains(&w.to_lowercase())), "AR baseline: {out}");
    // sampling does not apply
    let o = specrt(&["generate", "--config", cfg.to_str().unwrap(), "--temperature", "0.7", "--prompt", src]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("deterministically"));
}

#[test]
fn bench_on_a_nat_pipeline_writes_the_translation_fields() {
    let dir = tempfile::tempdir().unwrap();
    // an AR baseline pipeline (any decoder will do for the harness) and a NAT pipeline naming it
    let baseline = dir.path().join("baseline.yaml");
    std::fs::write(&baseline, format!("model: {}\nbackend:\n  threads: 2\ngeneration:\n  chat: true\n", tiny().display())).unwrap();
    let cfg = nat_yaml(dir.path(), &tiny_nat(), "  batch_size: 2\n  beam_width: 3\n  baseline: baseline.yaml\n");
    let pairs = dir.path().join("pairs.jsonl");
    let lines: Vec<String> = sentences()
        .iter()
        .enumerate()
        .map(|(i, s)| serde_json::json!({"id": format!("t:{i}"), "en": s, "de": format!("Satz {i} auf Deutsch.")}).to_string())
        .collect();
    std::fs::write(&pairs, lines.join("\n")).unwrap();
    let out = dir.path().join("out");
    let o = specrt(&[
        "bench",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--pairs",
        pairs.to_str().unwrap(),
        "--max-new-tokens",
        "6",
        "--prompts-per-category",
        "5",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(v["settings"]["kind"], "nat");
    assert_eq!(v["settings"]["sentences"], 5);
    let rows = v["results"].as_array().unwrap();
    let nat = rows.iter().find(|r| r["strategy"] == "nat").expect("a nat row");
    for key in ["bleu", "chrf", "ar_bleu", "ar_chrf", "latency_ms_batch1", "ar_latency_ms_batch1", "sentences_per_second_batched"] {
        assert!(nat[key].as_f64().is_some_and(|x| x.is_finite() && x >= 0.0), "{key}: {}", nat[key]);
    }
    for key in ["pipeline", "model", "category", "prompts", "new_tokens", "tokens_per_second", "speedup_vs_ar", "tau", "peak_rss_mb"] {
        assert!(!nat[key].is_null(), "common field {key} missing");
    }
    assert!(nat["latency_ms_batch1"].as_f64().unwrap() > 0.0 && nat["ar_latency_ms_batch1"].as_f64().unwrap() > 0.0);
    let d = &nat["bleu_vs_ar"];
    let delta = nat["bleu"].as_f64().unwrap() - nat["ar_bleu"].as_f64().unwrap();
    assert!((d["delta"].as_f64().unwrap() - delta).abs() < 1e-9, "bleu_vs_ar.delta is BLEU - AR BLEU: {d}");
    assert!(d["low"].as_f64().unwrap() <= d["high"].as_f64().unwrap() && d["resamples"] == 1000, "{d}");
    assert!(rows.iter().any(|r| r["strategy"] == "ar" && r["bleu_vs_ar"].is_null()));
    let records = std::fs::read_to_string(out.join("records.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 5);
    // a NAT pipeline without a baseline cannot be benchmarked: a clear error, not a panic
    let cfg = nat_yaml(dir.path(), &tiny_nat(), "");
    let o = specrt(&["bench", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap(), "--pairs", pairs.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("strategy.baseline") && !err.contains("panicked"), "{err}");
}

// ---- the graph's own argmax and the output vocabulary --------------------------------------------------------

#[test]
fn greedy_reads_the_graphs_token_ids_and_gets_the_logits_argmax() {
    // fp32 (ONNX ArgMax) and q8_0 (the engine's ArgMaxRows, no id table) graphs of the same random weights
    greedy_matches_logits(&tiny_nat());
    greedy_matches_logits(&model_dir("tiny-ctc-nat-q8_0"));
}

#[test]
fn the_fused_encoder_layer_computes_what_the_unfused_graph_does() {
    // The same random weights at q8_0, each layer as one ai.specrt::EncoderLayerGgml node and as ~14 ONNX nodes
    // around MatMulGgml (RMSNormalization, MultiHeadAttention, Sigmoid, ...): the logits agree to the 8-bit
    // activations' rounding (a norm or attention output rounding differently can move a quantized code), and
    // nearly every position's argmax is the same.
    let fused_dir = model_dir("tiny-ctc-nat-q8_0");
    let mut fused = NatModel::open(&backend(2), &fused_dir).unwrap();
    let mut unfused = NatModel::open(&backend(2), &model_dir("tiny-ctc-nat-q8_0-unfused")).unwrap();
    let (mask, limit) = (fused.manifest().ctc.mask_id, fused.manifest().ctc.upsample.position_limit);
    let batch: Vec<Vec<u32>> = (1..12u32).map(|n| upsample(&(100..100 + 3 * n).collect::<Vec<_>>(), 2.0, limit, mask).unwrap()).collect();
    let (a, b) = (fused.forward(&batch).unwrap(), unfused.forward(&batch).unwrap());
    // Negative control: the same passes with the sentences shifted by one (other inputs, same shapes).
    let shifted: Vec<Vec<u32>> = batch.iter().map(|s| s.iter().map(|&t| if t == mask { t } else { t + 1 }).collect()).collect();
    let c = fused.forward(&shifted).unwrap();
    let (mut worst, mut control, mut same, mut rows) = (0.0f32, 0.0f32, 0usize, 0usize);
    for i in 0..batch.len() {
        let scale = a.sentence(i).iter().fold(0.0f32, |m, v| m.max(v.abs()));
        worst = worst.max(max_abs_diff(a.sentence(i), b.sentence(i)) / scale);
        control = control.max(max_abs_diff(a.sentence(i), c.sentence(i)) / scale);
        for (x, y) in a.sentence(i).chunks_exact(a.vocab()).zip(b.sentence(i).chunks_exact(b.vocab())) {
            same += usize::from(specrt::kernels::argmax::argmax(x) == specrt::kernels::argmax::argmax(y));
            rows += 1;
        }
    }
    assert!(worst < 0.05, "fused vs unfused: largest difference {worst} of the logits' range");
    assert!(same * 100 >= rows * 95, "only {same} of {rows} positions have the same argmax");
    assert!(control > 5.0 * worst.max(1e-3), "the control inputs moved the logits by only {control} (fused vs unfused {worst})");
}

fn greedy_matches_logits(model_dir: &Path) {
    let mut model = NatModel::open(&backend(2), model_dir).unwrap();
    assert!(model.has_token_ids(), "the export has token_ids, so greedy decoding takes that path");
    let ctc = model.manifest().ctc.clone();
    let dir = tempfile::tempdir().unwrap();
    let sources = sentences();
    for batch in [1, 16] {
        let mut p = NatPipeline::load(&nat_yaml(dir.path(), model_dir, &format!("  batch_size: {batch}\n"))).unwrap();
        let got: Vec<Vec<u32>> = p.translate(&sources).unwrap().into_iter().map(|t| t.tokens).collect();
        for (s, got) in sources.iter().zip(&got) {
            let up = upsample(&p.tokenizer().encode(s).unwrap(), ctc.upsample.rate, ctc.upsample.position_limit, ctc.mask_id).unwrap();
            let logits = model.forward(&[up]).unwrap();
            let want = specrt::nat::ctc::greedy(logits.sentence(0), logits.vocab(), ctc.blank_id);
            assert_eq!(got, &want, "{}, batch {batch}: {s}", model_dir.display());
        }
        assert!(got.iter().any(|t| !t.is_empty()), "random weights still emit tokens");
    }
}

#[test]
fn the_int8_graphs_argmax_operator_gives_the_greedy_decode_of_its_own_logits() {
    // The q8_0 export ends in the engine's ArgMaxRows (first maximum, mapped through the output vocabulary in the
    // same node) instead of ONNX's ArgMax + Gather: greedy decoding through it must equal greedy CTC over the
    // graph's own logits, columns mapped to ids, in batches of 1 and 16.
    let dir_q8 = model_dir("ctc-nat-en-de-q8_0");
    let mut model = NatModel::open(&backend(2), &dir_q8).unwrap();
    assert!(model.has_token_ids());
    let ctc = model.manifest().ctc.clone();
    let ids = ctc.output_ids.clone().expect("the trained export restricts its head");
    let dir = tempfile::tempdir().unwrap();
    let sources: Vec<String> = EXPECTED.iter().map(|(s, _)| s.to_string()).chain(sentences()).collect();
    for batch in [1, 16] {
        let mut p = NatPipeline::load(&nat_yaml(dir.path(), &dir_q8, &format!("  batch_size: {batch}\n"))).unwrap();
        let got: Vec<Vec<u32>> = p.translate(&sources).unwrap().into_iter().map(|t| t.tokens).collect();
        for (s, got) in sources.iter().zip(&got) {
            let up = upsample(&p.tokenizer().encode(s).unwrap(), ctc.upsample.rate, ctc.upsample.position_limit, ctc.mask_id).unwrap();
            let logits = model.forward(&[up]).unwrap();
            let columns = specrt::nat::ctc::greedy(logits.sentence(0), logits.vocab(), ctc.blank_column());
            let want: Vec<u32> = columns.iter().map(|&c| ids[c as usize]).collect();
            assert_eq!(got, &want, "batch {batch}: {s}");
            // negative control: reading the columns as ids (no mapping) would give other tokens
            assert!(got.is_empty() || columns != *got, "the output vocabulary is not the identity: {s}");
        }
    }
}

#[test]
fn an_output_vocabulary_decodes_like_the_full_model_restricted_to_its_columns() {
    let short_dir = model_dir("tiny-ctc-nat-outvocab");
    let mut full = NatModel::open(&backend(2), &tiny_nat()).unwrap();
    let short = NatModel::open(&backend(2), &short_dir).unwrap();
    let ctc = short.manifest().ctc.clone();
    let ids = ctc.output_ids.clone().expect("the fixture restricts the head");
    assert!(ids.len() < full.manifest().dims.vocab_size && short.logits_width() == ids.len());
    drop(short);
    let dir = tempfile::tempdir().unwrap();
    let cfg = nat_yaml(dir.path(), &short_dir, "  batch_size: 1\n");
    let sources = sentences();
    let mut p = NatPipeline::load(&cfg).unwrap();
    let mut differs_from_full = false;
    for decode in [CtcDecodeKind::Greedy, CtcDecodeKind::Beam] {
        p.set_decode(decode);
        for s in &sources {
            let got = p.translate_one(s).unwrap().tokens;
            // expected: the full model's logits, only the listed columns, decoded, columns mapped to ids
            let src = p.tokenizer().encode(s).unwrap();
            let up = upsample(&src, ctc.upsample.rate, ctc.upsample.position_limit, ctc.mask_id).unwrap();
            let logits = full.forward(&[up]).unwrap();
            let vocab = logits.vocab();
            let restricted: Vec<f32> = logits.sentence(0).chunks_exact(vocab).flat_map(|row| ids.iter().map(move |&t| row[t as usize])).collect();
            let columns = match decode {
                CtcDecodeKind::Greedy => specrt::nat::ctc::greedy(&restricted, ids.len(), ctc.blank_column()),
                CtcDecodeKind::Beam => specrt::nat::ctc::prefix_beam_search(&restricted, ids.len(), ctc.blank_column(), 10, 10)
                    .into_iter()
                    .next()
                    .map(|h| h.tokens)
                    .unwrap_or_default(),
            };
            let want: Vec<u32> = columns.iter().map(|&c| ids[c as usize]).collect();
            assert_eq!(got, want, "{decode:?}: {s}");
            // negative control: the full vocabulary decodes differently somewhere (random weights score unlisted ids)
            differs_from_full |= specrt::nat::ctc::greedy(logits.sentence(0), vocab, ctc.blank_id) != want;
        }
    }
    assert!(differs_from_full, "the restriction never mattered, so this test could not catch a wrong column map");
}

#[test]
fn broken_output_vocabularies_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("model");
    let cases: Vec<(&str, Box<dyn Fn(&mut serde_json::Value)>)> = vec![
        (
            "must contain the blank id",
            Box::new(|v| {
                let blank = v["ctc"]["blank_id"].clone();
                v["ctc"]["output_ids"].as_array_mut().unwrap().retain(|x| *x != blank);
            }),
        ),
        ("sorted, unique", Box::new(|v| v["ctc"]["output_ids"].as_array_mut().unwrap().reverse())),
        ("ctc.output_ids has", Box::new(|v| v["ctc"]["output_ids"].as_array_mut().unwrap().pop().map(|_| ()).unwrap_or(()))),
    ];
    for (needle, edit) in cases {
        let _ = std::fs::remove_dir_all(&m);
        copy_model(&model_dir("tiny-ctc-nat-outvocab"), &m);
        edit_manifest(&m, edit);
        let err = NatModel::open(&backend(2), &m).err().unwrap_or_else(|| panic!("{needle}: accepted a broken manifest"));
        assert!(err.to_string().contains(needle), "expected `{needle}` in: {err}");
    }
}

// ---- The per-sentence output shortlist (issue 14; export/nat_shortlist.py, engine/nat/shortlist.rs) ----------

fn tiny_shortlist() -> PathBuf {
    model_dir("tiny-ctc-nat-q8_0-shortlist")
}

/// Greedy CTC over `rows` choosing only among `columns` (sorted; the first maximum in column order, as the graph's
/// ArgMaxRows does), as token ids.
fn restricted_greedy(rows: &[f32], width: usize, columns: &[i64], blank: u32) -> Vec<u32> {
    let best: Vec<u32> = rows
        .chunks_exact(width)
        .map(|r| {
            let mut b = columns[0] as usize;
            for &c in columns {
                if r[c as usize] > r[b] {
                    b = c as usize;
                }
            }
            b as u32
        })
        .collect();
    specrt::nat::ctc::collapse(&best, blank)
}

#[test]
fn a_shortlist_decodes_like_the_whole_head_restricted_to_its_columns() {
    // The q8_0 head computes only the shortlist's columns (MatMulGgml's `columns` input, gathered panels): greedy
    // decoding must equal the whole head's logits (all columns fed) restricted to each sentence's own shortlist,
    // in batches of 1 and 16 (the head computes the batch's union, ArgMaxRows' mask keeps each sentence to its
    // own columns, so batching changes no output). Random weights and a random table (K = 8, F = 64).
    let dir_sl = tiny_shortlist();
    let mut model = NatModel::open(&backend(2), &dir_sl).unwrap();
    let ctc = model.manifest().ctc.clone();
    assert!(ctc.shortlist.is_some() && ctc.output_ids.is_none());
    let dir = tempfile::tempdir().unwrap();
    let sources = sentences();
    let (mut changed, mut columns, mut allowed) = (0usize, Vec::new(), Vec::new());
    let mut outputs = Vec::new();
    for batch in [1usize, 16] {
        let mut p = NatPipeline::load(&nat_yaml(dir.path(), &dir_sl, &format!("  batch_size: {batch}\n"))).unwrap();
        assert!(p.uses_shortlist());
        let got: Vec<Vec<u32>> = p.translate(&sources).unwrap().into_iter().map(|t| t.tokens).collect();
        let ups: Vec<Vec<u32>> = sources
            .iter()
            .map(|s| upsample(&p.tokenizer().encode(s).unwrap(), ctc.upsample.rate, ctc.upsample.position_limit, ctc.mask_id).unwrap())
            .collect();
        for (i, (s, got)) in sources.iter().zip(&got).enumerate() {
            assert!(model.shortlist_columns(std::slice::from_ref(&ups[i]), &mut columns, &mut allowed));
            assert!(columns.len() < model.logits_width() / 2, "a shortlist, not the whole head: {} columns", columns.len());
            let logits = model.forward(std::slice::from_ref(&ups[i])).unwrap();
            assert_eq!(logits.vocab(), model.logits_width(), "logits come from the whole head");
            let want = restricted_greedy(logits.sentence(0), logits.vocab(), &columns, ctc.blank_id);
            assert_eq!(got, &want, "batch {batch}: {s}");
            changed += usize::from(*got != specrt::nat::ctc::greedy(logits.sentence(0), logits.vocab(), ctc.blank_id));
        }
        assert!(got.iter().any(|t| !t.is_empty()), "random weights still emit tokens");
        outputs.push(got);
    }
    assert_eq!(outputs[0], outputs[1], "a batch of 16 decodes each sentence as it does alone");
    // the batch's union is larger than one sentence's shortlist: the mask, not the union, decides
    let ups: Vec<Vec<u32>> = sources
        .iter()
        .map(|s| {
            let tok = specrt::text::Tokenizer::load(&dir_sl.join("tokenizer.json")).unwrap();
            upsample(&tok.encode(s).unwrap(), ctc.upsample.rate, ctc.upsample.position_limit, ctc.mask_id).unwrap()
        })
        .collect();
    assert!(model.shortlist_columns(&ups, &mut columns, &mut allowed));
    assert_eq!(allowed.len(), ups.len() * columns.len());
    assert!(allowed.contains(&0), "some union column is not every sentence's");
    // negative control: the restriction is real (a random table leaves out tokens the whole head picks)
    assert!(changed > 0, "no output differs from the unrestricted decode");
    // `shortlist: false` runs the whole head: the unrestricted greedy decode
    let mut off = NatPipeline::load(&nat_yaml(dir.path(), &dir_sl, "  shortlist: false\n")).unwrap();
    assert!(!off.uses_shortlist());
    for s in &sources {
        let up = upsample(&off.tokenizer().encode(s).unwrap(), ctc.upsample.rate, ctc.upsample.position_limit, ctc.mask_id).unwrap();
        let logits = model.forward(&[up]).unwrap();
        assert_eq!(off.translate_one(s).unwrap().tokens, specrt::nat::ctc::greedy(logits.sentence(0), logits.vocab(), ctc.blank_id), "{s}");
    }
    // beam search scores the whole head (the shortlist only restricts greedy passes)
    let mut beam = NatPipeline::load(&nat_yaml(dir.path(), &dir_sl, "  decode: beam\n")).unwrap();
    assert!(beam.translate(&sources).unwrap().iter().all(|t| t.log_prob.is_some()));
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Replaces the copy's table with `table` and records its sha256 in the manifest (a consistent model folder).
fn write_table(dir: &Path, table: &serde_json::Value) {
    let bytes = serde_json::to_vec(table).unwrap();
    std::fs::write(dir.join("shortlist.json"), &bytes).unwrap();
    let sha = sha256_hex(&bytes);
    edit_manifest(dir, move |v| v["ctc"]["shortlist"]["sha256"] = sha.clone().into());
}

fn fixture_table() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(tiny_shortlist().join("shortlist.json")).unwrap()).unwrap()
}

#[test]
fn a_shortlist_holding_every_token_gives_the_output_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("every");
    copy_model(&tiny_shortlist(), &m);
    let mut table = fixture_table();
    let vocab = table["vocab"].as_u64().unwrap();
    table["always"] = (0..vocab).collect::<Vec<_>>().into();
    table["rows"] = serde_json::json!({});
    write_table(&m, &table);
    let sources = sentences();
    for batch in [1, 16] {
        let mut on = NatPipeline::load(&nat_yaml(dir.path(), &m, &format!("  batch_size: {batch}\n"))).unwrap();
        assert!(on.uses_shortlist());
        let with: Vec<_> = on.translate(&sources).unwrap().into_iter().map(|t| t.tokens).collect();
        assert_eq!(on.shortlist_mean_size(), Some(vocab as f64), "every token is a column");
        let mut off = NatPipeline::load(&nat_yaml(dir.path(), &m, &format!("  batch_size: {batch}\n  shortlist: false\n"))).unwrap();
        let without: Vec<_> = off.translate(&sources).unwrap().into_iter().map(|t| t.tokens).collect();
        assert_eq!(with, without, "batch {batch}");
        assert!(with.iter().any(|t| !t.is_empty()));
    }
}

#[test]
fn broken_shortlists_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("model");
    let cases: Vec<(&str, Box<dyn Fn(&Path)>)> = vec![
        // the table changed after export: its sha256 no longer matches the manifest
        ("sha256", Box::new(|m| std::fs::write(m.join("shortlist.json"), b"{}").unwrap())),
        (
            "key `vocab` is 7999",
            Box::new(|m| {
                let mut t = fixture_table();
                t["vocab"] = 7999.into();
                write_table(m, &t)
            }),
        ),
        (
            "key `always` must contain <blank>",
            Box::new(|m| {
                let mut t = fixture_table();
                t["always"] = serde_json::json!([1, 2]);
                write_table(m, &t)
            }),
        ),
        (
            "key `rows.7`",
            Box::new(|m| {
                let mut t = fixture_table();
                t["rows"]["7"] = serde_json::json!([1, 9_000_000]);
                write_table(m, &t)
            }),
        ),
        ("ctc.shortlist.vocab", Box::new(|m| edit_manifest(m, |v| v["ctc"]["shortlist"]["vocab"] = 32000.into()))),
        ("missing file `gone.json`", Box::new(|m| edit_manifest(m, |v| v["ctc"]["shortlist"]["file"] = "gone.json".into()))),
        (
            "input `output_columns` is declared",
            Box::new(|m| {
                edit_manifest(m, |v| {
                    v["ctc"].as_object_mut().unwrap().remove("shortlist");
                })
            }),
        ),
        (
            "no input `output_columns_mask`",
            Box::new(|m| {
                edit_manifest(m, |v| {
                    v["graph"]["inputs"].as_array_mut().unwrap().truncate(3);
                })
            }),
        ),
        (
            "no input `output_columns`",
            Box::new(|m| {
                edit_manifest(m, |v| {
                    v["graph"]["inputs"].as_array_mut().unwrap().truncate(2);
                })
            }),
        ),
    ];
    for (needle, edit) in cases {
        let _ = std::fs::remove_dir_all(&m);
        copy_model(&tiny_shortlist(), &m);
        edit(&m);
        let err = NatModel::open(&backend(2), &m).err().unwrap_or_else(|| panic!("{needle}: accepted a broken shortlist"));
        assert!(err.to_string().contains(needle), "expected `{needle}` in: {err}");
    }
    // the file is named in the table errors
    copy_model(&tiny_shortlist(), &m);
    std::fs::write(m.join("shortlist.json"), b"{}").unwrap();
    let err = NatModel::open(&backend(2), &m).err().unwrap().to_string();
    assert!(err.contains("shortlist.json"), "{err}");
}
