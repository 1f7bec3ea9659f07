#pragma once
// `variate train`: registered by its own function, which adds the subcommand and its options to the
// app and returns how to run it once the command line is parsed.
//
//   const cli::TrainCommand train = cli::add_train_command(app);
//   app.parse(argc, argv);
//   if (*train.app) return train.run();
#include <CLI/CLI.hpp>
#include <functional>

namespace variate::cli {

struct TrainCommand {
  CLI::App* app;
  /// Runs the job with the parsed options; returns the exit code, throws variate::Error.
  std::function<int()> run;
};

TrainCommand add_train_command(CLI::App& app);

}  // namespace variate::cli
