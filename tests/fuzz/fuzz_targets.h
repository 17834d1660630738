#pragma once
// The fuzz targets: each feeds arbitrary bytes to one of the parsers a model
// folder reaches. A clean rejection is a ModelInputError (or a subclass);
// any other exception, a crash, a hang or a sanitizer report is a finding.
// The same functions run under libFuzzer (tests/fuzz/fuzz_entry.cpp) and in
// the release build's regression test (tests/fuzz/fuzz_corpus_test.cpp), which
// replays every file of tests/fuzz/corpus/TARGET/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sinkscope::fuzz {

// Returns true when the input was accepted, false when it was cleanly refused.
bool fuzz_safetensors(const std::uint8_t* data, std::size_t size);  // a whole safetensors file
bool fuzz_config(const std::uint8_t* data, std::size_t size);       // config.json
bool fuzz_index(const std::uint8_t* data, std::size_t size);        // model.safetensors.index.json
// tokenizer.json, then optionally "\n\x01\n" + tokenizer_config.json, then
// "\n\x01\n" + special_tokens_map.json, then "\n\x01\n" + a text to encode.
bool fuzz_tokenizer(const std::uint8_t* data, std::size_t size);
// First byte picks one of the shipped tokenizers (fuzz_encode_tokenizers);
// the rest is encoded.
bool fuzz_encode(const std::uint8_t* data, std::size_t size);

// Files a user receives (tests/fuzz/fuzz_file_targets.cpp). First byte's
// lowest bit: JSON lines; the rest is the sentence file's text.
bool fuzz_sentences(const std::uint8_t* data, std::size_t size);
bool fuzz_session(const std::uint8_t* data, std::size_t size);  // a .sinkscope file
// study.json and the merged tables, cut at "\n\x01\n" (see the .cpp).
bool fuzz_study(const std::uint8_t* data, std::size_t size);
// study.json and up to two shards (folder name, manifest, records), cut at
// "\n\x01\n"; read and pooled as `study merge --partial` does.
bool fuzz_shards(const std::uint8_t* data, std::size_t size);
// A capture file (NPZ: a ZIP of .npy arrays, as numpy, torch or our own
// `tensors` wrote it), read as `analyze --capture` reads it.
bool fuzz_capture(const std::uint8_t* data, std::size_t size);
// One .npy array (header and data), as a capture's member holds it.
bool fuzz_npy(const std::uint8_t* data, std::size_t size);

// The tokenizer.json files fuzz_encode uses: every built-in model's and the
// hand-written ones in tests/fuzz/tokenizers/ (WordPiece, Unigram, Metaspace).
std::vector<std::string> fuzz_encode_tokenizers();

// The targets by name, for the entry point and the replay test.
using FuzzTarget = bool (*)(const std::uint8_t*, std::size_t);
FuzzTarget fuzz_target_named(const std::string& name);
const std::vector<std::string>& fuzz_target_names();

}  // namespace sinkscope::fuzz
