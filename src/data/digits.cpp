#include "variate/data/digits.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "data/read_text.hpp"
#include "variate/core/quote_input.hpp"

namespace variate::data {

// Defined in the file cmake/embed_file.cmake generates from data/digits.csv.gz.
extern const std::span<const unsigned char> digits_csv_gz;

namespace {

// Strips spaces, tabs and the '\r' of Windows line ends.
std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Parses CSV text of numbers. `op` and `source` (a file name) start every error message, followed
// by the line number, so a user can go straight to the offending row.
Dataset parse_csv(std::string_view text, const char* op, const std::string& source, int label_column) {
  std::vector<double> features;
  std::vector<std::int64_t> labels;
  std::vector<double> row;
  std::size_t columns = 0;
  std::size_t label = 0;
  std::int64_t line_number = 0;
  std::int64_t first_line = 0;
  while (!text.empty()) {
    ++line_number;
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    line = trim(line);
    if (line.empty()) continue;

    row.clear();
    for (std::size_t start = 0;;) {
      const auto comma = line.find(',', start);
      const std::string_view field = trim(line.substr(start, comma - start));
      double value = 0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
      if (field.empty() || ec != std::errc{} || end != field.data() + field.size()) {
        detail::fail(op, ": ", source, ":", line_number, ": column ", row.size() + 1, ": ", quote_input(field),
                     " is not a number");
      }
      if (!std::isfinite(value)) {
        detail::fail(op, ": ", source, ":", line_number, ": column ", row.size() + 1, ": ", quote_input(field),
                     " is not a finite number");
      }
      row.push_back(value);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }

    if (columns == 0) {
      columns = row.size();
      first_line = line_number;
      const auto n = static_cast<std::int64_t>(columns);
      VARIATE_CHECK(columns >= 2, op, source, ":", line_number, ": expected a label column and at least one ",
                    "feature column, found ", columns, " column");
      VARIATE_CHECK(label_column >= -n && label_column < n, op, source, ": label column ", label_column,
                    " is out of range for ", columns, " columns");
      label = static_cast<std::size_t>(label_column < 0 ? label_column + n : label_column);
    }
    VARIATE_CHECK(row.size() == columns, op, source, ":", line_number, ": expected ", columns, " columns (as on line ",
                  first_line, "), found ", row.size());

    // Labels become i64 class indices, so a fractional or huge label is malformed input, not
    // something to round silently. 2^53 bounds the integers a double holds exactly.
    const double y = row[label];
    VARIATE_CHECK(y == std::trunc(y) && std::abs(y) <= 9007199254740992.0, op, source, ":", line_number,
                  ": label (column ", label + 1, ") ", y, " is not an integer");
    labels.push_back(static_cast<std::int64_t>(y));
    for (std::size_t c = 0; c < columns; ++c) {
      if (c != label) features.push_back(row[c]);
    }
  }
  VARIATE_CHECK(!labels.empty(), op, source, ": no rows");

  const auto n = static_cast<std::int64_t>(labels.size());
  return {Tensor::from(features, Shape{n, static_cast<std::int64_t>(columns) - 1}), Tensor::from(labels, Shape{n})};
}

}  // namespace

Dataset digits() {
  constexpr const char* op = "digits";
  const std::string source = "embedded digits.csv.gz";
  return parse_csv(detail::gunzip(digits_csv_gz, op, source), op, source, -1);
}

Dataset load_csv_dataset(const std::string& path, int label_column) {
  constexpr const char* op = "load_csv_dataset";
  return parse_csv(detail::read_text_file(path, op), op, path, label_column);
}

}  // namespace variate::data
