#include "variate/data/output_folder.hpp"

#include <algorithm>
#include <vector>

#include "variate/core/error.hpp"

namespace variate::data {

namespace fs = std::filesystem;

namespace {

void check_not_a_file(const std::string& dir, const char* op) {
  VARIATE_CHECK(!dir.empty(), op, "the output folder's name is empty");
  std::error_code ec;
  // Checked first: create_directories on a file's path fails with a less telling "Not a directory".
  const fs::file_status status = fs::status(dir, ec);
  VARIATE_CHECK(!fs::exists(status) || fs::is_directory(status), op, "the output path '", dir,
                "' exists and is not a folder");
}

// The entries of `dir` that `is_run_file` accepts, sorted; refused unless `overwrite`.
std::vector<fs::path> earlier_run_files(const std::string& dir,
                                        const std::function<bool(std::string_view)>& is_run_file, bool overwrite,
                                        const char* op, std::string_view overwrite_hint) {
  std::vector<fs::path> earlier;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(dir), ec)) {
    if (is_run_file(entry.path().filename().string())) earlier.push_back(entry.path());
  }
  VARIATE_CHECK(!ec, op, "cannot list the output folder '", dir, "': ", ec.message());
  std::sort(earlier.begin(), earlier.end());
  if (!overwrite && !earlier.empty()) {
    std::string names;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, earlier.size()); ++i)
      names += (i ? ", " : "") + earlier[i].filename().string();
    if (earlier.size() > 3) names += ", ...";
    detail::fail(op, ": the output folder '", dir, "' already holds an earlier run's files (", names,
                 "); choose another folder, or ", overwrite_hint, " to replace them");
  }
  return earlier;
}

}  // namespace

fs::path make_output_folder(const std::string& dir, const char* op) {
  check_not_a_file(dir, op);
  std::error_code ec;
  fs::create_directories(dir, ec);
  VARIATE_CHECK(!ec, op, "cannot create the output folder '", dir, "': ", ec.message());
  return fs::path(dir);
}

void check_run_folder(const std::string& dir, const std::function<bool(std::string_view)>& is_run_file, bool overwrite,
                      const char* op, std::string_view overwrite_hint) {
  check_not_a_file(dir, op);
  std::error_code ec;
  if (fs::is_directory(dir, ec)) earlier_run_files(dir, is_run_file, overwrite, op, overwrite_hint);
}

fs::path prepare_run_folder(const std::string& dir, const std::function<bool(std::string_view)>& is_run_file,
                            bool overwrite, const char* op, std::string_view overwrite_hint) {
  const fs::path folder = make_output_folder(dir, op);
  for (const fs::path& path : earlier_run_files(dir, is_run_file, overwrite, op, overwrite_hint)) {
    std::error_code ec;
    fs::remove(path, ec);  // a symbolic link is removed itself, not followed
    VARIATE_CHECK(!ec, op, "cannot delete the earlier run's file '", path.string(), "': ", ec.message());
  }
  return folder;
}

bool is_chain_file(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || !name.ends_with(".csv")) return false;
  name.remove_prefix(prefix.size());
  name.remove_suffix(4);
  return name.size() >= 2 && name[0] == '-' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace variate::data
