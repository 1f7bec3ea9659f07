#include "cli_options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include "variate/core/quote_input.hpp"
#include "variate/models/builtin.hpp"

namespace variate::cli {
namespace {

// `text` read as a whole double, or false.
bool parse_number(const std::string& text, double& v) {
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  return used == text.size() && used > 0;
}

}  // namespace

const CLI::Validator kOpenUnitInterval(
    [](std::string& text) -> std::string {
      double v = 0;
      if (!parse_number(text, v)) return "expected a number strictly between 0 and 1, got " + quote_input(text);
      return v > 0 && v < 1 ? std::string() : "must be strictly between 0 and 1, got " + text;
    },
    "in (0, 1)");

const CLI::Validator kPositiveNumber(
    [](std::string& text) -> std::string {
      double v = 0;
      if (!parse_number(text, v)) return "expected a number greater than 0, got " + quote_input(text);
      return v > 0 && std::isfinite(v) ? std::string() : "must be a finite number greater than 0, got " + text;
    },
    "> 0");

const CLI::Validator kNonNegativeNumber(
    [](std::string& text) -> std::string {
      double v = 0;
      if (!parse_number(text, v)) return "expected a number at least 0, got " + quote_input(text);
      return v >= 0 && std::isfinite(v) ? std::string() : "must be a finite number at least 0, got " + text;
    },
    ">= 0");

const CLI::Validator kSeed(
    [](std::string& text) -> std::string {
      const bool digits = !text.empty() && text.size() <= 20 &&
                          std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
      if (!digits) return "expected a whole number from 0 to 18446744073709551615, got " + quote_input(text);
      try {
        (void)std::stoull(text);
      } catch (const std::exception&) {
        return "must be at most 18446744073709551615, got " + text;
      }
      return {};
    },
    "0..2^64-1");

CLI::Validator whole_number(long long minimum, long long maximum) {
  std::string description = ">= " + std::to_string(minimum);
  if (maximum < std::numeric_limits<long long>::max())
    description = "in " + std::to_string(minimum) + ".." + std::to_string(maximum);
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        long long v = 0;
        std::size_t used = 0;
        try {
          v = std::stoll(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || used == 0) return "expected a whole number, got " + quote_input(text);
        if (v < minimum) return "must be at least " + std::to_string(minimum) + ", got " + text;
        if (v > maximum) return "must be at most " + std::to_string(maximum) + ", got " + text;
        return {};
      },
      description);
}

void add_model_options(CLI::App& command, std::string& model, std::string& model_file) {
  std::vector<std::string> names;
  std::string help = "the model:";
  for (const models::BuiltinModel& m : models::builtin_models()) {
    names.push_back(m.name);
    help += "\n  " + m.name + ": " + m.summary;
  }
  CLI::Option* by_name = command.add_option("--model", model, help)->check(CLI::IsMember(names))->capture_default_str();
  command
      .add_option("--model-file", model_file,
                  "a model plugin (a shared library built by `variate build MODEL.cpp`) instead of a built-in model; "
                  "its data come from --data")
      ->excludes(by_name);
}

}  // namespace variate::cli
