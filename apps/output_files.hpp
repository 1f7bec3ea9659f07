#pragma once
// Where `vi` and `optimize` write: the file --output names (by default variate-output/<model>-<job>.csv)
// and the files that go next to it.
#include <filesystem>
#include <string>

namespace variate::cli {

/// `output`, or variate-output/<model>-<job>.csv when it is empty; its folder is created if
/// missing. Throws variate::Error naming `job` when the path is a folder or cannot be made.
std::filesystem::path output_file(const char* job, const std::string& output, const std::string& model);

/// The file next to `file` whose name adds `suffix` to its stem: draws.csv -> draws-elbo.csv.
std::filesystem::path sibling_file(const std::filesystem::path& file, const std::string& suffix);

}  // namespace variate::cli
