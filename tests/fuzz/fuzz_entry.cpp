// libFuzzer entry point: one binary per target, chosen at compile time
// (SINKSCOPE_FUZZ_TARGET, see tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const sinkscope::fuzz::FuzzTarget target =
      sinkscope::fuzz::fuzz_target_named(SINKSCOPE_FUZZ_TARGET);
  target(data, size);
  return 0;
}
