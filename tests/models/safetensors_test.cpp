// The safetensors reader: round trips, half-precision conversion, and every
// way a file can lie about itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "models/safetensors.h"

namespace fs = std::filesystem;
using namespace sinkscope::models;

namespace {
fs::path temp_file(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("sinkscope-st-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// A file with the given header text and `dataBytes` zero bytes of data.
fs::path raw_file(const std::string& name, const std::string& header, std::size_t dataBytes,
                  std::uint64_t claimedHeader = 0) {
  const fs::path p = temp_file(name);
  std::ofstream out(p, std::ios::binary);
  const std::uint64_t n = claimedHeader ? claimedHeader : header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << header << std::string(dataBytes, '\0');
  return p;
}

std::string error_of(const fs::path& p) {
  try {
    SafetensorsFile::open(p);
  } catch (const SafetensorsError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Safetensors, RoundTripsEveryFloatType) {
  const std::vector<float> values{0.0f, 1.0f, -2.5f, 3.14159f, 1e-3f, -65504.0f, 6.1e-5f};
  std::vector<TensorData> tensors;
  for (DType d : {DType::F32, DType::F16, DType::BF16})
    tensors.push_back(tensor_from_f32(std::string("t_") + dtype_name(d), {7}, values, d));
  const fs::path p = temp_file("roundtrip.safetensors");
  safetensors_write(p, tensors, {{"format", "pt"}});
  const auto file = SafetensorsFile::open(p);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  ASSERT_EQ(file.tensors().size(), 3u);
  const auto f32 = tensor_to_f32(*file.find("t_F32"));
  EXPECT_EQ(f32, values);
  const auto f16 = tensor_to_f32(*file.find("t_F16"));
  const auto bf16 = tensor_to_f32(*file.find("t_BF16"));
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(f16[i], values[i], std::abs(values[i]) * 1e-3 + 1e-7) << i;
    EXPECT_NEAR(bf16[i], values[i], std::abs(values[i]) * 8e-3 + 1e-7) << i;
  }
  // Exact bit patterns from the IEEE definitions.
  EXPECT_EQ(f32_to_f16_bits(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16_bits(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16_bits(65504.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16_bits(1e6f), 0x7c00);
  EXPECT_EQ(f16_bits_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(f32_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits_to_f32(0xc0a0), -5.0f);
  EXPECT_TRUE(std::isnan(f16_bits_to_f32(f32_to_f16_bits(NAN))));
}

TEST(Safetensors, LyingFilesAreRejectedWithTheirProblem) {
  EXPECT_NE(error_of(temp_file("absent.safetensors")).find("cannot be opened"), std::string::npos);
  {
    const fs::path p = temp_file("tiny.safetensors");
    std::ofstream(p) << "abc";
    EXPECT_NE(error_of(p).find("truncated"), std::string::npos);
  }
  EXPECT_NE(error_of(raw_file("huge.safetensors", "{}", 0, 200ull << 20))
                .find("exceeds the 100 MB limit"),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("cut.safetensors", "{}", 0, 50)).find("truncated: header claims 50"),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("json.safetensors", "{not json", 0)).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("oob.safetensors",
                              R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8))
                .find("out of bounds"),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("size.safetensors",
                              R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", 16))
                .find("expected 12"),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("overlap.safetensors",
                              R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                              16))
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("dtype.safetensors",
                              R"({"a":{"dtype":"Q4","shape":[2],"data_offsets":[0,2]}})", 2))
                .find("unknown dtype \"Q4\""),
            std::string::npos);
  EXPECT_NE(error_of(raw_file("shape.safetensors",
                              R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4))
                .find("shape"),
            std::string::npos);
  // The message names the file.
  EXPECT_EQ(error_of(raw_file("named.safetensors", "[]", 0))
                .rfind(temp_file("named.safetensors").string(), 0),
            0u);
}
