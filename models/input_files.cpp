#include "models/input_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace sinkscope::models {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& problem) {
  throw ModelInputError(file.string() + ": " + problem);
}

// Whether `inner` equals `outer` or lies below it (both canonical).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty() && std::next(o) == outer.end()) break;  // trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// Where a Hugging Face cache snapshot's links may point: the repo's blobs/.
std::optional<fs::path> cache_blobs_of(const fs::path& root) {
  const fs::path snapshots = root.parent_path();
  const fs::path repo = snapshots.parent_path();
  if (snapshots.filename() != "snapshots" || repo.filename().string().rfind("models--", 0) != 0)
    return std::nullopt;
  return repo / "blobs";
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

bool input_file_present(const fs::path& folder, const std::string& name) {
  std::error_code ec;
  return fs::symlink_status(folder / name, ec).type() != fs::file_type::not_found && !ec;
}

fs::path input_file_confine(const fs::path& folder, const std::string& name) {
  const fs::path given = folder / name;
  if (name.empty()) fail(folder, "a file name is empty");
  if (name.find('\0') != std::string::npos) fail(folder, "a file name contains a NUL byte");
  const fs::path relative(name);
  if (relative.has_root_directory() || relative.has_root_name())
    fail(given, "is an absolute path; a model folder may only name files inside itself");
  for (const auto& part : relative)
    if (part == "..") fail(given, "leaves the model folder (\"..\" in the name)");
  std::error_code ec;
  const fs::path root = fs::canonical(folder, ec);
  if (ec) fail(folder, "cannot be resolved (" + ec.message() + ")");
  const fs::path link = root / relative;
  if (fs::symlink_status(link, ec).type() == fs::file_type::not_found) fail(given, "missing");
  const fs::path target = fs::canonical(link, ec);
  if (ec) {
    if (ec == std::errc::too_many_symbolic_link_levels) fail(given, "is a symlink loop");
    fail(given, "is a broken link (" + ec.message() + ")");
  }
  if (within(target, root)) return target;
  if (const auto blobs = cache_blobs_of(root); blobs && within(target, *blobs)) return target;
  fail(given, "points outside the model folder (to " + target.string() + "); refused");
}

std::string input_file_read_unlinked(const fs::path& file, std::size_t maxBytes) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    fail(file, "is a link, not a regular file (links are not followed here)");
  return input_file_read(file, maxBytes);
}

std::string input_file_read(const fs::path& file, std::size_t maxBytes) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT) fail(file, "missing");
    if (errno == ELOOP) fail(file, "is a symlink loop");
    fail(file, std::string("cannot be read (") + std::strerror(errno) + ")");
  }
  // Checked before open(): opening a FIFO blocks until a writer appears.
  if (!S_ISREG(st.st_mode)) fail(file, "is " + kind_of(st.st_mode) + ", not a regular file");
  auto tooLarge = [&](std::uint64_t size) {
    fail(file, "is " + std::to_string(size) + " bytes, more than the limit of " +
                   std::to_string(maxBytes) + " bytes for this file");
  };
  if (static_cast<std::uint64_t>(st.st_size) > maxBytes) tooLarge(st.st_size);
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) fail(file, std::string("cannot be opened (") + std::strerror(errno) + ")");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  // The name may have been swapped between stat and open: check what we opened.
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    fail(file, "changed while being opened; not a regular file");
  std::string content;
  content.resize(std::min<std::uint64_t>(static_cast<std::uint64_t>(st.st_size), maxBytes) + 1);
  std::size_t used = 0;
  while (true) {
    if (used == content.size()) {
      if (used > maxBytes) tooLarge(used);
      content.resize(std::min(content.size() * 2, maxBytes + 1));
    }
    const ssize_t n = ::read(fd, content.data() + used, content.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(file, std::string("cannot be read (") + std::strerror(errno) + ")");
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (used > maxBytes) tooLarge(used);
  }
  content.resize(used);
  return content;
}

bool utf8_valid(const std::string& text, std::size_t* badOffset) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = s[i];
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (b < 0x80) {
      ++i;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      len = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b == 0xe0) lo = 0xa0;  // overlong
      if (b == 0xed) hi = 0x9f;  // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b == 0xf0) lo = 0x90;  // overlong
      if (b == 0xf4) hi = 0x8f;  // above U+10FFFF
    }
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const unsigned c = s[i + k];
      ok = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xbf);
    }
    if (!ok) {
      if (badOffset) *badOffset = i;
      return false;
    }
    i += len;
  }
  return true;
}

void input_text_check(const std::string& text, const std::string& source) {
  std::size_t bad = 0;
  if (!utf8_valid(text, &bad))
    throw ModelInputError(source + ": not valid UTF-8 (bad byte at offset " + std::to_string(bad) +
                          ")");
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw ModelInputError(source + ": contains a NUL character at byte offset " +
                          std::to_string(nul));
}

}  // namespace sinkscope::models
