// Captures: attention files written by numpy (Debian's python3-numpy, the
// way Hugging Face or TransformerLens users save theirs, plain and
// compressed) read back exactly; ours read by numpy; hostile files refused
// with the array, layer, head and row named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "models/capture.h"
#include "support/shell_run.h"

namespace fs = std::filesystem;
namespace m = sinkscope::models;

namespace {

fs::path fresh_capture_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("sinkscope-capture-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs `script` with numpy, `dir` as its argv[1]; returns its exit status and output.
std::pair<int, std::string> numpy_script(const std::string& script, const fs::path& dir) {
  const fs::path py = dir / "make.py";
  std::ofstream(py) << "import sys, numpy as np\nd = sys.argv[1]\n" << script;
  const CliRun r = shell("/usr/bin/python3 '" + py.string() + "' '" + dir.string() + "' 2>&1");
  return {r.exit, r.out};
}

// A causal softmax capture [2, 3, 5, 5] and values [2, 3, 5, 4] from a
// fixed formula, the way numpy users build theirs.
const char* kMakeCapture = R"(
L, H, T, D = 2, 3, 5, 4
s = np.fromfunction(lambda l, h, i, j: np.sin(1.0 + l + 2 * h + 0.7 * i * j + 0.3 * j), (L, H, T, T))
s = np.where(np.tril(np.ones((T, T))) > 0, s, -np.inf)
a = np.exp(s - s.max(-1, keepdims=True)); a /= a.sum(-1, keepdims=True)
v = np.fromfunction(lambda l, h, t, k: np.cos(l + h + 0.5 * t + 0.25 * k), (L, H, T, D))
)";

m::Capture read_ok(const fs::path& file) {
  try {
    return m::capture_read(file);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return {};
  }
}

std::string refusal(const fs::path& file) {
  try {
    m::capture_read(file);
  } catch (const m::CaptureError& e) {
    return e.what();
  }
  return "(read without complaint)";
}

}  // namespace

TEST(Capture, NumpysFilesReadExactlyPlainAndCompressed) {
  const fs::path dir = fresh_capture_dir("numpy");
  const auto [code, out] = numpy_script(std::string(kMakeCapture) + R"(
np.savez(d + '/plain.npz', attention=a.astype(np.float32), values=v.astype(np.float32),
         tokens=np.array(['<s>', 'caf\u00e9', ' sat', '\u2603', '.']), ids=np.arange(5, dtype=np.int64),
         model=np.array('gpt2'))
np.savez_compressed(d + '/compressed.npz', attention=a, values=v)  # float64, deflated
np.savetxt(d + '/a.txt', a.astype(np.float32).reshape(-1), fmt='%.9g')
np.savetxt(d + '/v.txt', v.astype(np.float32).reshape(-1), fmt='%.9g')
)",
                                        dir);
  ASSERT_EQ(code, 0) << out;
  std::vector<float> a, v;
  std::ifstream at(dir / "a.txt"), vt(dir / "v.txt");
  for (float x; at >> x;) a.push_back(x);
  for (float x; vt >> x;) v.push_back(x);
  for (const char* name : {"plain.npz", "compressed.npz"}) {
    SCOPED_TRACE(name);
    const m::Capture c = read_ok(dir / name);
    EXPECT_EQ(c.layers, 2);
    EXPECT_EQ(c.heads, 3);
    EXPECT_EQ(c.tokens, 5);
    EXPECT_EQ(c.headDim, 4);
    EXPECT_TRUE(c.causal);
    EXPECT_EQ(c.attention, a) << "float32 as written; float64 narrowed the way numpy narrows";
    EXPECT_EQ(c.values, v);
  }
  const m::Capture plain = read_ok(dir / "plain.npz");
  EXPECT_EQ(plain.tokenText,
            (std::vector<std::string>{"<s>", "caf\xc3\xa9", " sat", "\xe2\x98\x83", "."}));
  EXPECT_EQ(plain.ids, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(plain.model, "gpt2");
  const m::Capture compressed = read_ok(dir / "compressed.npz");
  EXPECT_EQ(compressed.tokenText, (std::vector<std::string>{"0", "1", "2", "3", "4"}));

  // Its trace: each layer's maps and values as given.
  const m::Trace trace = m::capture_trace(plain);
  ASSERT_EQ(trace.layers(), 2);
  const m::LayerCapture layer1 = trace.layer(1);
  const auto map = layer1.attentionOf(2);
  EXPECT_EQ(map.weights[3 * 5 + 1], a[((1 * 3 + 2) * 5 + 3) * 5 + 1]);
  EXPECT_EQ(layer1.valuesOf(2)[7], v[((1 * 3 + 2) * 5 + 1) * 4 + 3]);
}

