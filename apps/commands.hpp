#pragma once
// The subcommands of `variate`, each registered by its own function: it adds the subcommand and
// its options to the app and returns how to run it once the command line is parsed.
//
//   CLI::App app;
//   std::vector<cli::Command> commands = {cli::add_sample_command(app), cli::add_vi_command(app)};
//   app.parse(argc, argv);
//   for (auto& c : commands) if (*c.app) return c.run();
#include <CLI/CLI.hpp>
#include <functional>

namespace variate::cli {

struct Command {
  CLI::App* app;
  /// Runs the job with the parsed options; returns the exit code, throws variate::Error.
  std::function<int()> run;
};

Command add_sample_command(CLI::App& app);
Command add_summary_command(CLI::App& app);
Command add_report_command(CLI::App& app);  // report/report_command.cpp
Command add_gradient_command(CLI::App& app);
Command add_vi_command(CLI::App& app);
Command add_optimize_command(CLI::App& app);
Command add_pathfinder_command(CLI::App& app);
Command add_train_command(CLI::App& app);  // vae/train_command.cpp
Command add_build_command(CLI::App& app);
Command add_recommend_command(CLI::App& app);

}  // namespace variate::cli
