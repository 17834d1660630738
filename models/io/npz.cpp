#include "models/io/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include "models/io/table_io.h"

namespace sinkscope::io {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kMax32 = 0xffffffffu;
// A fixed DOS timestamp (1980-01-01 00:00): the same run gives the same bytes.
constexpr std::uint16_t kDosTime = 0, kDosDate = (0 << 9) | (1 << 5) | 1;

void put16(std::string& s, std::uint16_t v) {
  for (int i = 0; i < 2; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint32_t crc_of(std::uint32_t crc, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const Bytef*>(data);
  while (bytes > 0) {  // zlib takes 32-bit lengths
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(bytes, 1u << 30));
    crc = static_cast<std::uint32_t>(crc32(crc, p, chunk));
    p += chunk;
    bytes -= chunk;
  }
  return crc;
}

// The .npy header of version 1.0 (2.0 when it would not fit 65535 bytes),
// padded so the data start 64-byte aligned.
std::string npy_header(const std::string& descr, const std::vector<std::int64_t>& shape) {
  std::string dims = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  dims += ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + dims + ", }";
  const bool v2 = dict.size() + 12 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  std::size_t total = prefix + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += static_cast<char>(v2 ? 2 : 1);
  h += static_cast<char>(0);
  if (v2)
    put32(h, static_cast<std::uint32_t>(dict.size()));
  else
    put16(h, static_cast<std::uint16_t>(dict.size()));
  return h + dict;
}

std::uint64_t count_of(const std::vector<std::int64_t>& shape) {
  std::uint64_t n = 1;
  for (auto d : shape) {
    if (d < 0) throw std::invalid_argument("npz: negative dimension");
    n *= static_cast<std::uint64_t>(d);
  }
  return n;
}

// UTF-8 (valid) to code points.
std::u32string utf32_of(const std::string& s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    char32_t c = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
    for (int k = 1; k < len && i + static_cast<std::size_t>(k) < s.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3f);
    out += c;
    i += static_cast<std::size_t>(len);
  }
  return out;
}

}  // namespace

NpzWriter::NpzWriter(fs::path path, bool overwrite) : path_(std::move(path)), overwrite_(overwrite) {
  output_check_replaceable(path_, overwrite_);
  const fs::path folder = path_.has_parent_path() ? path_.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw std::runtime_error(path_.string() + ": folder " + folder.string() + " does not exist");
  std::random_device rd;
  temp_ = folder / ("." + path_.filename().string() + ".tmp" + std::to_string(rd()));
  file_ = std::fopen(temp_.c_str(), "wbx");
  if (!file_)
    throw std::runtime_error(path_.string() + ": cannot write (" + std::strerror(errno) + ")");
}

NpzWriter::~NpzWriter() {
  if (file_) {
    std::fclose(file_);
    std::error_code ignored;
    fs::remove(temp_, ignored);
  }
}

void NpzWriter::write(const void* data, std::size_t bytes) {
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes)
    throw std::runtime_error(path_.string() + ": write failed (" + std::strerror(errno) + ")");
  position_ += bytes;
}

void NpzWriter::begin(const std::string& name, const std::string& descr,
                      const std::vector<std::int64_t>& shape, std::size_t itemSize) {
  if (open_) throw std::logic_error("npz: " + name + " begun before the last array ended");
  for (const auto& m : members_)
    if (m.name == name + ".npy") throw std::invalid_argument("npz: two arrays named " + name);
  const std::string header = npy_header(descr, shape);
  const std::uint64_t data = count_of(shape) * itemSize;
  Member m;
  m.name = name + ".npy";
  m.offset = position_;
  m.size = header.size() + data;
  const bool big = m.size >= kMax32;
  std::string local;
  put32(local, 0x04034b50);
  put16(local, 45);  // version needed: ZIP64
  put16(local, 0);
  put16(local, 0);  // stored
  put16(local, kDosTime);
  put16(local, kDosDate);
  put32(local, 0);  // CRC-32, patched by endArray()
  put32(local, big ? kMax32 : static_cast<std::uint32_t>(m.size));
  put32(local, big ? kMax32 : static_cast<std::uint32_t>(m.size));
  put16(local, static_cast<std::uint16_t>(m.name.size()));
  put16(local, big ? 20 : 0);
  local += m.name;
  if (big) {
    put16(local, 0x0001);
    put16(local, 16);
    put64(local, m.size);
    put64(local, m.size);
  }
  write(local.data(), local.size());
  members_.push_back(m);
  crc_ = crc_of(0, header.data(), header.size());
  write(header.data(), header.size());
  expected_ = data;
  open_ = true;
}

