// `variate summary`'s options.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "summary_job.hpp"

namespace variate::cli {

Command add_summary_command(CLI::App& app) {
  auto o = std::make_shared<SummaryJobOptions>();
  CLI::App* cmd = app.add_subcommand("summary", "summarize Stan CSV files (ours or CmdStan's), one per chain");
  cmd->add_option("files", o->files, "Stan CSV files")->required();
  cmd->add_option("--csv", o->csv, "also write the summary to this CSV file");
  cmd->add_option("--json", o->json, "also write the summary to this JSON file");
  return {cmd, [o] { return run_summary_job(*o, std::cout); }};
}

}  // namespace variate::cli
