#include "output_files.hpp"

#include "variate/core/error.hpp"
#include "variate/data/output_folder.hpp"

namespace variate::cli {

std::filesystem::path output_file(const char* job, const std::string& output, const std::string& model) {
  namespace fs = std::filesystem;
  const fs::path file = output.empty() ? fs::path("variate-output") / (model + "-" + job + ".csv") : fs::path(output);
  std::error_code ec;
  VARIATE_CHECK(!fs::is_directory(file, ec), job, "--output '", file.string(),
                "' is a folder; expected the name of the CSV file to write");
  if (file.has_parent_path()) data::make_output_folder(file.parent_path().string(), job);
  return file;
}

std::filesystem::path sibling_file(const std::filesystem::path& file, const std::string& suffix) {
  return file.parent_path() / (file.stem().string() + suffix + file.extension().string());
}

}  // namespace variate::cli
