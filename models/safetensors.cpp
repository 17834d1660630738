#include "models/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "models/internal/json_input.h"

namespace sinkscope::models {

namespace fs = std::filesystem;
using nlohmann::json;

std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::F64:
    case DType::I64:
      return 8;
    case DType::F32:
    case DType::I32:
      return 4;
    case DType::F16:
    case DType::BF16:
    case DType::I16:
      return 2;
    case DType::I8:
    case DType::U8:
    case DType::Bool:
      return 1;
  }
  return 0;
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::F64:
      return "F64";
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::I64:
      return "I64";
    case DType::I32:
      return "I32";
    case DType::I16:
      return "I16";
    case DType::I8:
      return "I8";
    case DType::U8:
      return "U8";
    case DType::Bool:
      return "BOOL";
  }
  return "?";
}

std::optional<DType> dtype_parse(const std::string& name) {
  for (DType d : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64, DType::I32,
                  DType::I16, DType::I8, DType::U8, DType::Bool})
    if (name == dtype_name(d)) return d;
  return std::nullopt;
}

std::int64_t TensorView::numel() const {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

struct SafetensorsFile::Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  bool mapped = false;           // address is an mmap (else it points into `owned`)
  std::vector<std::byte> owned;  // fromBytes
  ~Mapping() {
    if (mapped && address && size) munmap(address, size);
  }
};

namespace {
[[noreturn]] void bad_safetensors(const fs::path& path, const std::string& problem) {
  throw SafetensorsError(path.string() + ": " + problem);
}

std::uint64_t read_le64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}
}  // namespace

SafetensorsFile SafetensorsFile::open(const fs::path& path) {
  SafetensorsFile file;
  file.path_ = path;
  struct stat st {};
  // Checked before open(): opening a FIFO blocks until a writer appears.
  if (::stat(path.c_str(), &st) != 0)
    bad_safetensors(path, std::string("cannot be opened (") + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    bad_safetensors(path, "not a regular file (a folder, FIFO, device or socket)");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) bad_safetensors(path, std::string("cannot be opened (") + std::strerror(errno) + ")");
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    bad_safetensors(path, "cannot be read as a regular file");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < 8) {
    ::close(fd);
    bad_safetensors(path,
                    "truncated: " + std::to_string(size) + " bytes, not even a header length");
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->address = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapping->address == MAP_FAILED) {
    mapping->address = nullptr;
    bad_safetensors(path, std::string("cannot be memory-mapped (") + std::strerror(errno) + ")");
  }
  mapping->mapped = true;
  mapping->size = size;
  file.mapping_ = mapping;
  file.parse();
  return file;
}

SafetensorsFile SafetensorsFile::fromBytes(std::vector<std::byte> bytes, const fs::path& name) {
  SafetensorsFile file;
  file.path_ = name;
  if (bytes.size() < 8)
    bad_safetensors(
        name, "truncated: " + std::to_string(bytes.size()) + " bytes, not even a header length");
  auto mapping = std::make_shared<Mapping>();
  mapping->owned = std::move(bytes);
  mapping->address = mapping->owned.data();
  mapping->size = mapping->owned.size();
  file.mapping_ = mapping;
  file.parse();
  return file;
}

