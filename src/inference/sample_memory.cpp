#include "variate/inference/sample_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "variate/inference/kernel.hpp"

namespace variate::inference {

double low_rank_rows(const FisherOptions& fisher) {
  // FisherAdaptation: a foreground window of up to 2w draws and a background one of w, each draw
  // with its gradient (6w); the estimate's scaled draws and gradients and the basis of their span
  // (2 x 4w); up to 4w directions.
  return 18 * double(fisher.switch_interval);
}

SampleMemory estimate_sample_memory(std::int64_t chains, std::int64_t draws, std::int64_t dimension,
                                    std::int64_t columns, MetricKind metric, const FisherOptions& fisher) {
  const double c = double(chains), p = double(dimension);
  const double per_draw = 8 * p + double(sizeof(TransitionStats)) + 8 * double(columns);
  SampleMemory m;
  m.draws = c * double(draws) * per_draw;
  const double vectors = metric == MetricKind::dense      ? 3 * p
                         : metric == MetricKind::low_rank ? 3 + low_rank_rows(fisher)
                                                          : 3;
  m.metric = c * 8 * vectors * p;
  return m;
}

namespace {

// A byte count in a cgroup file: nothing for "max", a missing file or a value so large that it
// means no limit (v1 writes 2^63 rounded down to a page).
std::optional<double> cgroup_bytes(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  char* end = nullptr;
  const double bytes = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(bytes >= 0) || bytes >= 0x1p60) return std::nullopt;
  return bytes;
}

// The value of `key` in a memory.stat file; 0 when absent.
double stat_bytes(const std::filesystem::path& file, const char* key) {
  std::ifstream in(file);
  std::string name;
  double bytes = 0;
  while (in >> name >> bytes)
    if (name == key) return bytes;
  return 0;
}

// Limit minus usage at `dir` and every ancestor up to `top`, the least of them. The usage counts
// the page cache; its inactive file pages are reclaimed before the limit bites (MemAvailable counts
// them free, and container runtimes leave them out of usage), so they are left out here too.
std::optional<double> least_headroom(const std::filesystem::path& top, std::filesystem::path dir,
                                     const char* limit_file, const char* usage_file, const char* inactive_key) {
  std::optional<double> least;
  for (;;) {
    const std::optional<double> limit = cgroup_bytes(dir / limit_file);
    const std::optional<double> usage = cgroup_bytes(dir / usage_file);
    if (limit && usage) {
      const double used = std::max(0.0, *usage - stat_bytes(dir / "memory.stat", inactive_key));
      least = std::min(least.value_or(*limit), std::max(0.0, *limit - used));
    }
    if (dir == top || !dir.has_relative_path() || dir.parent_path() == dir) return least;
    dir = dir.parent_path();
  }
}

}  // namespace

std::optional<double> cgroup_memory_headroom(const std::string& proc_cgroup, const std::filesystem::path& root) {
  std::optional<double> least;  // a hybrid v1 + v2 setup may limit in both
  std::istringstream lines(proc_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // "hierarchy-id:controllers:path"; v2's unified hierarchy is "0::path".
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string id = line.substr(0, first), controllers = line.substr(first + 1, second - first - 1);
    const std::filesystem::path relative = std::filesystem::path(line.substr(second + 1)).relative_path();
    std::optional<double> headroom;
    if (id == "0" && controllers.empty())
      headroom = least_headroom(root, root / relative, "memory.max", "memory.current", "inactive_file");
    else if (("," + controllers + ",").find(",memory,") != std::string::npos)
      headroom = least_headroom(root / "memory", root / "memory" / relative, "memory.limit_in_bytes",
                                "memory.usage_in_bytes", "total_inactive_file");
    if (headroom) least = std::min(least.value_or(*headroom), *headroom);
  }
  return least;
}

std::optional<double> available_memory_bytes() {
  std::optional<double> available;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kilobytes = 0;
  while (meminfo >> key >> kilobytes) {
    if (key == "MemAvailable:") {
      available = kilobytes * 1024;
      break;
    }
    meminfo.ignore(256, '\n');  // the unit
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (!available && pages > 0 && page > 0) available = double(pages) * double(page);
  std::ifstream self("/proc/self/cgroup");
  const std::string cgroups((std::istreambuf_iterator<char>(self)), std::istreambuf_iterator<char>());
  const std::optional<double> allowed = cgroup_memory_headroom(cgroups, "/sys/fs/cgroup");
  if (allowed) available = std::min(available.value_or(*allowed), *allowed);
  return available;
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
