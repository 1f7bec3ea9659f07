#pragma once
// Writes a whole output file (a summary table, its JSON) and checks that it reached the disk.
#include <fstream>
#include <functional>
#include <ostream>
#include <string>

#include "variate/core/error.hpp"

namespace variate::cli {

/// Runs write(stream) into `path`; throws variate::Error naming `job` and the file if it cannot be
/// opened or written.
inline void write_file(const char* job, const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream file(path);
  VARIATE_CHECK(file.good(), job, "cannot write the file '", path, "'");
  write(file);
  file.flush();
  VARIATE_CHECK(file.good(), job, "cannot write the file '", path, "'");
}

}  // namespace variate::cli
