#pragma once
// NumPy's .npz format (a zip of .npy arrays, stored uncompressed), written
// without numpy: numpy.load(FILE) gives a dict of arrays. Large arrays are
// streamed in pieces (a layer at a time), so a model's whole capture never
// needs to sit in memory twice; ZIP64 takes over past 4 GiB. Written to a
// temporary sibling and renamed into place on commit(), like every file we
// write; a writer destroyed before commit() leaves nothing.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace sinkscope::io {

class NpzWriter {
 public:
  // Refuses an existing `path` unless `overwrite` (and then only a regular
  // file). Throws std::runtime_error naming the file.
  NpzWriter(std::filesystem::path path, bool overwrite);
  ~NpzWriter();
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;

  // A float32 ('<f4') or int32 ('<i4') array of `shape`, filled by append()
  // calls in C order; endArray() checks that exactly the shape's count came.
  void beginFloat32(const std::string& name, const std::vector<std::int64_t>& shape);
  void beginInt32(const std::string& name, const std::vector<std::int64_t>& shape);
  void append(std::span<const float> values);
  void append(std::span<const std::int32_t> values);
  void endArray();

  // Whole arrays at once.
  void addFloat32(const std::string& name, const std::vector<std::int64_t>& shape,
                  std::span<const float> values);
  void addInt32(const std::string& name, const std::vector<std::int64_t>& shape,
                std::span<const std::int32_t> values);
  void addUint8(const std::string& name, std::span<const std::uint8_t> values);  // 1-D '|u1'
  void addInt64(const std::string& name, std::span<const std::int64_t> values);  // 1-D '<i8'
  // A 1-D array of Unicode strings ('<Un', UTF-8 in, UTF-32 stored): every
  // cell is as wide as the longest string.
  void addStrings(const std::string& name, const std::vector<std::string>& values);
  // The bytes of a fixed-width array of these strings (what addStrings writes).
  static std::uint64_t fixedWidthBytes(const std::vector<std::string>& values);
  // The same strings without padding: NAME_utf8 ('|u1', the UTF-8 bytes one
  // after another) and NAME_offsets ('<i8', n + 1 entries; string k is bytes
  // offsets[k] to offsets[k + 1]).
  void addPackedStrings(const std::string& name, const std::vector<std::string>& values);
  // A 0-d Unicode string (numpy: arr[()] or str(arr)), e.g. JSON parameters.
  void addString(const std::string& name, const std::string& value);

  // Writes the zip directory and renames the file into place.
  void commit();

 private:
  struct Member {
    std::string name;
    std::uint64_t offset = 0;     // of the local header
    std::uint64_t size = 0;       // bytes of the .npy member
    std::uint32_t crc = 0;
  };
  void begin(const std::string& name, const std::string& descr,
             const std::vector<std::int64_t>& shape, std::size_t itemSize);
  void write(const void* data, std::size_t bytes);
  void appendBytes(const void* data, std::size_t bytes);  // into the open array, with its CRC

  std::filesystem::path path_, temp_;
  bool overwrite_ = false;
  std::FILE* file_ = nullptr;
  std::vector<Member> members_;
  bool open_ = false;             // an array is being appended to
  std::uint64_t expected_ = 0;    // data bytes the open array still needs
  std::uint64_t position_ = 0;    // bytes written to the file so far
  std::uint32_t crc_ = 0;
};

}  // namespace sinkscope::io
