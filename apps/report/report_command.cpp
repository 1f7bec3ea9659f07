// `variate report`'s options.
#include <iostream>
#include <memory>

#include "../commands.hpp"
#include "report_job.hpp"

namespace variate::cli {

Command add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "write one self-contained HTML page of plots and diagnostics of a run's draws (ours or CmdStan's)");
  cmd->add_option("paths", o->paths,
                  "a folder of chain files (<model>-<chain>.csv, or CmdStan's output_<chain>.csv) or Stan CSV files, "
                  "one per chain")
      ->required();
  cmd->add_option("--output", o->output, "the page (default: report.html in the folder of the draws)");
  cmd->add_option("--plots", o->plotted, "parameters with plots, the worst R-hat and ESS first")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}))
      ->capture_default_str();
  cmd->add_option("--pairs", o->pairs, "parameters of the pair plot (default: the worst four)")->delimiter(',');
  return {cmd, [o] {
            write_report(*o, std::cout);
            return 0;
          }};
}

}  // namespace variate::cli
