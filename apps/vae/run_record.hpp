#pragma once
// The options a training run's checkpoint depends on, kept next to it (run.json) so that resuming
// with other options is an error that names the option instead of a silently different run.
#include <filesystem>
#include <map>
#include <string>

namespace variate::cli::vae {

/// Option name ("--bound") -> its value as text.
using RunRecord = std::map<std::string, std::string>;

/// Writes `record` as a JSON object.
void write_run_record(const std::filesystem::path& path, const RunRecord& record);

/// The record in `path`, which protects `checkpoint`; throws variate::Error naming both when it is
/// missing or not a record.
RunRecord read_run_record(const std::filesystem::path& path, const std::filesystem::path& checkpoint);

/// Throws variate::Error naming the first option whose value differs between `saved` (read with
/// read_run_record) and `record`, and the checkpoint `saved` protects.
void check_run_record(const RunRecord& saved, const RunRecord& record, const std::filesystem::path& checkpoint);

}  // namespace variate::cli::vae
