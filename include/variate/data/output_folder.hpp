#pragma once
// The folder a run writes its files into. A run never mixes with an earlier one: files of an
// earlier run found there are refused or, when the user asked to overwrite, deleted before the new
// run writes anything, so that no chain of the earlier run is left beside the new ones. Deleting a
// name removes a symbolic link itself, never its target, so a link planted under a file's name
// cannot redirect the run's writes.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace variate::data {

/// Creates `dir` and its parents where missing and returns it. Errors name `op`.
std::filesystem::path make_output_folder(const std::string& dir, const char* op);

/// make_output_folder, then looks for entries whose file name `is_run_file` accepts (the run's
/// own names: chain files, manifests, summaries). Without `overwrite`, any such entry is an error
/// that names up to three of them and ends with `overwrite_hint` (what to pass to overwrite);
/// with it, they are deleted.
std::filesystem::path prepare_run_folder(const std::string& dir,
                                         const std::function<bool(std::string_view)>& is_run_file, bool overwrite,
                                         const char* op, std::string_view overwrite_hint);

/// The checks of prepare_run_folder, without creating or deleting anything: for a run that has
/// minutes of work to do before it may touch the folder (an initialization that a stop signal
/// must be able to end without leaving a folder behind).
void check_run_folder(const std::string& dir, const std::function<bool(std::string_view)>& is_run_file, bool overwrite,
                      const char* op, std::string_view overwrite_hint);

/// Whether `name` is `prefix` followed by `-`, one or more digits and `.csv`: a chain file.
bool is_chain_file(std::string_view name, std::string_view prefix);

}  // namespace variate::data
