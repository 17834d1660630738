#pragma once
// NumPy's .npz files read as hostile input (captures made by other tools): a
// ZIP archive, read with libzip (stored or deflated members, ZIP64, CRC
// checked), of .npy arrays (format 1.0 to 3.0) whose header is parsed here.
// Little-endian float32/float64, signed and unsigned integers, booleans and
// Unicode strings in C order are read; every size is checked against the
// reader's budget before anything is allocated. Errors name the file, the
// member and the problem.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinkscope::io {

class NpzError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One array: its dtype as numpy spells it ("<f4", "<U12", "|u1"), its shape
// (empty: a 0-d array) and its bytes in C order.
struct NpyArray {
  std::string name;  // where it came from, for errors: "FILE: NAME"
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;

  std::uint64_t count() const;  // elements: the product of the shape (1 for 0-d)
  char kind() const;            // 'f', 'i', 'u', 'b' or 'U'
  std::size_t itemSize() const;
  // The values as float32 (float32, or float64 narrowed); throws for other kinds.
  std::vector<float> floats() const;
  // The values as int64 (signed or unsigned integers, booleans); throws otherwise.
  std::vector<std::int64_t> integers() const;
  // A Unicode array's strings as UTF-8 (trailing NULs dropped); throws otherwise.
  std::vector<std::string> strings() const;
};

// The .npy member's bytes parsed (its header and data); `where` names it in errors.
NpyArray npy_parse(const std::vector<std::uint8_t>& member, const std::string& where);

class NpzReader {
 public:
  // Opens `file` (a regular file, not a link to a device or FIFO); arrays
  // whose data exceeds `maxArrayBytes` are refused when read.
  NpzReader(const std::filesystem::path& file, std::uint64_t maxArrayBytes);
  ~NpzReader();
  NpzReader(const NpzReader&) = delete;
  NpzReader& operator=(const NpzReader&) = delete;

  // The arrays' names (members without ".npy"), in the archive's order.
  const std::vector<std::string>& names() const { return names_; }
  bool contains(const std::string& name) const;
  NpyArray read(const std::string& name) const;
  // The array's dtype and shape from its .npy header alone (no data read or
  // allocated): what a reader checks before it reads a hostile member.
  NpyArray header(const std::string& name) const;

 private:
  // The member's uncompressed size, checked against the budget and what its
  // stored bytes can hold; its index into `index`.
  std::uint64_t memberSize(const std::string& name, std::uint64_t& index) const;
  // The member opened for reading (a zip_file_t*, closed by the caller), its
  // checked size into `size` and its name as messages give it into `where`.
  void* openMember(const std::string& name, std::uint64_t& size, std::string& where) const;
  std::filesystem::path file_;
  std::uint64_t maxArrayBytes_;
  void* zip_ = nullptr;  // zip_t*
  std::vector<std::string> names_;
  std::vector<std::uint64_t> indices_;  // each name's member index
};

}  // namespace sinkscope::io