void SafetensorsFile::parse() {
  const fs::path& path = path_;
  SafetensorsFile& file = *this;
  const std::uint64_t size = mapping_->size;
  const auto* base = static_cast<const std::byte*>(mapping_->address);

  const std::uint64_t headerSize = read_le64(base);
  if (headerSize > kSafetensorsMaxHeader)
    bad_safetensors(
        path, "header length " + std::to_string(headerSize) + " bytes exceeds the 100 MB limit");
  if (8 + headerSize > size)
    bad_safetensors(path, "truncated: header claims " + std::to_string(headerSize) +
                              " bytes, file has " + std::to_string(size - 8) + " after the length");
  const json header = internal::rethrow_as<SafetensorsError>([&] {
    return internal::json_parse_bounded(
        std::string_view(reinterpret_cast<const char*>(base + 8), headerSize),
        path.string() + " (header)");
  });
  if (!header.is_object()) bad_safetensors(path, "header is not a JSON object");

  const std::byte* data = base + 8 + headerSize;
  const std::uint64_t dataSize = size - 8 - headerSize;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::vector<std::string> rangeNames;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) bad_safetensors(path, "\"__metadata__\" is not an object");
      for (const auto& [k, v] : entry.items()) {
        if (!v.is_string())  // the format's metadata is a map of strings to strings
          bad_safetensors(path, "\"__metadata__\" entry \"" + k + "\" is not a string");
        file.metadata_[k] = v.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor \"" + name + "\"";
    if (!entry.is_object()) bad_safetensors(path, where + " is not an object");
    auto dt = entry.find("dtype");
    auto sh = entry.find("shape");
    auto off = entry.find("data_offsets");
    if (dt == entry.end() || !dt->is_string()) bad_safetensors(path, where + ": \"dtype\" missing");
    if (sh == entry.end() || !sh->is_array()) bad_safetensors(path, where + ": \"shape\" missing");
    if (off == entry.end() || !off->is_array() || off->size() != 2)
      bad_safetensors(path, where + ": \"data_offsets\" must be [begin, end]");
    const auto dtype = dtype_parse(dt->get<std::string>());
    if (!dtype) bad_safetensors(path, where + ": unknown dtype \"" + dt->get<std::string>() + "\"");
    TensorView view;
    view.name = name;
    view.dtype = *dtype;
    std::uint64_t count = 1;
    if (sh->size() > 16) bad_safetensors(path, where + ": shape has more than 16 dimensions");
    for (const auto& d : *sh) {
      if (!d.is_number_unsigned())
        bad_safetensors(path, where + ": shape has a non-integer or negative entry");
      const std::uint64_t n = d.get<std::uint64_t>();
      if (n != 0 && count > std::numeric_limits<std::uint64_t>::max() / 16 / n)
        bad_safetensors(path, where + ": shape is impossibly large");
      count *= n;
      view.shape.push_back(static_cast<std::int64_t>(n));
    }
    if (!(*off)[0].is_number_unsigned() || !(*off)[1].is_number_unsigned())
      bad_safetensors(path, where + ": data_offsets must be non-negative integers");
    const auto begin = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
    if (begin > end || end > dataSize)
      bad_safetensors(path, where + ": data_offsets [" + std::to_string(begin) + ", " +
                                std::to_string(end) + "] out of bounds (data section is " +
                                std::to_string(dataSize) + " bytes)");
    const std::uint64_t expected = count * dtype_size(*dtype);
    if (end - begin != expected)
      bad_safetensors(path, where + ": " + std::to_string(end - begin) + " bytes for dtype " +
                                dtype_name(*dtype) + " and shape of " + std::to_string(count) +
                                " elements (expected " + std::to_string(expected) + ")");
    view.bytes = {data + begin, static_cast<std::size_t>(end - begin)};
    ranges.emplace_back(begin, end);
    rangeNames.push_back(name);
    file.tensors_.emplace(name, std::move(view));
  }
  (void)file;
  // No two tensors may share bytes.
  std::vector<std::size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return ranges[a] < ranges[b]; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto& prev = ranges[order[i - 1]];
    const auto& cur = ranges[order[i]];
    if (cur.first < prev.second && cur.second > cur.first && prev.second > prev.first)
      bad_safetensors(path, "tensors \"" + rangeNames[order[i - 1]] + "\" and \"" +
                                rangeNames[order[i]] + "\" overlap");
  }
}

const TensorView* SafetensorsFile::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

std::uint64_t SafetensorsFile::fileSize() const { return mapping_ ? mapping_->size : 0; }

