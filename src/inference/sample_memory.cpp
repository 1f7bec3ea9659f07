#include "variate/inference/sample_memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "variate/inference/kernel.hpp"

namespace variate::inference {

SampleMemory estimate_sample_memory(std::int64_t chains, std::int64_t draws, std::int64_t dimension,
                                    std::int64_t columns, bool dense_metric) {
  const double c = double(chains), p = double(dimension);
  const double per_draw = 8 * p + double(sizeof(TransitionStats)) + 8 * double(columns);
  SampleMemory m;
  m.draws = c * double(draws) * per_draw;
  m.metric = c * 3 * 8 * (dense_metric ? p * p : p);
  return m;
}

std::optional<double> available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0;
  while (meminfo >> key >> kilobytes) {
    if (key == "MemAvailable:") return kilobytes * 1024;
    meminfo.ignore(256, '\n');  // the unit
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return double(pages) * double(page);
  return std::nullopt;
}

std::string byte_text(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return text;
}

}  // namespace variate::inference
