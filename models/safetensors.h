#pragma once
// The safetensors format, read through a memory map: an 8-byte little-endian
// header length N, N bytes of JSON describing each tensor (dtype, shape,
// data_offsets relative to the data section), then the data. Every claim of
// the header is checked against the file before a byte is handed out.
#include "models/input_files.h"
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinkscope::models {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);  // as safetensors spells it: "F32", "BF16", ...
std::optional<DType> dtype_parse(const std::string& name);

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> bytes;  // inside the memory map

  std::int64_t numel() const;
};

class SafetensorsError : public ModelInputError {
 public:
  using ModelInputError::ModelInputError;
};

// Largest header accepted; larger ones are treated as corrupt files.
inline constexpr std::uint64_t kSafetensorsMaxHeader = 100ull * 1024 * 1024;

class SafetensorsFile {
 public:
  // Maps and validates the file. Throws SafetensorsError naming the file and the problem.
  // Only regular files are opened (a FIFO or device is refused before open()).
  static SafetensorsFile open(const std::filesystem::path& path);
  // The same checks over bytes held in memory (tests, fuzzing); `name` is used in messages.
  static SafetensorsFile fromBytes(std::vector<std::byte> bytes, const std::filesystem::path& name);

  const std::filesystem::path& path() const { return path_; }
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const TensorView* find(const std::string& name) const;
  std::uint64_t fileSize() const;

 private:
  struct Mapping;
  std::filesystem::path path_;
  std::shared_ptr<Mapping> mapping_;  // shared: views stay valid while any copy lives
  std::map<std::string, TensorView> tensors_;
  std::map<std::string, std::string> metadata_;
  void parse();  // validates the mapped bytes and fills tensors_ and metadata_
};

// Converts a floating-point tensor (F32, F16, BF16, F64) to float32.
// Throws SafetensorsError for other dtypes or a size mismatch.
void tensor_to_f32(const TensorView& tensor, std::span<float> out);
std::vector<float> tensor_to_f32(const TensorView& tensor);

std::uint16_t f32_to_f16_bits(float value);   // round to nearest even
std::uint16_t f32_to_bf16_bits(float value);  // round to nearest even
float f16_bits_to_f32(std::uint16_t bits);
float bf16_bits_to_f32(std::uint16_t bits);

struct TensorData {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;
};

// Packs float32 values into `dtype` (F32, F16 or BF16).
TensorData tensor_from_f32(std::string name, std::vector<std::int64_t> shape,
                           std::span<const float> values, DType dtype);

// Writes a safetensors file atomically (temporary file, then rename), tensors
// in name order, data 8-byte aligned. `metadata` goes under "__metadata__".
void safetensors_write(const std::filesystem::path& path, const std::vector<TensorData>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// A tensor's name, dtype and shape without its bytes.
struct TensorHeader {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t byteSize() const {
    std::uint64_t n = dtype_size(dtype);
    for (auto d : shape) n *= static_cast<std::uint64_t>(d);
    return n;
  }
};
// Fills `out` with bytes [first, first + out.size()) of tensor `index`.
using TensorBytesFill =
    std::function<void(std::size_t index, std::uint64_t first, std::span<std::byte> out)>;

// As safetensors_write, asking `fill` for each tensor's bytes a block at a
// time, so a file of any size is written in bounded memory.
void safetensors_write_streamed(const std::filesystem::path& path,
                                const std::vector<TensorHeader>& tensors,
                                const TensorBytesFill& fill,
                                const std::map<std::string, std::string>& metadata = {});

}  // namespace sinkscope::models
