#pragma once
// `variate build MODEL.cpp`: compiles a model file (variate/models/model.hpp) into a plugin, a
// shared library that `variate sample --model-file` loads, against the headers of this variate
// (installed, or the build tree it was built in).
#include <ostream>
#include <string>

namespace variate::cli {

struct BuildJobOptions {
  std::string source;
  std::string output;    // empty: the source's name with .so, next to it
  std::string compiler;  // empty: $CXX, else the compiler that built variate
};

/// Returns 0 when the plugin was built. The compiler writes its messages (file:line: error...) to
/// stderr; a failed compile throws variate::Error saying so after them.
int run_build_job(const BuildJobOptions& options, std::ostream& out);

}  // namespace variate::cli
