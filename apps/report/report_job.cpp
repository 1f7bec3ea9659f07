#include "report_job.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "../run_draws.hpp"
#include "../write_file.hpp"
#include "report_data.hpp"
#include "report_page.hpp"
#include "saved_summary.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"

namespace variate::cli {
namespace fs = std::filesystem;
namespace {

// "<prefix>-<chain>.csv" (ours) or "<prefix>_<chain>.csv" (CmdStan's output_1.csv, CmdStanPy's
// <model>-<time>_1.csv): the chain number, or -1 for another name.
long chain_number(const std::string& name, std::string& prefix) {
  if (!name.ends_with(".csv")) return -1;
  const std::string stem = name.substr(0, name.size() - 4);
  const std::size_t dash = stem.find_last_of("-_");
  if (dash == std::string::npos || dash == 0 || dash + 1 == stem.size()) return -1;
  const std::string digits = stem.substr(dash + 1);
  if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  prefix = stem.substr(0, dash);
  return std::stol(digits);
}

std::vector<std::string> folder_chain_files(const fs::path& folder) {
  std::map<std::string, std::map<long, std::string>> runs;  // prefix -> chain -> file
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::string prefix;
    const long chain = entry.is_regular_file() ? chain_number(entry.path().filename().string(), prefix) : -1;
    if (chain >= 0) runs[prefix][chain] = entry.path().string();
  }
  VARIATE_CHECK(!runs.empty(), "report", "the folder ", folder.string(),
                " holds no chain files; expected files named <model>-<chain>.csv (as `variate sample` writes) or "
                "<name>_<chain>.csv (as CmdStan)");
  std::string prefixes;
  for (const auto& [prefix, files] : runs) prefixes += (prefixes.empty() ? "" : ", ") + quote_input(prefix);
  VARIATE_CHECK(runs.size() == 1, "report", "the folder ", folder.string(),
                " holds the chain files of several runs or devices (", prefixes, "); pass the files of one run");
  std::vector<std::string> files;
  for (const auto& [chain, path] : runs.begin()->second) files.push_back(path);
  return files;
}

fs::path default_output(const std::vector<std::string>& paths, const std::vector<std::string>& files) {
  if (fs::is_directory(paths.front())) return fs::path(paths.front()) / "report.html";
  return fs::path(files.front()).parent_path() / "report.html";
}

// Our runs save the summary of their draws beside them: with it, only the sampler columns and the
// plotted ones need reading. Other draws are read whole and summarized here.
std::pair<RunDraws, std::vector<inference::ParameterSummary>> read_and_summarize(const std::vector<std::string>& files,
                                                                                 const report::ReportChoices& choices) {
  const fs::path folder = fs::path(files.front()).parent_path();
  const bool one_folder = std::all_of(files.begin(), files.end(),
                                      [&](const std::string& f) { return fs::path(f).parent_path() == folder; });
  if (const auto saved = one_folder ? report::read_saved_summary(folder) : std::nullopt) {
    const std::vector<std::string> plotted =
        report::plotted_columns(report::worst_first(saved->rows, saved->chains), choices);
    const std::set<std::string, std::less<>> wanted(plotted.begin(), plotted.end());
    std::ostringstream warnings;
    RunDraws run = read_run_draws(files, "report", warnings,
                                  [&](std::string_view c) { return is_sampler_column(c) || wanted.contains(c); });
    if (report::describes(*saved, run)) {
      std::cerr << warnings.str();
      return {std::move(run), saved->rows};
    }
  }
  RunDraws run = read_run_draws(files, "report", std::cerr);
  std::vector<inference::ParameterSummary> summary = summarize_run(run);
  return {std::move(run), std::move(summary)};
}

}  // namespace

std::vector<std::string> report_files(const std::vector<std::string>& paths) {
  VARIATE_CHECK(!paths.empty(), "report", "nothing to report on; expected a folder of chain files or Stan CSV files");
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    VARIATE_CHECK(fs::exists(path), "report", quote_input(path),
                  " does not exist; expected a folder or a Stan CSV file");
    if (fs::is_directory(path)) {
      for (std::string& f : folder_chain_files(path)) files.push_back(std::move(f));
    } else {
      files.push_back(path);
    }
  }
  return files;
}

fs::path write_report(const ReportJobOptions& o, std::ostream& out) {
  const std::vector<std::string> files = report_files(o.paths);
  const report::ReportChoices choices{.plotted = o.plotted, .pairs = o.pairs};
  const auto [run, summary] = read_and_summarize(files, choices);
  const nlohmann::json data = report::report_data(run, summary, choices);
  std::string prefix;
  const std::string name = fs::path(files.front()).filename().string();
  const std::string title = "variate report: " + (chain_number(name, prefix) >= 0 ? prefix : name);
  const std::string page = report::report_page(title, data);
  const fs::path output = o.output.empty() ? default_output(o.paths, files) : fs::path(o.output);
  write_file("report", output.string(), [&](std::ostream& f) { f << page; });
  const auto& rows = data["table"]["rows"];
  const auto parameters = std::count_if(rows.begin(), rows.end(), [](const auto& row) { return row[0] != "lp__"; });
  out << "report: " << output.string() << " (" << parameters << " parameters, " << data["parameters"].size()
      << " plotted, " << (page.size() + 512 * 1024) / (1024 * 1024) << " MiB)\n";
  return output;
}

}  // namespace variate::cli
