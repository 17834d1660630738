#include "models/io/npz_reader.h"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

namespace sinkscope::io {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxHeaderBytes = 1 << 16;
constexpr std::size_t kMaxMembers = 4096;
constexpr std::size_t kMaxNameBytes = 256;
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;
constexpr int kMaxRank = 32;

std::uint32_t read_le(const std::uint8_t* p, int bytes) {
  std::uint32_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// The .npy header: a Python dict literal of 'descr', 'fortran_order' and 'shape'.
class HeaderParser {
 public:
  HeaderParser(std::string text, std::string where) : s_(std::move(text)), where_(std::move(where)) {}

  void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    std::set<std::string> seen;
    skipSpace();
    expect('{');
    for (;;) {
      skipSpace();
      if (peek() == '}') break;
      const std::string key = quoted();
      if (!seen.insert(key).second) fail("the key '" + key + "' appears twice");
      skipSpace();
      expect(':');
      skipSpace();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          fail("'descr' is not a simple dtype (structured arrays are not read)");
        descr = quoted();
      } else if (key == "fortran_order") {
        fortran = boolean();
      } else if (key == "shape") {
        shape = tuple();
      } else {
        fail("an unknown key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',') {
        ++at_;
        continue;
      }
      if (peek() != '}') fail("',' or '}' expected after '" + key + "'");
    }
    ++at_;
    for (const char* key : {"descr", "fortran_order", "shape"})
      if (!seen.count(key)) fail(std::string("no '") + key + "'");
    // numpy pads the dict with spaces up to its closing newline; nothing else follows it.
    skipSpace();
    if (at_ != s_.size()) fail("text after the closing '}'");
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw NpzError(where_ + ": the .npy header is not numpy's (" + problem + ")");
  }
  char peek() const { return at_ < s_.size() ? s_[at_] : '\0'; }
  void skipSpace() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\t')) ++at_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("'") + c + "' expected");
    ++at_;
  }
  std::string quoted() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("a quoted name expected");
    ++at_;
    std::string out;
    while (at_ < s_.size() && s_[at_] != q) {
      if (s_[at_] == '\\') fail("escapes in a name");
      out += s_[at_++];
      if (out.size() > 64) fail("a name over 64 characters");
    }
    expect(q);
    return out;
  }
  bool boolean() {
    for (const bool value : {true, false}) {
      const std::string word = value ? "True" : "False";
      if (s_.compare(at_, word.size(), word) == 0) {
        at_ += word.size();
        return value;
      }
    }
    fail("True or False expected");
  }
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> dims;
    for (;;) {
      skipSpace();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("a dimension is not a whole number");
      std::int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        d = d * 10 + (peek() - '0');
        if (d > kMaxDimension) fail("a dimension over 2^40");
        ++at_;
      }
      if (peek() == 'L') ++at_;  // Python 2's long
      dims.push_back(d);
      if (static_cast<int>(dims.size()) > kMaxRank) fail("more than 32 dimensions");
      skipSpace();
      if (peek() == ',') ++at_;
      else if (peek() != ')') fail("',' or ')' expected in the shape");
    }
    expect(')');
    return dims;
  }

  std::string s_, where_;
  std::size_t at_ = 0;
};

// '<', '|' or '=' then a kind and a size numpy writes for plain arrays.
void check_dtype(const std::string& descr, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return NpzError(where + ": dtype '" + descr + "' " + why);
  };
  if (descr.size() < 3) throw bad("is not read (give float32, float64, integers or strings)");
  const char order = descr[0], kind = descr[1];
  if (order == '>') throw bad("is big-endian: save it little-endian (numpy's default)");
  if (order != '<' && order != '|' && order != '=') throw bad("has no byte order SinkScope reads");
  const std::string digits = descr.substr(2);
  if (digits.empty() || digits.size() > 7 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw bad("has no item size");
  const int size = std::stoi(digits);
  const bool ok = (kind == 'f' && (size == 4 || size == 8)) ||
                  ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
                  (kind == 'b' && size == 1) || (kind == 'U' && size >= 1 && size <= (1 << 20));
  if (!ok) throw bad("is not read (give float32, float64, integers, booleans or strings)");
}

