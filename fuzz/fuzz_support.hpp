#pragma once
// What every loader harness shares. The loaders read paths, so the input is written to a file
// first; a loader may reject an input only with variate::Error (its documented exception), and
// what it returns must hold the invariants its header documents. Anything else (another exception,
// a broken invariant, a sanitizer report, a crash) aborts, which libFuzzer reports as a failure
// and saves the input.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <typeinfo>

#include "variate/core/error.hpp"

namespace variate::fuzz {

[[noreturn]] inline void fail(std::string_view what) {
  std::fprintf(stderr, "\nvariate fuzz: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

/// Aborts naming the broken invariant when `condition` is false.
inline void expect(bool condition, std::string_view invariant) {
  if (!condition) fail("the loader returned data that break an invariant: " + std::string(invariant));
}

/// A folder of this process's input files under the temporary directory (scripts/run-fuzzers
/// points TMPDIR into build-fuzz/), removed when the process ends normally.
class InputFolder {
 public:
  InputFolder() : path_(std::filesystem::temp_directory_path() / ("variate-fuzz-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~InputFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  InputFolder(const InputFolder&) = delete;
  InputFolder& operator=(const InputFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

  /// Writes `bytes` to the file `name` in the folder and returns its path.
  std::string write(const std::string& name, std::string_view bytes) const {
    const std::string file = (path_ / name).string();
    std::FILE* out = std::fopen(file.c_str(), "wb");
    if (out == nullptr) fail("cannot create the input file " + file);
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
    if (std::fclose(out) != 0 || !written) fail("cannot write the input file " + file);
    return file;
  }

 private:
  std::filesystem::path path_;
};

/// The fuzzer's input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `load`: returning or throwing variate::Error is a clean outcome; another exception aborts.
template <class Load>
void run_loader(Load&& load) {
  try {
    load();
  } catch (const variate::Error&) {
    // The documented rejection of a bad input.
  } catch (const std::exception& e) {
    fail(std::string("the loader threw ") + typeid(e).name() + " (not variate::Error): " + e.what());
  }
}

}  // namespace variate::fuzz
