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

// Where the headers and the shared library are: the tool in its build tree uses those it was
// built with; an installed one, those beside its bin/ directory.
struct LibraryPlace {
  fs::path include_dir, library_dir;
};
LibraryPlace library_place() {
  const fs::path tool_dir = fs::canonical("/proc/self/exe").parent_path();
  std::error_code unused;
  if (fs::equivalent(tool_dir, VARIATE_BUILD_TOOL_DIR, unused))
    return {VARIATE_BUILD_INCLUDE_DIR, VARIATE_BUILD_LIBRARY_DIR};
  return {tool_dir.parent_path() / VARIATE_INSTALL_INCLUDEDIR, tool_dir.parent_path() / VARIATE_INSTALL_LIBDIR};
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
  // The plugin links variate's shared library and finds it by its run path: the tool's own copy once
  // loaded into the tool (one tape, one tracer stack), and loaded along by any other program, a
  // BridgeStan client say. -fopenmp as the library's own targets carry it.
  const LibraryPlace place = library_place();
  const std::vector<std::string> command = {compiler,
                                            "-std=c++20",
                                            "-O2",
                                            "-fPIC",
                                            "-shared",
                                            "-fopenmp",
                                            "-DVARIATE_BUILDING_PLUGIN",
                                            "-I" + place.include_dir.string(),
                                            o.source,
                                            (place.library_dir / VARIATE_LIBRARY_FILE).string(),
                                            "-Wl,-rpath," + place.library_dir.string(),
                                            "-o",
                                            output.string()};
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