void append_utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string zip_problem(zip_error_t* error) { return zip_error_strerror(error); }

}  // namespace

std::uint64_t NpyArray::count() const {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

char NpyArray::kind() const { return dtype.size() > 1 ? dtype[1] : '\0'; }

std::size_t NpyArray::itemSize() const {
  const std::size_t n = static_cast<std::size_t>(std::stoul(dtype.substr(2)));
  return kind() == 'U' ? 4 * n : n;
}

std::vector<float> NpyArray::floats() const {
  const std::uint64_t n = count();
  std::vector<float> out(n);
  if (dtype.substr(1) == "f4") {
    if (n > 0) std::memcpy(out.data(), bytes.data(), n * 4);  // an empty vector's data() may be null
  } else if (dtype.substr(1) == "f8") {
    for (std::uint64_t k = 0; k < n; ++k) {
      double v;
      std::memcpy(&v, bytes.data() + 8 * k, 8);
      out[k] = static_cast<float>(v);
    }
  } else {
    throw NpzError(name + ": dtype '" + dtype + "' is not float32 or float64");
  }
  return out;
}

std::vector<std::int64_t> NpyArray::integers() const {
  const char k = kind();
  if (k != 'i' && k != 'u' && k != 'b')
    throw NpzError(name + ": dtype '" + dtype + "' is not an integer type");
  const std::size_t size = itemSize();
  const std::uint64_t n = count();
  std::vector<std::int64_t> out(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint8_t* p = bytes.data() + size * i;
    std::uint64_t u = 0;
    for (std::size_t b = 0; b < size; ++b) u |= static_cast<std::uint64_t>(p[b]) << (8 * b);
    if (k == 'i' && size < 8 && (u >> (8 * size - 1)) & 1) u |= ~std::uint64_t{0} << (8 * size);
    if (k == 'u' && size == 8 && u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw NpzError(name + ": a value over 2^63 - 1");
    out[i] = static_cast<std::int64_t>(u);
  }
  return out;
}

std::vector<std::string> NpyArray::strings() const {
  if (kind() != 'U') throw NpzError(name + ": dtype '" + dtype + "' is not a Unicode string type");
  const std::size_t width = itemSize() / 4;
  const std::uint64_t n = count();
  std::vector<std::string> out;
  out.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string s;
    std::size_t end = width;
    const std::uint8_t* p = bytes.data() + 4 * width * i;
    while (end > 0 && read_le(p + 4 * (end - 1), 4) == 0) --end;
    for (std::size_t c = 0; c < end; ++c) {
      const std::uint32_t cp = read_le(p + 4 * c, 4);
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0)
        throw NpzError(name + ": string " + std::to_string(i) + " holds an invalid code point");
      append_utf8(s, cp);
    }
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// The header of a .npy member whose first `available` bytes are `m` (of
// `memberSize` in all): dtype, order and shape checked; returns where the
// data start. Throws NpzError naming `where`.
std::size_t npy_header_parse(const std::uint8_t* m, std::size_t available, std::size_t memberSize,
                             const std::string& where, NpyArray& a) {
  static const std::uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (available < 10 || std::memcmp(m, kMagic, 6) != 0)
    throw NpzError(where + ": not a .npy array (no \\x93NUMPY magic)");
  const int major = m[6];
  if (major < 1 || major > 3)
    throw NpzError(where + ": .npy format version " + std::to_string(major) + " is not read");
  const int lengthBytes = major == 1 ? 2 : 4;
  if (available < static_cast<std::size_t>(8 + lengthBytes))
    throw NpzError(where + ": the .npy header is cut short");
  const std::uint32_t headerLength = read_le(m + 8, lengthBytes);
  const std::size_t dataStart = 8 + static_cast<std::size_t>(lengthBytes) + headerLength;
  if (headerLength > kMaxHeaderBytes || dataStart > available || dataStart > memberSize)
    throw NpzError(where + ": the .npy header is longer than the member");
  bool fortran = false;
  HeaderParser(std::string(m + 8 + lengthBytes, m + dataStart), where)
      .parse(a.dtype, fortran, a.shape);
  check_dtype(a.dtype, where);
  if (fortran)
    throw NpzError(where + ": a Fortran-ordered array; save np.ascontiguousarray(x) instead");
  // The bytes the shape needs, saturating (a hostile shape's product may not fit 64 bits).
  const std::uint64_t dataBytes = memberSize - dataStart;
  std::uint64_t expected = a.itemSize();
  bool overflow = false;
  for (std::int64_t d : a.shape) {
    const auto factor = static_cast<std::uint64_t>(d);
    if (factor != 0 && expected > std::numeric_limits<std::uint64_t>::max() / factor) overflow = true;
    expected *= factor;
  }
  if (std::any_of(a.shape.begin(), a.shape.end(), [](std::int64_t d) { return d == 0; })) {
    overflow = false;
    expected = 0;
  }
  if (overflow || expected != dataBytes)
    throw NpzError(where + ": the shape and dtype need " +
                   (overflow ? std::string("more than 2^64") : std::to_string(expected)) +
                   " bytes of data, the member holds " + std::to_string(dataBytes));
  return dataStart;
}

}  // namespace

NpyArray npy_parse(const std::vector<std::uint8_t>& m, const std::string& where) {
  NpyArray a;
  const std::size_t dataStart = npy_header_parse(m.data(), m.size(), m.size(), where, a);
  a.bytes.assign(m.begin() + static_cast<std::ptrdiff_t>(dataStart), m.end());
  return a;
}

NpzReader::NpzReader(const fs::path& file, std::uint64_t maxArrayBytes)
    : file_(file), maxArrayBytes_(maxArrayBytes) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec || !fs::exists(status)) throw NpzError(file.string() + ": no such file");
  if (!fs::is_regular_file(status))
    throw NpzError(file.string() + ": not a regular file (a folder, device or FIFO)");
  int error = 0;
  zip_t* z = zip_open(file.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!z) {
    zip_error_t e;
    zip_error_init_with_code(&e, error);
    const std::string problem = zip_problem(&e);
    zip_error_fini(&e);
    throw NpzError(file.string() + ": not a readable .npz (zip) file (" + problem + ")");
  }
  zip_ = z;
  const zip_int64_t n = zip_get_num_entries(z, 0);
  if (n < 0 || static_cast<std::uint64_t>(n) > kMaxMembers) {
    zip_discard(z);
    zip_ = nullptr;
    throw NpzError(file.string() + ": more than " + std::to_string(kMaxMembers) + " arrays");
  }
  std::set<std::string> seen;
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(z, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    const std::string member = raw ? raw : "";
    auto refuse = [&](const std::string& why) {
      zip_discard(z);
      zip_ = nullptr;
      return NpzError(file.string() + ": member '" + member.substr(0, kMaxNameBytes) + "' " + why);
    };
    if (member.size() < 5 || member.size() > kMaxNameBytes || member.substr(member.size() - 4) != ".npy")
      throw refuse("is not an .npy array");
    const std::string name = member.substr(0, member.size() - 4);
    if (!seen.insert(name).second) throw refuse("appears twice");
    names_.push_back(name);
    indices_.push_back(static_cast<std::uint64_t>(i));
  }
}

