#!/usr/bin/env python3
"""Writes inputs.inp: one JSON-encoded string per line, the texts every
tokenizer conformance test encodes. Deterministic; rerun to regenerate."""
import json, random, unicodedata

rng = random.Random(20261129)
base = [
    "", " ", "  ", "\n", "\t", "Hello", "Hello world", "Hello, world!", " leading space", "trailing space ",
    "The quick brown fox jumps over the lazy dog.", "I'm sure you'll see it's what they've done.",
    "Don't STOP; it'S fine, isn'T it?", "Attention sinks receive a large share of attention.",
    "multiple   spaces   here", "tabs\tand\ttabs", "new\nlines\n\nand\n\n\nmore", "mixed \t\n whitespace \r\n end",
    "numbers 1 12 123 1234 12345 1234567890", "3.14159 and 2,718 and -42 and 1e-9", "phone: +1 (555) 123-4567",
    "dates 2026-11-29 12:34:56", "0x1F 0b1010 007", "½ ¾ ² ³ ① Ⅻ", "U+0085 next\u0085line", "bom\ufeffinside",
    "\ufeffstarts with BOM", "nbsp\u00a0here", "zero\u200bwidth", "ideographic\u3000space", "em\u2003space",
    "emoji 😀 😃 😄", "family 👩‍👩‍👧‍👦 joined", "flags 🇫🇷🇯🇵", "skin 👍🏽 tone", "heart ❤️ variation",
    "日本語のテキストです。", "中文句子，包含标点。", "한국어 문장입니다.", "مرحبا بالعالم", "שלום עולם",
    "Здравствуй, мир!", "Γειά σου Κόσμε", "हिन्दी पाठ", "ภาษาไทย", "Tiếng Việt có dấu",
    unicodedata.normalize("NFC", "café naïve résumé"), unicodedata.normalize("NFD", "café naïve résumé"),
    unicodedata.normalize("NFD", "Ångström Øre"), "ﬁ ligature ﬂ", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "ß ẞ İ ı",
    "def f(x):\n    return x ** 2  # square\n", "for (int i = 0; i < n; ++i) { a[i] += b[i]; }",
    "<html><body class=\"x\">text</body></html>", "SELECT * FROM t WHERE a = 'b';", "{\"key\": [1, 2, {\"n\": null}]}",
    "https://example.com/path?q=1&r=two#frag", "mailto:someone@example.org", "C:\\Users\\name\\file.txt",
    "<s>", "</s>", "<unk>", "<s> hello </s>", "<|endoftext|>", "text<|endoftext|>more", "<|begin_of_text|>Hi",
    "<|im_start|>user\nhi<|im_end|>", "[CLS] [SEP] [MASK] [PAD]", "a [MASK] b", "<|endoftext|><|endoftext|>",
    "<s><s>", "< s >", "<|endof", "...", "!!!???", "---", "___", "a-b_c.d", "hello...world", "((()))", "'quoted'",
    "\"double\"", "`backtick`", "α+β=γ", "∑∫√∞≈≠", "→ ← ↑ ↓", "©®™", "€£¥₹", "#hashtag @mention", "camelCaseWord",
    "snake_case_word", "UPPERCASE WORDS", "MiXeD cAsE", "ALLCAPS123", "a", "I", "x y z", "    indented",
    "line1\r\nline2", "trailing newline\n", "\n\nleading newlines", "tab\t", " \t \n ", "punctuation, at; end:",
    "Mr. Smith went to Washington D.C.", "e.g. i.e. etc.", "it's", "'s 't 're 've 'm 'll 'd", "'S 'T 'RE",
]
words = ("the of and to in is was for on that with as by it from at he this be are which or an his not "
         "attention sink token model layer head query key value graph topology persistence spectrum "
         "über naïve façade 東京 北京 서울 café").split()
extra = []
while len(base) + len(extra) < 260:
    n = rng.randint(1, 14)
    sep = rng.choice([" ", " ", " ", "  ", "\n", "\t", ", ", ". "])
    s = sep.join(rng.choice(words) for _ in range(n))
    if rng.random() < 0.3:
        s += rng.choice(["!", "?", ".", " 42", " 2026", " :)", " 😀", "\n"])
    if rng.random() < 0.15:
        s = s.capitalize()
    extra.append(s)
with open("inputs.inp", "w", encoding="utf-8") as f:
    for s in base + extra:
        f.write(json.dumps(s, ensure_ascii=True) + "\n")
print(len(base) + len(extra), "inputs")