float f16_bits_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exponent = 127 - 15 + 1;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --exponent;
      }
      mantissa &= 0x3ffu;
      bits = sign | (exponent << 23) | (mantissa << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

float bf16_bits_to_f32(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint16_t f32_to_bf16_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

std::uint16_t f32_to_f16_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t absBits = bits & 0x7fffffffu;
  if (absBits > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (absBits >= 0x477ff000u) return sign | 0x7c00u;  // overflow to inf
  if (absBits < 0x33000001u) return sign;             // underflow to 0
  const int exponent = static_cast<int>(absBits >> 23) - 127;
  std::uint32_t mantissa = (absBits & 0x7fffffu) | 0x800000u;
  int shift;
  std::uint32_t halfExponent;
  if (exponent < -14) {  // subnormal half
    shift = 13 + (-14 - exponent);
    halfExponent = 0;
  } else {
    shift = 13;
    halfExponent = static_cast<std::uint32_t>(exponent + 15);
    mantissa &= 0x7fffffu;
  }
  const std::uint32_t halfway = 1u << (shift - 1);
  std::uint32_t m = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1);
  if (rest > halfway || (rest == halfway && (m & 1u))) ++m;
  // Carry from the mantissa into the exponent is handled by plain addition.
  return static_cast<std::uint16_t>(sign | ((halfExponent << 10) + m));
}

void tensor_to_f32(const TensorView& t, std::span<float> out) {
  const auto n = static_cast<std::size_t>(t.numel());
  if (out.size() != n) throw SafetensorsError("tensor \"" + t.name + "\": output size mismatch");
  const std::byte* p = t.bytes.data();
  switch (t.dtype) {
    case DType::F32:
      std::memcpy(out.data(), p, n * 4);
      return;
    case DType::F64:
      for (std::size_t i = 0; i < n; ++i) {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        out[i] = static_cast<float>(v);
      }
      return;
    case DType::F16:
    case DType::BF16:
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i] = t.dtype == DType::F16 ? f16_bits_to_f32(h) : bf16_bits_to_f32(h);
      }
      return;
    default:
      throw SafetensorsError("tensor \"" + t.name + "\": dtype " + dtype_name(t.dtype) +
                             " is not a floating-point type");
  }
}

std::vector<float> tensor_to_f32(const TensorView& t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  tensor_to_f32(t, out);
  return out;
}

TensorData tensor_from_f32(std::string name, std::vector<std::int64_t> shape,
                           std::span<const float> values, DType dtype) {
  TensorData t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.dtype = dtype;
  const std::size_t n = values.size();
  t.bytes.resize(n * dtype_size(dtype));
  switch (dtype) {
    case DType::F32:
      std::memcpy(t.bytes.data(), values.data(), n * 4);
      break;
    case DType::F16:
    case DType::BF16:
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t h =
            dtype == DType::F16 ? f32_to_f16_bits(values[i]) : f32_to_bf16_bits(values[i]);
        std::memcpy(t.bytes.data() + 2 * i, &h, 2);
      }
      break;
    default:
      throw SafetensorsError("tensor \"" + t.name + "\": cannot pack floats as " +
                             dtype_name(dtype));
  }
  return t;
}

void safetensors_write_streamed(const fs::path& path, const std::vector<TensorHeader>& tensors,
                                const TensorBytesFill& fill,
                                const std::map<std::string, std::string>& metadata) {
  std::vector<std::size_t> order(tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return tensors[a].name < tensors[b].name; });
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (std::size_t i : order) {
    const TensorHeader& t = tensors[i];
    const std::uint64_t bytes = t.byteSize();
    header[t.name] = {{"dtype", dtype_name(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text += ' ';  // data section starts 8-byte aligned
  std::random_device rd;
  const fs::path temp =
      path.parent_path() / ("." + path.filename().string() + ".tmp" + std::to_string(rd()));
  auto fail = [&](const std::string& why) {  // a failed write, not a bad file: exit 1
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(path.string() + ": " + why);
  };
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot write");
    std::uint64_t n = text.size();
    char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    out.write(len, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    // In blocks: a tensor of gigabytes is never held whole.
    constexpr std::uint64_t kBlock = std::uint64_t{16} << 20;
    std::vector<std::byte> block;
    for (std::size_t i : order) {
      const std::uint64_t bytes = tensors[i].byteSize();
      for (std::uint64_t first = 0; first < bytes && out; first += kBlock) {
        block.resize(static_cast<std::size_t>(std::min(kBlock, bytes - first)));
        fill(i, first, block);
        out.write(reinterpret_cast<const char*>(block.data()),
                  static_cast<std::streamsize>(block.size()));
      }
    }
    out.flush();
    if (!out) fail("write failed (disk full?)");
  }
  fs::rename(temp, path);
}

void safetensors_write(const fs::path& path, const std::vector<TensorData>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<TensorHeader> headers;
  for (const auto& t : tensors) {
    headers.push_back({t.name, t.dtype, t.shape});
    if (headers.back().byteSize() != t.bytes.size())
      throw SafetensorsError(path.string() + ": tensor \"" + t.name +
                             "\" has bytes that do not match its shape");
  }
  safetensors_write_streamed(
      path, headers,
      [&](std::size_t i, std::uint64_t first, std::span<std::byte> out) {
        std::memcpy(out.data(), tensors[i].bytes.data() + first, out.size());
      },
      metadata);
}

}  // namespace sinkscope::models