TEST(Capture, WrittenCapturesAreNumpysAndReadBack) {
  const fs::path dir = fresh_capture_dir("write");
  m::Capture c;
  c.layers = 1, c.heads = 2, c.tokens = 3, c.headDim = 2;
  c.attention = {1, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f, 1, 0, 0, 0.25f, 0.75f, 0, 0.1f, 0.1f, 0.8f};
  c.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  c.tokenText = {"<s>", "A", "\xc3\xa9"};
  c.model = "m";
  m::capture_check(c, "in memory");
  m::capture_write(c, dir / "ours.npz", false);
  const auto [code, out] = numpy_script(R"(
z = np.load(d + '/ours.npz')
assert z['attention'].shape == (1, 2, 3, 3) and z['attention'].dtype == np.float32
assert np.allclose(z['attention'].sum(-1), 1)
assert z['values'].shape == (1, 2, 3, 2) and z['values'][0, 1, 2, 1] == 12
assert list(z['tokens']) == ['<s>', 'A', '\u00e9'], list(z['tokens'])
assert str(z['model']) == 'm'
)",
                                        dir);
  EXPECT_EQ(code, 0) << out;
  const m::Capture back = read_ok(dir / "ours.npz");
  EXPECT_EQ(back.attention, c.attention);
  EXPECT_EQ(back.values, c.values);
  EXPECT_EQ(back.tokenText, c.tokenText);
  EXPECT_EQ(back.model, "m");
  EXPECT_THROW(m::capture_write(c, dir / "ours.npz", false), std::exception) << "no overwrite";
}

TEST(Capture, HostileFilesAreRefusedWithWhatIsWrong) {
  const fs::path dir = fresh_capture_dir("hostile");
  const auto [code, out] = numpy_script(std::string(kMakeCapture) + R"(
f = a.astype(np.float32)
np.savez(d + '/no_attention.npz', values=v)
np.savez(d + '/rank3.npz', attention=f[0])
np.savez(d + '/not_square.npz', attention=f[:, :, :, :4])
bad = f.copy(); bad[1, 2, 3, 0] = np.nan; np.savez(d + '/nan.npz', attention=bad)
bad = f.copy(); bad[0, 1, 2, 0] = -0.25; bad[0, 1, 2, 1] += 0.25; np.savez(d + '/negative.npz', attention=bad)
bad = f * 1.5; np.savez(d + '/scores.npz', attention=bad)
np.savez(d + '/values_shape.npz', attention=f, values=v[:, :, :4])
np.savez(d + '/tokens_count.npz', attention=f, tokens=np.array(['a', 'b']))
np.savez(d + '/big_endian.npz', attention=f.astype('>f4'))
np.savez(d + '/fortran.npz', attention=np.asfortranarray(f))
np.savez(d + '/objects.npz', attention=np.array([{'x': 1}], dtype=object), allow_pickle=True)
np.savez(d + '/ints.npz', attention=np.ones((1, 1, 2, 2), dtype=np.int32))
open(d + '/text.npz', 'w').write('not a zip')
import zipfile
with zipfile.ZipFile(d + '/other_member.npz', 'w') as z: z.writestr('readme.txt', 'hello')
with zipfile.ZipFile(d + '/huge_shape.npz', 'w') as z:
    h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 2, 2), }"
    h = h + ' ' * (118 - len(h)) + '\n'
    z.writestr('attention.npy', b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + b'\0' * 64)
with zipfile.ZipFile(d + '/short.npz', 'w') as z:
    h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 3, 3), }"
    h = h + ' ' * (118 - len(h)) + '\n'
    z.writestr('attention.npy', b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + b'\0' * 8)
raw = open(d + '/no_attention.npz', 'rb').read()
open(d + '/truncated.npz', 'wb').write(raw[: len(raw) // 2])
)",
                                        dir);
  ASSERT_EQ(code, 0) << out;
  const std::vector<std::pair<const char*, const char*>> cases{
      {"no_attention.npz", "no 'attention' array"},
      {"rank3.npz", "attention has shape [3, 5, 5]"},
      {"not_square.npz", "attention has shape [2, 3, 5, 4]"},
      {"nan.npz", "attention[layer 1, head 2, row 3, column 0] is not a number"},
      {"negative.npz", "attention[layer 0, head 1, row 2, column 0] is -0.25"},
      {"scores.npz", "attention[layer 0, head 0, row 0, column 0] is 1.5"},
      {"values_shape.npz", "values has shape [2, 3, 4, 4]"},
      {"tokens_count.npz", "tokens holds 2 elements; give 5"},
      {"big_endian.npz", "is big-endian"},
      {"fortran.npz", "Fortran-ordered"},
      {"objects.npz", "dtype '|O' is not read"},
      {"ints.npz", "is not float32 or float64"},
      {"text.npz", "not a readable .npz (zip) file"},
      {"other_member.npz", "member 'readme.txt' is not an .npy array"},
      {"huge_shape.npz", "bytes of data, the member holds 64"},
      {"short.npz", "need 36 bytes of data, the member holds 8"},
      {"truncated.npz", "not a readable .npz (zip) file"},
      {"missing.npz", "no such file"},
  };
  for (const auto& [file, words] : cases) {
    const std::string why = refusal(dir / file);
    EXPECT_NE(why.find(words), std::string::npos) << file << ": " << why;
    EXPECT_NE(why.find(file), std::string::npos) << "names the file: " << why;
  }
  // A row that does not sum to 1, named.
  m::Capture c;
  c.layers = 1, c.heads = 1, c.tokens = 2;
  c.attention = {1, 0, 0.5f, 0.25f};
  try {
    m::capture_check(c, "given");
    ADD_FAILURE() << "a row summing to 0.75 was taken";
  } catch (const m::CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("attention[layer 0, head 0, row 1] sums to 0.75"),
              std::string::npos)
        << e.what();
  }
}