void NpzWriter::beginFloat32(const std::string& name, const std::vector<std::int64_t>& shape) {
  begin(name, "<f4", shape, 4);
}
void NpzWriter::beginInt32(const std::string& name, const std::vector<std::int64_t>& shape) {
  begin(name, "<i4", shape, 4);
}

void NpzWriter::appendBytes(const void* data, std::size_t bytes) {
  if (!open_ || bytes > expected_) throw std::logic_error("npz: more data than the shape holds");
  crc_ = crc_of(crc_, data, bytes);
  write(data, bytes);
  expected_ -= bytes;
}

void NpzWriter::append(std::span<const float> values) {
  appendBytes(values.data(), values.size_bytes());
}
void NpzWriter::append(std::span<const std::int32_t> values) {
  appendBytes(values.data(), values.size_bytes());
}

void NpzWriter::endArray() {
  if (!open_) throw std::logic_error("npz: no array to end");
  if (expected_ != 0) throw std::logic_error("npz: " + members_.back().name + " is short of data");
  Member& m = members_.back();
  m.crc = crc_;
  // Patch the CRC into the local header (offset 14), then return to the end.
  if (std::fflush(file_) != 0 || std::fseek(file_, static_cast<long>(m.offset + 14), SEEK_SET) != 0)
    throw std::runtime_error(path_.string() + ": write failed (" + std::strerror(errno) + ")");
  std::string crc;
  put32(crc, m.crc);
  if (std::fwrite(crc.data(), 1, 4, file_) != 4 || std::fseek(file_, 0, SEEK_END) != 0)
    throw std::runtime_error(path_.string() + ": write failed (" + std::strerror(errno) + ")");
  open_ = false;
}

void NpzWriter::addFloat32(const std::string& name, const std::vector<std::int64_t>& shape,
                           std::span<const float> values) {
  beginFloat32(name, shape);
  append(values);
  endArray();
}
void NpzWriter::addInt32(const std::string& name, const std::vector<std::int64_t>& shape,
                         std::span<const std::int32_t> values) {
  beginInt32(name, shape);
  append(values);
  endArray();
}

void NpzWriter::addUint8(const std::string& name, std::span<const std::uint8_t> values) {
  begin(name, "|u1", {static_cast<std::int64_t>(values.size())}, 1);
  appendBytes(values.data(), values.size());
  endArray();
}

void NpzWriter::addInt64(const std::string& name, std::span<const std::int64_t> values) {
  begin(name, "<i8", {static_cast<std::int64_t>(values.size())}, 8);
  appendBytes(values.data(), values.size_bytes());
  endArray();
}

std::uint64_t NpzWriter::fixedWidthBytes(const std::vector<std::string>& values) {
  std::uint64_t width = 1;
  for (const auto& v : values) width = std::max<std::uint64_t>(width, utf32_of(v).size());
  return 4 * width * values.size();
}

void NpzWriter::addPackedStrings(const std::string& name, const std::vector<std::string>& values) {
  std::vector<std::uint8_t> bytes;
  std::vector<std::int64_t> offsets{0};
  for (const auto& v : values) {
    bytes.insert(bytes.end(), v.begin(), v.end());
    offsets.push_back(static_cast<std::int64_t>(bytes.size()));
  }
  addUint8(name + "_utf8", bytes);
  addInt64(name + "_offsets", offsets);
}

void NpzWriter::addStrings(const std::string& name, const std::vector<std::string>& values) {
  std::vector<std::u32string> wide;
  std::size_t width = 1;
  for (const auto& v : values) {
    wide.push_back(utf32_of(v));
    width = std::max(width, wide.back().size());
  }
  begin(name, "<U" + std::to_string(width), {static_cast<std::int64_t>(values.size())}, 4 * width);
  std::vector<std::int32_t> cell(width);
  for (const auto& w : wide) {
    std::fill(cell.begin(), cell.end(), 0);
    std::copy(w.begin(), w.end(), cell.begin());
    append(std::span<const std::int32_t>(cell));
  }
  endArray();
}

