// The `variate` command-line tool. With no subcommand it runs the main job, `variate sample`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  using namespace variate;
  CLI::App app{
      "variate: probabilistic programming with random variables and tracing.\n"
      "Without a subcommand, runs `variate sample` (Bayesian softmax regression on the embedded digits)."};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("variate ") + cli::kVariateVersion);
  // The first is the main job, run when no subcommand is named.
  const std::vector<cli::Command> commands = {cli::add_sample_command(app),     cli::add_vi_command(app),
                                              cli::add_optimize_command(app),   cli::add_summary_command(app),
                                              cli::add_report_command(app),     cli::add_train_command(app),
                                              cli::add_gradient_command(app),   cli::add_build_command(app),
                                              cli::add_pathfinder_command(app), cli::add_recommend_command(app)};

  // No subcommand: the main job. Options without a subcommand are the sample command's.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || (args[0].starts_with("-") && args[0] != "-h" && args[0] != "--help" && args[0] != "--version"))
    args.insert(args.begin(), "sample");
  std::vector<char*> argv2 = {argv[0]};
  for (auto& a : args) argv2.push_back(a.data());
  try {
    app.parse(int(argv2.size()), argv2.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "variate: error: " << e.what() << " (see variate " << (args.empty() ? "" : args[0] + " ")
              << "--help)\n";
    return 1;
  }

  try {
    for (const cli::Command& c : commands)
      if (*c.app) return c.run();
    return commands.front().run();
  } catch (const std::exception& e) {  // variate::Error and anything else: one message, no abort
    std::cout.flush();
    // One write: the ranks of an MPI job share a terminal, and pieces written apart interleave
    // there ("variate: error: variate: error: ...").
    std::cerr << "variate: error: " + std::string(e.what()) + "\n";
    return 1;
  }
}
