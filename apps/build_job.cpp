#include "build_job.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "variate/core/error.hpp"

namespace variate::cli {
namespace fs = std::filesystem;
namespace {

struct VariatePaths {
  fs::path include_dir, library_dir;
};

// An installed tool finds the headers and the library beside its bin/ directory; a tool in its
// build tree, those it was built with.
VariatePaths variate_paths() {
  const fs::path prefix = fs::canonical("/proc/self/exe").parent_path().parent_path();
  const fs::path installed_include = prefix / VARIATE_INSTALL_INCLUDEDIR;
  if (fs::exists(installed_include / "variate/variate.hpp"))
    return {installed_include, prefix / VARIATE_INSTALL_LIBDIR};
  return {VARIATE_BUILD_INCLUDE_DIR, VARIATE_BUILD_LIBRARY_DIR};
}

// Runs the command without a shell (no quoting of paths) and returns its exit status.
int run_command(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  VARIATE_CHECK(pid >= 0, "build", "cannot start the compiler (fork failed)");
  if (pid == 0) {
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int run_build_job(const BuildJobOptions& o, std::ostream& out) {
  VARIATE_CHECK(fs::is_regular_file(o.source), "build", "model file '", o.source,
                "' does not exist or is not a file; expected a C++ file ending with VARIATE_MODEL(function)");
  const fs::path output = o.output.empty() ? fs::path(o.source).replace_extension(".so") : fs::path(o.output);
  const char* cxx = std::getenv("CXX");
  const std::string compiler = !o.compiler.empty() ? o.compiler : (cxx != nullptr && *cxx) ? cxx : VARIATE_COMPILER;
  const VariatePaths paths = variate_paths();
  // -fopenmp as the library's own targets carry it; the plugin links the shared library so that
  // other programs (BridgeStan's clients, Python) can load it alone.
  const std::vector<std::string> command = {compiler,
                                            "-std=c++20",
                                            "-O2",
                                            "-fPIC",
                                            "-shared",
                                            "-fopenmp",
                                            "-DVARIATE_BUILDING_PLUGIN",
                                            "-I" + paths.include_dir.string(),
                                            o.source,
                                            "-o",
                                            output.string(),
                                            "-L" + paths.library_dir.string(),
                                            "-Wl,-rpath," + paths.library_dir.string(),
                                            "-lvariate"};
  const auto start = std::chrono::steady_clock::now();
  const int status = run_command(command);
  if (status == 127) detail::fail("build: cannot run the compiler '", compiler, "'; set CXX to a C++20 compiler");
  if (status != 0)
    detail::fail("build: compiling '", o.source, "' failed (exit ", status, "); the compiler's messages are above");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "built " << output.string() << " from " << o.source << " in " << seconds << " s\n";
  return 0;
}

}  // namespace variate::cli
