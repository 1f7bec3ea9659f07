// `variate build`'s options.
#include <iostream>
#include <memory>

#include "build_job.hpp"
#include "commands.hpp"

namespace variate::cli {

Command add_build_command(CLI::App& app) {
  auto o = std::make_shared<BuildJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "build", "compile a model file (ending with VARIATE_MODEL(function)) into a plugin for --model-file");
  cmd->add_option("file", o->source, "the model's C++ file")->required();
  cmd->add_option("-o,--output", o->output, "the plugin to write (default: the file's name with .so)");
  cmd->add_option("--compiler", o->compiler, "the C++20 compiler (default: $CXX, else the one that built variate)");
  return {cmd, [o] { return run_build_job(*o, std::cout); }};
}

}  // namespace variate::cli
