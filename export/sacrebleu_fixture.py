"""Write tests/fixtures/sacrebleu_parity.json: corpus BLEU and chrF computed by sacrebleu 2.6.0 (its defaults).

    python -m export.sacrebleu_fixture            # or: python export/sacrebleu_fixture.py

The Rust metrics (engine/nat/metrics.rs, tested by tests/translation_metrics.rs) must match every case to 1e-6;
export/tests/test_sacrebleu_fixture.py recomputes every case with sacrebleu so a stale fixture fails.

Each case: {"name", "hypotheses", "references", "bleu", "chrf", "bleu_precisions", "bleu_brevity_penalty",
"bleu_hyp_len", "bleu_ref_len"}, where bleu = sacrebleu.corpus_bleu(hyps, [refs]) and chrf =
sacrebleu.corpus_chrf(hyps, [refs]). The synthetic cases are deterministic (no randomness beyond a seeded
random.Random). With --with-real (and .cache/translation-pairs/test.jsonl present), one more case scores its first
200 German sentences against a deterministic perturbation of them: a local check only, since that text is
third-party data and the committed fixture must not contain it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "sacrebleu_parity.json")
TRANSLATION_TEST = os.path.join(ROOT, ".cache", "translation-pairs", "test.jsonl")
REAL_CASE = "translation_pairs_test_first200_perturbed"
SACREBLEU_VERSION = "2.6.0"

GERMAN = [
    "Die Straße vor dem Bahnhof ist seit Montag gesperrt.",
    "Für die Übernachtung zahlten wir 1.000,50 € – viel zu viel!",
    "Er sagte: „Das ist z.B. in den U.S.A. ganz normal.“",
    "Größere Städte wie München, Köln und Düsseldorf wachsen schnell.",
    "Am 3. Oktober 1990 wurde Deutschland wiedervereinigt.",
    "Die Öl- und Gaspreise sind von 2019-2021 um 35 % gestiegen.",
    "Bitte schließen Sie die Tür, bevor Sie gehen.",
    "Das Mädchen aß ein Stück Käsekuchen im Café \"Zur Mühle\".",
    "Wir treffen uns um 18:30 Uhr am Haupteingang (Gebäude B).",
    "Ärzte empfehlen, täglich mindestens 1,5 Liter Wasser zu trinken.",
    "Der Bürgermeister – ein ehemaliger Lehrer – eröffnete die Sitzung.",
    "Weitere Informationen finden Sie unter www.beispiel.de/hilfe.",
    "Die E-Mail-Adresse lautet info@firma-müller.de; bitte antworten Sie bald.",
    "Übrigens: Ich habe gestern 12 Äpfel, 3 Birnen und 1 Ananas gekauft.",
    "In Österreich heißt die Tomate oft Paradeiser.",
    "Warum funktioniert das nicht?! Ich verstehe es einfach nicht...",
    "Sie las „Die Verwandlung“ von Franz Kafka zum zweiten Mal.",
    "Der Zug nach Berlin-Spandau hat voraussichtlich 20 Minuten Verspätung.",
    "Laut Statistik stieg die Zahl der Einwohner auf 83,2 Millionen.",
    "Das Gesetz tritt am 1.1.2025 in Kraft, sofern der Bundesrat zustimmt.",
    "Die Kinder spielten im Garten, während die Eltern kochten.",
    "Ein Großteil der Bevölkerung lehnt die Reform ab.",
    "Kosten: ca. 250 Mio. Euro (inkl. MwSt.), Fertigstellung 2027/28.",
    "„Wir schaffen das“, sagte die Kanzlerin damals.",
    "Der Fußballverein gewann das Spiel mit 3:1 nach Verlängerung.",
    "Die Temperatur fiel nachts auf -5 °C, tagsüber waren es +3 °C.",
    "Können Sie mir bitte sagen, wo die nächste Apotheke ist?",
    "Die Universität Heidelberg ist die älteste Hochschule Deutschlands.",
    "Sein Vortrag über künstliche Intelligenz war äußerst spannend.",
    "Das Projekt wurde von der EU mit 4,7 Mrd. € gefördert.",
]


def _score(hyps: list[str], refs: list[str]) -> dict:
    import sacrebleu

    if sacrebleu.__version__ != SACREBLEU_VERSION:
        raise SystemExit(f"sacrebleu {SACREBLEU_VERSION} required, found {sacrebleu.__version__}")
    bleu = sacrebleu.corpus_bleu(hyps, [refs])
    chrf = sacrebleu.corpus_chrf(hyps, [refs])
    return {
        "bleu": float(bleu.score),
        "chrf": float(chrf.score),
        "bleu_precisions": [float(p) for p in bleu.precisions],
        "bleu_brevity_penalty": float(bleu.bp),
        "bleu_hyp_len": int(bleu.sys_len),
        "bleu_ref_len": int(bleu.ref_len),
    }


def perturb(sentence: str, rng: random.Random) -> str:
    """Deterministic noise a NAT model makes: drop, repeat or swap words, truncate, or keep the sentence."""
    words = sentence.split()
    kind = rng.randrange(6)
    if len(words) < 3 or kind == 0:
        return sentence
    if kind == 1:  # drop one word
        del words[rng.randrange(len(words))]
    elif kind == 2:  # swap two neighbours
        i = rng.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
    elif kind == 3:  # CTC-style repetition
        i = rng.randrange(len(words))
        words.insert(i, words[i])
    elif kind == 4:  # truncate
        words = words[: max(1, len(words) * 2 // 3)]
    else:  # drop two words and swap
        for _ in range(2):
            if len(words) > 2:
                del words[rng.randrange(len(words))]
        if len(words) > 1:
            words[0], words[-1] = words[-1], words[0]
    return " ".join(words)


def synthetic_cases() -> list[tuple[str, list[str], list[str]]]:
    """(name, hypotheses, references) of every case that needs no downloaded data."""
    g = GERMAN
    cases = [
        ("identical_german", g[:8], g[:8]),
        (
            "german_umlauts_numbers_quotes",
            [
                "Die Strasse vor dem Bahnhof ist seit Montag gesperrt.",
                "Für die Übernachtung zahlten wir 1.000,50 Euro – viel zu viel!",
                'Er sagte: "Das ist z. B. in den USA ganz normal."',
                "Größere Städte wie München, Köln und Duesseldorf wachsen schnell.",
                "Am 3.Oktober 1990 wurde Deutschland wieder vereinigt.",
                "Die Öl-und Gaspreise sind von 2019 - 2021 um 35% gestiegen.",
            ],
            g[:6],
        ),
        (
            "punctuation_heavy",
            [
                "Wait... what?!? (Really) -- [yes] {no} <maybe> 'quoted' \"double\"",
                "a,b.c;d:e!f?g/h\\i|j~k`l^m_n@o#p$q%r&s*t+u=v",
                "3.14, 2,718 and 1,000.000; 10-20 km/h; U.S.A.; e.g.; i.e.",
                "...,,,---!!! ??? ;;; :::",
            ],
            [
                "Wait ... what ?! (really) - [yes] {no} <maybe> ' quoted ' \" double \"",
                "a, b. c; d: e! f? g / h \\ i | j ~ k ` l ^ m _ n @ o # p $ q % r & s * t + u = v",
                "3.14 , 2,718 and 1,000.000 ; 10 - 20 km / h ; U.S.A. ; e.g. ; i.e.",
                "..., ,, --- !!! ??? ;;; :::",
            ],
        ),
        (
            "empty_hypotheses_some",
            ["", g[1], "", "Größere Städte wachsen schnell."],
            g[:4],
        ),
        ("empty_hypotheses_all", ["", "", ""], g[:3]),
        ("empty_reference", ["Ein Satz ohne Referenz.", g[1]], ["", g[1]]),
        ("whitespace_only", [" \t ", "Hallo Welt"], ["Hallo Welt", "  "]),
        (
            "no_4gram_matches",
            ["der Hund der Katze die Maus", "rot blau grün gelb"],
            ["die Katze der Hund die Maus", "blau rot gelb grün"],
        ),
        ("no_matches_at_all", ["xyz qqq", "abc"], ["Die Straße ist nass.", "Hallo!"]),
        ("short_sentences_no_4grams", ["Ja.", "Nein, danke", "Gut"], ["Ja.", "Nein danke", "Sehr gut"]),
        (
            "hypotheses_shorter",
            ["Die Straße ist gesperrt.", "Wir zahlten 1.000,50 €.", "Er sagte das."],
            g[:3],
        ),
        (
            "hypotheses_longer",
            [
                g[0] + " Das war schon immer so, und es wird so bleiben.",
                g[1] + " Wirklich, viel zu viel Geld!",
                g[2] + " Sagt er.",
            ],
            g[:3],
        ),
        (
            "html_entities",
            [
                "&quot;Hallo&quot; &amp; Tschüss &lt;b&gt;fett&lt;/b&gt;",
                "Tom &amp;amp; Jerry &amp;lt;3 &nbsp; &#39;x&#39; & Co",
                "A&B &quot &amp",
            ],
            [
                '"Hallo" & Tschüss <b>fett</b>',
                "Tom &amp; Jerry &lt;3 &nbsp; 'x' & Co",
                "A & B &quot &amp;",
            ],
        ),
        (
            "tokenizer_special_cases",
            [
                "Text<skipped> mit Zeilen-\numbruch\nund neuer Zeile",
                "Trailing spaces   \t",
                "\u00a0geschütztes\u00a0Leerzeichen\u3000und\u2009dünn\u001cFS\u001fUS",
                "Zero\u200bwidth and soft\u00adhyphen",
            ],
            [
                "Text mit Zeilenumbruch und neuer Zeile",
                "Trailing spaces",
                "geschütztes Leerzeichen und dünn FS US",
                "Zerowidth and softhyphen",
            ],
        ),
        (
            "unicode_mixed",
            [
                "Straße vs. Strasse vs. STRASSE – «Guillemets» … ellipsis",
                "Zo\u0308e and Zöe are different code points",
                "Emoji 🙂 and 日本語テキスト, ÄÖÜäöüß",
                "Größe: 5–10 m²; Preis: 9,99 €/kg",
            ],
            [
                "Straße vs. Strasse vs. Straße – « Guillemets » … Ellipsis",
                "Zöe and Zöe are different code points",
                "Emoji 🙂 and 日本語 テキスト, ÄÖÜäöüß",
                "Größe: 5-10 m²; Preis: 9.99 € / kg",
            ],
        ),
        (
            "digits_and_dashes",
            ["1990-2000 war -5 bis 10-20 und a-b 3- 4 -6", "Version 2.0-beta, Seite 12-13."],
            ["1990 - 2000 war -5 bis 10 - 20 und a-b 3 - 4 - 6", "Version 2.0 - beta , Seite 12-13 ."],
        ),
        ("single_segment_partial", ["Die Kinder spielten im Garten."], [g[20]]),
    ]
    rng = random.Random(20240531)
    cases.append(("perturbed_german_30", [perturb(s, rng) for s in g], list(g)))
    rng = random.Random(7)
    mixed = [perturb(perturb(s, rng), rng) if i % 3 else perturb(s, rng) for i, s in enumerate(g)]
    cases.append(("perturbed_german_30_double", mixed, list(g)))
    return cases


def real_case(path: str = TRANSLATION_TEST, n: int = 200) -> tuple[str, list[str], list[str]] | None:
    """First `n` German references of the translation-pairs test split against a deterministic perturbation."""
    if not os.path.exists(path):
        return None
    refs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if len(refs) == n:
                break
            refs.append(json.loads(line)["de"])
    rng = random.Random(1234)
    hyps = [perturb(r, rng) for r in refs]
    return REAL_CASE, hyps, refs


def build_cases(include_real: bool = True) -> list[dict]:
    raw = synthetic_cases()
    if include_real:
        real = real_case()
        if real is not None:
            raw.append(real)
    return [{"name": name, "hypotheses": hyps, "references": refs, **_score(hyps, refs)} for name, hyps, refs in raw]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=FIXTURE)
    ap.add_argument("--with-real", action="store_true",
                    help="add a case from .cache/translation-pairs (third-party text: never commit that fixture)")
    args = ap.parse_args(argv)
    cases = build_cases(include_real=args.with_real)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {args.out} ({os.path.getsize(args.out)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
