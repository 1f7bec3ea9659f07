#include "run_record.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "../write_file.hpp"

namespace variate::cli::vae {

namespace {

constexpr const char* kJob = "variate train";

std::string resuming_from(const std::filesystem::path& checkpoint) {
  return "resuming from '" + checkpoint.string() + "': ";
}

}  // namespace

void write_run_record(const std::filesystem::path& path, const RunRecord& record) {
  const nlohmann::json json(record);
  write_file(kJob, path.string(), [&](std::ostream& out) { out << json.dump(2) << '\n'; });
}

RunRecord read_run_record(const std::filesystem::path& path, const std::filesystem::path& checkpoint) {
  const std::string resuming = resuming_from(checkpoint);
  std::ifstream in(path);
  VARIATE_CHECK(in.good(), kJob, resuming, "its record of options '", path.string(),
                "' cannot be read; use another --output-dir to start afresh");
  RunRecord saved;
  try {
    saved = nlohmann::json::parse(in).get<RunRecord>();
  } catch (const nlohmann::json::exception& e) {
    detail::fail(kJob, ": ", resuming, "'", path.string(), "' is not a record of options: ", e.what());
  }
  return saved;
}

void check_run_record(const RunRecord& saved, const RunRecord& record, const std::filesystem::path& checkpoint) {
  const std::string resuming = resuming_from(checkpoint);
  for (const auto& [name, value] : record) {
    const auto it = saved.find(name);
    VARIATE_CHECK(it != saved.end() && it->second == value, kJob, resuming, "the checkpoint was written with ", name,
                  " ", it == saved.end() ? std::string("(unset)") : it->second, ", this run has ", name, " ", value,
                  "; run with the same options to resume, or use another --output-dir");
  }
  // Options recorded only when not at their default must not have gone back to it.
  for (const auto& [name, value] : saved)
    VARIATE_CHECK(record.contains(name), kJob, resuming, "the checkpoint was written with ", name, " ", value,
                  ", this run has the default; run with the same options to resume, or use another --output-dir");
}

}  // namespace variate::cli::vae
