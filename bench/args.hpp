#pragma once
// The command-line arguments the benchmark programs share: the cases to run, named by plain
// arguments (every case when none is named), and --seeds=K.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace variate::bench {

/// Whether the case `name` is to run: it is named by an argument that is not an option (--...),
/// or no case is named at all.
inline bool wanted(int argc, char** argv, const char* name) {
  bool any_named = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--", 2) == 0) continue;
    any_named = true;
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return !any_named;
}

/// K of --seeds=K, or `fallback` without the option. A K below 1 ends the program with a message
/// naming `program`.
inline int seed_count(int argc, char** argv, const char* program, int fallback) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--seeds=", 8) == 0) {
      const int k = std::atoi(argv[i] + 8);
      if (k < 1) {
        std::fprintf(stderr, "%s: --seeds must be a positive integer, got '%s'\n", program, argv[i] + 8);
        std::exit(2);
      }
      return k;
    }
  return fallback;
}

}  // namespace variate::bench