// Sizes are checked from the arrays' headers before any data is read: a
// member claiming gigabytes its stream does not hold, a capture over the
// memory budget, tokens of a million characters, 2-d ids and token bytes
// that are not UTF-8 are refused in words, without the claimed allocation.
TEST(Capture, ClaimedSizesAreRefusedBeforeTheyAreAllocated) {
  const fs::path dir = fresh_capture_dir("claims");
  const auto [code, out] = numpy_script(std::string(kMakeCapture) + R"(
import zipfile, struct, os
f = a.astype(np.float32)
def npy_header(shape, descr='<f4'):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h = h + ' ' * (118 - len(h)) + '\n'
    return b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode()
# 3 MB of random bytes deflated (stored blocks), claiming 27000 x 27000 float32 (2.9 GB).
T = 27000
head = npy_header((1, 1, T, T))
with zipfile.ZipFile(d + '/claims.npz', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('attention.npy', head + os.urandom(3000000))
raw = bytearray(open(d + '/claims.npz', 'rb').read())
claim = len(head) + T * T * 4
struct.pack_into('<I', raw, 22, claim)
cd = raw.rfind(b'PK\x01\x02')
struct.pack_into('<I', raw, cd + 24, claim)
open(d + '/claims.npz', 'wb').write(bytes(raw))
np.savez(d + '/long_token.npz', attention=f, tokens=np.array(['a', 'b', 'x' * 100000, 'c', 'd']))
np.savez(d + '/ids_2d.npz', attention=f, ids=np.arange(10).reshape(2, 5))
np.savez(d + '/bytes_not_utf8.npz', attention=f, tokens_utf8=np.array([0xc3, 0x28, 97, 98, 99], dtype=np.uint8),
         tokens_offsets=np.array([0, 2, 3, 4, 5, 5]))
np.savez(d + '/bytes_over_255.npz', attention=f, tokens_utf8=np.array([300, 97, 98, 99, 100], dtype=np.int32),
         tokens_offsets=np.array([0, 1, 2, 3, 4, 5]))
np.savez(d + '/fine.npz', attention=f, values=v.astype(np.float32))
)",
                                        dir);
  ASSERT_EQ(code, 0) << out;
  // The header's claim, over a budget of 1 GiB: refused before reading.
  ::setenv("SINKSCOPE_CAPTURE_BUDGET_GB", "1", 1);
  std::string why = refusal(dir / "claims.npz");
  EXPECT_NE(why.find("reading and analysing it needs about 24.44 GiB"), std::string::npos) << why;
  EXPECT_NE(why.find("over the budget of 1.00 GiB (SINKSCOPE_CAPTURE_BUDGET_GB)"),
            std::string::npos)
      << why;
  // Within a budget, the stream ends long before the claim: cut short, and
  // only what it held was allocated.
  ::setenv("SINKSCOPE_CAPTURE_BUDGET_GB", "100", 1);
  why = refusal(dir / "claims.npz");
  EXPECT_TRUE(why.find("cut short") != std::string::npos ||
              why.find("damaged") != std::string::npos)
      << why;
  ::setenv("SINKSCOPE_CAPTURE_BUDGET_GB", "0.000001", 1);
  EXPECT_NE(refusal(dir / "fine.npz").find("over the budget"), std::string::npos);
  ::setenv("SINKSCOPE_CAPTURE_BUDGET_GB", "lots", 1);
  EXPECT_NE(refusal(dir / "fine.npz").find("SINKSCOPE_CAPTURE_BUDGET_GB is 'lots'"),
            std::string::npos);
  ::unsetenv("SINKSCOPE_CAPTURE_BUDGET_GB");
  EXPECT_EQ(read_ok(dir / "fine.npz").headDim, 4);
  const std::vector<std::pair<const char*, const char*>> cases{
      {"long_token.npz", "tokens are up to 100000 characters long; a token has at most 4096"},
      {"ids_2d.npz", "ids has shape [2, 5]; give a one-dimensional array"},
      {"bytes_not_utf8.npz", "token 0 in tokens_utf8 is not valid UTF-8"},
      {"bytes_over_255.npz", "tokens_utf8[0] is 300, not a byte (0 to 255)"},
  };
  for (const auto& [file, words] : cases) {
    const std::string refused = refusal(dir / file);
    EXPECT_NE(refused.find(words), std::string::npos) << file << ": " << refused;
  }
  fs::remove_all(dir);
}