void NpzWriter::addString(const std::string& name, const std::string& value) {
  const std::u32string wide = utf32_of(value);
  const std::size_t width = std::max<std::size_t>(1, wide.size());
  begin(name, "<U" + std::to_string(width), {}, 4 * width);
  std::vector<std::int32_t> cell(width, 0);
  std::copy(wide.begin(), wide.end(), cell.begin());
  append(std::span<const std::int32_t>(cell));
  endArray();
}

namespace {

// A ZIP central directory entry of one member (with its ZIP64 extra field
// where the size or the offset does not fit 32 bits).
void put_central_entry(std::string& cd, const std::string& name, std::uint64_t size,
                       std::uint64_t offset, std::uint32_t crc) {
  const bool bigSize = size >= kMax32, bigOffset = offset >= kMax32;
  std::string extra;
  if (bigSize || bigOffset) {
    std::string fields;
    if (bigSize) {
      put64(fields, size);
      put64(fields, size);
    }
    if (bigOffset) put64(fields, offset);
    put16(extra, 0x0001);
    put16(extra, static_cast<std::uint16_t>(fields.size()));
    extra += fields;
  }
  put32(cd, 0x02014b50);
  put16(cd, (3 << 8) | 45);  // made by: Unix, ZIP64
  put16(cd, 45);
  put16(cd, 0);
  put16(cd, 0);
  put16(cd, kDosTime);
  put16(cd, kDosDate);
  put32(cd, crc);
  put32(cd, bigSize ? kMax32 : static_cast<std::uint32_t>(size));
  put32(cd, bigSize ? kMax32 : static_cast<std::uint32_t>(size));
  put16(cd, static_cast<std::uint16_t>(name.size()));
  put16(cd, static_cast<std::uint16_t>(extra.size()));
  put16(cd, 0);  // comment
  put16(cd, 0);  // disk
  put16(cd, 0);  // internal attributes
  put32(cd, 0644u << 16);
  put32(cd, bigOffset ? kMax32 : static_cast<std::uint32_t>(offset));
  cd += name;
  cd += extra;
}

// The end of central directory records (ZIP64's too when needed).
std::string end_of_central_directory(std::uint64_t cdOffset, std::uint64_t cdSize,
                                     std::size_t members) {
  const bool zip64 = cdOffset >= kMax32 || members >= 0xffff;
  std::string end;
  if (zip64) {
    const std::uint64_t record = cdOffset + cdSize;
    put32(end, 0x06064b50);
    put64(end, 44);
    put16(end, 45);
    put16(end, 45);
    put32(end, 0);
    put32(end, 0);
    put64(end, members);
    put64(end, members);
    put64(end, cdSize);
    put64(end, cdOffset);
    put32(end, 0x07064b50);
    put32(end, 0);
    put64(end, record);
    put32(end, 1);
  }
  put32(end, 0x06054b50);
  put16(end, 0);
  put16(end, 0);
  const auto entries = static_cast<std::uint16_t>(std::min<std::size_t>(members, 0xffff));
  put16(end, entries);
  put16(end, entries);
  put32(end, static_cast<std::uint32_t>(std::min<std::uint64_t>(cdSize, kMax32)));
  put32(end, zip64 ? kMax32 : static_cast<std::uint32_t>(cdOffset));
  put16(end, 0);
  return end;
}

}  // namespace

void NpzWriter::commit() {
  if (open_) throw std::logic_error("npz: commit with an array still open");
  const std::uint64_t cdOffset = position_;
  std::string cd;
  for (const Member& m : members_) put_central_entry(cd, m.name, m.size, m.offset, m.crc);
  const std::string end = end_of_central_directory(cdOffset, cd.size(), members_.size());
  write(cd.data(), cd.size());
  write(end.data(), end.size());
  const bool flushed = std::fflush(file_) == 0 && !std::ferror(file_);
  const int flushErrno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  std::error_code ignored;
  if (!flushed || !closed) {
    fs::remove(temp_, ignored);
    throw std::runtime_error(path_.string() + ": write failed (" + std::strerror(flushErrno) + ")");
  }
  try {
    output_check_replaceable(path_, overwrite_);
  } catch (...) {
    fs::remove(temp_, ignored);
    throw;
  }
  std::error_code ec;
  fs::rename(temp_, path_, ec);
  if (ec) {
    fs::remove(temp_, ignored);
    throw std::runtime_error(path_.string() + ": cannot replace (" + ec.message() + ")");
  }
}

}  // namespace sinkscope::io
