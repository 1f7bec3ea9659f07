// `variate recommend`'s options.
#include <iostream>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "recommend_job.hpp"

namespace variate::cli {

Command add_recommend_command(CLI::App& app) {
  auto o = std::make_shared<RecommendJobOptions>();
  CLI::App* cmd = app.add_subcommand(
      "recommend",
      "a MovieLens run's recommendations for one user with their posterior uncertainty (--user), or its held-out "
      "evaluation (--evaluate); reads the draws of `variate sample --model movielens --save-all`");
  cmd->add_option("dir", o->dir, "the run's output folder")->required();
  CLI::Option* user = cmd->add_option("--user", o->user, "the user id (1-based, as in u.data)")->check(whole_number(1));
  cmd->add_option("--top", o->top, "how many movies to list")->check(whole_number(1))->capture_default_str();
  cmd->add_flag("--exclude-rated", o->exclude_rated, "leave out the movies the user rated in the run's data");
  cmd->add_option("--interval", o->interval, "the probability of each score's central interval")
      ->check(kOpenUnitInterval)
      ->capture_default_str();
  CLI::Option* evaluate = cmd->add_flag(
      "--evaluate", o->evaluate,
      "held-out log-likelihood and AUC of the withheld ratings, posterior predictive against the plug-in of the "
      "posterior means (the run must have trained on a split's base file, e.g. --data .../ua.base)");
  cmd->add_option("--test", o->test, "the withheld ratings (default: <split>.test beside the run's <split>.base)");
  cmd->add_option("--data", o->data,
                  "the MovieLens folder or ratings file the run read (default: as recorded in its files)");
  cmd->add_option("--json", o->json, "also write the result to this JSON file");
  user->excludes(evaluate);
  return {cmd, [o] { return run_recommend_job(*o, std::cout); }};
}

}  // namespace variate::cli