NpzReader::~NpzReader() {
  if (zip_) zip_discard(static_cast<zip_t*>(zip_));
}

bool NpzReader::contains(const std::string& name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

namespace {

// zip_fread until `size` bytes or the end; the problem, if any, into `problem`.
std::uint64_t read_fully(zip_file_t* f, std::uint8_t* into, std::uint64_t size,
                         std::string& problem) {
  std::uint64_t got = 0;
  while (got < size) {
    const zip_int64_t r = zip_fread(f, into + got, size - got);
    if (r < 0) {
      problem = zip_file_strerror(f);
      break;
    }
    if (r == 0) break;
    got += static_cast<std::uint64_t>(r);
  }
  return got;
}

}  // namespace

std::uint64_t NpzReader::memberSize(const std::string& name, std::uint64_t& index) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  const std::string where = file_.string() + ": " + name;
  if (it == names_.end()) throw NpzError(where + ": no such array");
  index = indices_[static_cast<std::size_t>(it - names_.begin())];
  zip_t* z = static_cast<zip_t*>(zip_);
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(z, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw NpzError(where + ": its size cannot be read (" + zip_strerror(z) + ")");
  if (st.size > maxArrayBytes_ + kMaxHeaderBytes + 16)
    throw NpzError(where + ": " + std::to_string(st.size) + " bytes, over the " +
                   std::to_string(maxArrayBytes_) + " bytes an array may hold here");
  // A few hostile bytes may claim gigabytes: nothing is allocated at the
  // claimed size unless the stored bytes could hold it. numpy writes members
  // stored (savez) or deflated (savez_compressed); deflate expands at most
  // about 1032:1.
  if (!(st.valid & ZIP_STAT_COMP_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD))
    throw NpzError(where + ": its compressed size cannot be read");
  if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
    throw NpzError(where + ": compressed with ZIP method " + std::to_string(st.comp_method) +
                   "; give stored or deflated members (numpy's savez or savez_compressed)");
  const std::uint64_t mostItHolds =
      st.comp_method == ZIP_CM_STORE ? st.comp_size : st.comp_size * 1032 + 1024;
  if (st.size > mostItHolds)
    throw NpzError(where + ": claims " + std::to_string(st.size) + " bytes, more than its " +
                   std::to_string(st.comp_size) + " stored bytes can hold");
  return st.size;
}

void* NpzReader::openMember(const std::string& name, std::uint64_t& size,
                            std::string& where) const {
  std::uint64_t index = 0;
  size = memberSize(name, index);
  where = file_.string() + ": " + name;
  zip_t* z = static_cast<zip_t*>(zip_);
  zip_file_t* f = zip_fopen_index(z, index, 0);
  if (!f) throw NpzError(where + ": cannot be opened (" + zip_strerror(z) + ")");
  return f;
}

NpyArray NpzReader::header(const std::string& name) const {
  std::uint64_t size = 0;
  std::string where;
  zip_file_t* f = static_cast<zip_file_t*>(openMember(name, size, where));
  // The magic, version, header length and the longest header there may be.
  std::vector<std::uint8_t> head(
      static_cast<std::size_t>(std::min<std::uint64_t>(size, 12 + kMaxHeaderBytes)));
  std::string problem;
  const std::uint64_t got = read_fully(f, head.data(), head.size(), problem);
  zip_fclose(f);
  if (!problem.empty()) throw NpzError(where + ": damaged (" + problem + ")");
  NpyArray a;
  a.name = where;
  npy_header_parse(head.data(), static_cast<std::size_t>(got), static_cast<std::size_t>(size),
                   where, a);
  return a;
}

NpyArray NpzReader::read(const std::string& name) const {
  std::uint64_t size = 0;
  std::string where;
  zip_file_t* f = static_cast<zip_file_t*>(openMember(name, size, where));
  // Grown as the bytes arrive, never to the claimed size at once: a member
  // that claims more than its stream holds costs what it holds.
  std::vector<std::uint8_t> member;
  std::string problem;
  std::uint64_t got = 0;
  constexpr std::uint64_t kChunk = std::uint64_t{16} << 20;
  while (got < size && problem.empty()) {
    const std::uint64_t want = std::min(kChunk, size - got);
    member.resize(static_cast<std::size_t>(got + want));
    const std::uint64_t read = read_fully(f, member.data() + got, want, problem);
    got += read;
    if (read < want) break;
  }
  member.resize(static_cast<std::size_t>(got));
  // Reading to the end checks the CRC: one more read must find nothing.
  std::uint8_t extra = 0;
  if (problem.empty() && got == size) {
    const zip_int64_t r = zip_fread(f, &extra, 1);
    if (r < 0) problem = zip_file_strerror(f);
    else if (r > 0) problem = "more data than its recorded size";
  }
  zip_fclose(f);
  if (!problem.empty()) throw NpzError(where + ": damaged (" + problem + ")");
  if (got != size)
    throw NpzError(where + ": cut short (" + std::to_string(got) + " of " + std::to_string(size) +
                   " bytes)");
  NpyArray a = npy_parse(member, where);
  a.name = where;
  return a;
}

}  // namespace sinkscope::io
