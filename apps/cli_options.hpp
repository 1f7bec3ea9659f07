#pragma once
// What the subcommands' options share: validators with messages that say what was expected, and
// the --model option listing the built-in models.
#include <CLI/CLI.hpp>
#include <limits>
#include <string>

namespace variate::cli {

/// A probability strictly between 0 and 1 (--adapt-delta).
extern const CLI::Validator kOpenUnitInterval;
/// A seed: digits only (CLI11 would wrap "-1" around to 2^64 - 1).
extern const CLI::Validator kSeed;
/// A number greater than 0 (a learning rate).
extern const CLI::Validator kPositiveNumber;
/// A number at least 0 (a tolerance, an init radius).
extern const CLI::Validator kNonNegativeNumber;

/// A whole number in [minimum, maximum], with a message that says which bound was crossed.
CLI::Validator whole_number(long long minimum, long long maximum = std::numeric_limits<long long>::max());

/// Adds --model to `command`: one of the built-in models (models/builtin.hpp), each listed in the help; and
/// --model-file, a model plugin instead.
void add_model_options(CLI::App& command, std::string& model, std::string& model_file);

}  // namespace variate::cli
