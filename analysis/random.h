#pragma once
// SplitMix64 (Steele, Lea and Flood 2014): a generator that is cheap to seed,
// one per stream (a random subset, a bootstrap resample, a weight tensor), with
// good statistical quality for shuffling and resampling. Every seeded draw of
// SinkScope comes from here, so a number reproduces from its seed alone.
#include <cstdint>

namespace sinkscope::analysis {

// The generator's output function: a bijection of 64-bit words that spreads
// every input bit over the output (also a hash of structured input).
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The golden-ratio increment of the generator's state.
inline constexpr std::uint64_t kSplitMix64Increment = 0x9e3779b97f4a7c15ull;

class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t state) : state_(state) {}
  constexpr std::uint64_t operator()() { return splitmix64_mix(state_ += kSplitMix64Increment); }

 private:
  std::uint64_t state_;
};

}  // namespace sinkscope::analysis
