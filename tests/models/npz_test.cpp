// io::NpzWriter: files numpy.load reads (Debian's python3-numpy), with
// streamed arrays, Unicode strings and a 0-d string; nothing left behind when
// a write is abandoned; existing files replaced only when asked.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/io/npz.h"

namespace fs = std::filesystem;
using sinkscope::io::NpzWriter;

namespace {
std::pair<int, std::string> python(const std::string& script, const fs::path& file) {
  const fs::path py = file.parent_path() / "check.py";
  std::ofstream(py) << script;
  const std::string command = "/usr/bin/python3 '" + py.string() + "' '" + file.string() + "' 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("sinkscope-npz-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST(Npz, NumpyReadsStreamedArraysStringsAndScalars) {
  const fs::path dir = fresh_dir("read");
  const fs::path file = dir / "out.npz";
  {
    NpzWriter npz(file, false);
    npz.beginFloat32("cube", {3, 2, 4});
    for (int layer = 0; layer < 3; ++layer) {  // a layer at a time
      std::vector<float> part(8);
      for (int k = 0; k < 8; ++k) part[static_cast<std::size_t>(k)] = static_cast<float>(layer * 8 + k) / 4.0f;
      npz.append(part);
    }
    npz.endArray();
    const std::vector<std::int32_t> ids{5, -1, 2147483647};
    npz.addInt32("ids", {3}, ids);
    npz.addStrings("tokens", {"<s>", "caf\xc3\xa9", "\xe2\x98\x83", ""});
    npz.addPackedStrings("tokens", {"<s>", "caf\xc3\xa9", "\xe2\x98\x83", ""});
    npz.addString("params", R"({"model": "m", "t": 4})");
    npz.addFloat32("empty", {0, 5}, {});
    npz.commit();
  }
  const auto [code, out] = python(R"(
import json, sys
import numpy as np
d = np.load(sys.argv[1])
assert sorted(d.files) == ["cube", "empty", "ids", "params", "tokens", "tokens_offsets",
                           "tokens_utf8"], d.files
c = d["cube"]
assert c.shape == (3, 2, 4) and c.dtype == np.float32
assert np.array_equal(c.ravel(), np.arange(24, dtype=np.float32) / 4)
assert list(d["ids"]) == [5, -1, 2147483647] and d["ids"].dtype == np.int32
assert list(d["tokens"]) == ["<s>", "café", "☃", ""], list(d["tokens"])
b, o = d["tokens_utf8"], d["tokens_offsets"]
assert b.dtype == np.uint8 and o.dtype == np.int64 and list(o) == [0, 3, 8, 11, 11], list(o)
assert [bytes(b[o[i]:o[i + 1]]).decode() for i in range(4)] == ["<s>", "café", "☃", ""]
assert json.loads(str(d["params"])) == {"model": "m", "t": 4}
assert d["empty"].shape == (0, 5)
print("OK")
)", file);
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out, "OK\n");
  fs::remove_all(dir);
}

TEST(Npz, AFixedWidthStringArrayIsSizedByItsLongestString) {
  // One 10^6-character token among 8,192 positions would pad every cell to
  // 4 MB: 32 GB, which is why tensors writes it only below a cap.
  std::vector<std::string> tokens(8192, "a");
  tokens[7] = std::string(1000000, 'x');
  EXPECT_EQ(NpzWriter::fixedWidthBytes(tokens), 4ull * 1000000 * 8192);
  EXPECT_EQ(NpzWriter::fixedWidthBytes({"caf\xc3\xa9", ""}), 4u * 4 * 2) << "counted in code points";
}

TEST(Npz, AnAbandonedWriteLeavesNothingAndFilesAreReplacedOnlyWhenAsked) {
  const fs::path dir = fresh_dir("abandon");
  const fs::path file = dir / "out.npz";
  {
    NpzWriter npz(file, false);
    npz.beginFloat32("a", {4});
    npz.append(std::vector<float>{1, 2});
    EXPECT_THROW(npz.endArray(), std::logic_error) << "short of data";
    EXPECT_THROW(npz.append(std::vector<float>{1, 2, 3}), std::logic_error) << "too much data";
  }
  EXPECT_TRUE(fs::is_empty(dir)) << "no file and no temporary";
  {
    NpzWriter npz(file, false);
    npz.addFloat32("a", {1}, std::vector<float>{1});
    npz.commit();
  }
  EXPECT_THROW(NpzWriter(file, false), std::runtime_error);
  NpzWriter again(file, true);
  again.addFloat32("b", {1}, std::vector<float>{2});
  again.commit();
  EXPECT_THROW(NpzWriter("/dev/null", true), std::runtime_error) << "not a regular file";
  fs::remove_all(dir);
}
