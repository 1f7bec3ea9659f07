#pragma once
// A folder of a test's own for the files it writes, emptied when made and removed afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace variate::testing {

class ScratchDir {
 public:
  /// <temp>/variate_<name>_<pid>: the process id keeps concurrent test programs apart.
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("variate_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The path of file `name` in this folder.
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  /// Writes `contents` byte for byte to file `name`; returns its path.
  std::string write(const std::string& name, const std::string& contents) const {
    std::ofstream(path_ / name, std::ios::binary) << contents;
    return *this / name;
  }

 private:
  std::filesystem::path path_;
};

/// The running test's name, for a ScratchDir per test.
inline std::string current_test_name() { return ::testing::UnitTest::GetInstance()->current_test_info()->name(); }

}  // namespace variate::testing
