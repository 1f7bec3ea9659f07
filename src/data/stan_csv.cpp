#include "variate/data/stan_csv.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "data/text_lines.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"

namespace variate::data {

namespace {

// Strips spaces, tabs and the '\r' of Windows line ends.
std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// Appends the shortest text that std::from_chars reads back as exactly `x`; NaN of either sign as
// "nan", as CmdStan writes it.
void append_double(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "nan";
    return;
  }
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
  out.append(buffer, end);  // 32 characters hold any double, so ec is always success
  (void)ec;
}

// A whole field as a double (nan, inf and -inf included), or nothing if it is not a number.
std::optional<double> parse_double(std::string_view field) {
  double value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || ec != std::errc{} || end != field.data() + field.size()) return std::nullopt;
  return value;
}

// A comma-separated list of numbers ("0.5, 0.7"); an empty text is an empty list.
std::optional<std::vector<double>> parse_list(std::string_view text) {
  std::vector<double> values;
  if (trim(text).empty()) return values;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    const auto value = parse_double(trim(text.substr(start, comma - start)));
    if (!value) return std::nullopt;
    values.push_back(*value);
    if (comma == std::string_view::npos) return values;
    start = comma + 1;
  }
}

// Splits a line at commas, trimming each field.
void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  for (std::size_t start = 0;;) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

// A config value as a count, or nothing if it is not a non-negative integer.
std::optional<std::int64_t> parse_count(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// Calls f(index) for every multi-index of `shape` in column-major order (the first index varies
// fastest), as Stan lays out the columns of arrays and matrices.
template <class F>
void for_each_column_major(std::span<const std::int64_t> shape, const char* op, F&& f) {
  for (std::size_t k = 0; k < shape.size(); ++k) {
    VARIATE_CHECK(shape[k] >= 0, op, "dimension ", k, " of the shape is ", shape[k], ", expected a size >= 0");
    if (shape[k] == 0) return;
  }
  std::vector<std::int64_t> index(shape.size(), 0);
  for (;;) {
    f(std::span<const std::int64_t>(index));
    std::size_t k = 0;
    while (k < shape.size() && ++index[k] == shape[k]) index[k++] = 0;
    if (k == shape.size()) return;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writing

StanCsvWriter::StanCsvWriter(const std::string& path, const std::vector<std::pair<std::string, std::string>>& config,
                             const std::vector<std::string>& columns)
    : path_(path), columns_(columns.size()) {
  constexpr const char* op = "StanCsvWriter";
  VARIATE_CHECK(!columns.empty(), op, path, ": expected at least one column name, found none");
  std::string header;
  for (const auto& [key, value] : config) {
    VARIATE_CHECK(!trim(key).empty() && key.find('=') == std::string::npos && !has_line_break(key), op, path,
                  ": config key '", key, "' is not a valid key (expected non-empty text without '=' or line breaks)");
    VARIATE_CHECK(!has_line_break(value), op, path, ": the value of config key '", trim(key),
                  "' holds a line break; expected a single line");
    header += "# " + key + " = " + value + "\n";
  }
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& name = columns[c];
    VARIATE_CHECK(!name.empty() && name.find_first_of(",\"#\r\n \t") == std::string::npos, op, path, ": column ", c + 1,
                  " name '", name, "' is not valid in a CSV header (expected non-empty text without commas, ",
                  "quotes, '#', spaces or line breaks)");
    if (c > 0) header += ',';
    header += name;
  }

  errno = 0;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  VARIATE_CHECK(fd_ >= 0, op, "cannot open file '", path, "' for writing: ", std::strerror(errno));
  write_lines(header);
}

StanCsvWriter::~StanCsvWriter() {
  if (fd_ >= 0) ::close(fd_);
}

// One write per call (a loop only if the system takes part of it), so the file holds whole lines
// whenever the process stops. A failed write cuts off the part that did reach the file.
void StanCsvWriter::write_lines(std::string& lines) {
  lines += '\n';
  for (std::size_t done = 0; done < lines.size();) {
    const ssize_t n = ::write(fd_, lines.data() + done, lines.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      if (done > 0 && ::ftruncate(fd_, off_t(written_)) == 0) ::lseek(fd_, off_t(written_), SEEK_SET);
      detail::fail("StanCsvWriter: cannot write to file '", path_, "': ", std::strerror(error),
                   "; it keeps the lines written before");
    }
    done += std::size_t(n);
  }
  written_ += lines.size();
}

void StanCsvWriter::write_adaptation(const StanCsvAdaptation& adaptation) {
  constexpr const char* op = "StanCsvWriter::write_adaptation";
  std::string block = "# Adaptation terminated\n# Step size = ";
  append_double(block, adaptation.step_size);
  const std::vector<double>& metric = adaptation.inverse_metric;
  if (!adaptation.dense) {
    block += "\n# Diagonal elements of inverse mass matrix:\n# ";
    for (std::size_t i = 0; i < metric.size(); ++i) {
      if (i > 0) block += ", ";
      append_double(block, metric[i]);
    }
  } else {
    const auto d = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(metric.size()))));
    VARIATE_CHECK(d * d == metric.size(), op, path_, ": a dense inverse metric needs D x D elements, found ",
                  metric.size(), ", which is not a square number");
    block += "\n# Elements of inverse mass matrix:";
    for (std::size_t i = 0; i < d; ++i) {
      block += "\n# ";
      for (std::size_t j = 0; j < d; ++j) {
        if (j > 0) block += ", ";
        append_double(block, metric[i * d + j]);
      }
    }
  }
  write_lines(block);
}

void StanCsvWriter::write_row(std::span<const double> values) {
  VARIATE_CHECK(values.size() == columns_, "StanCsvWriter::write_row", path_, ": expected ", columns_,
                " values (one per column), found ", values.size());
  buffer_.clear();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) buffer_ += ',';
    append_double(buffer_, values[i]);
  }
  write_lines(buffer_);
}

void StanCsvWriter::write_timing(double warmup_seconds, double sampling_seconds) {
  VARIATE_CHECK(
      std::isfinite(warmup_seconds) && std::isfinite(sampling_seconds) && warmup_seconds >= 0 && sampling_seconds >= 0,
      "StanCsvWriter::write_timing", path_, ": expected finite non-negative times, found warm-up ", warmup_seconds,
      " s and sampling ", sampling_seconds, " s");
  // CmdStan's layout and its default 6 significant digits (stan::services::util::mcmc_writer).
  std::ostringstream block;
  const std::string title = " Elapsed Time: ";
  const std::string indent(title.size(), ' ');
  block << "# \n"
        << "# " << title << warmup_seconds << " seconds (Warm-up)\n"
        << "# " << indent << sampling_seconds << " seconds (Sampling)\n"
        << "# " << indent << warmup_seconds + sampling_seconds << " seconds (Total)\n"
        << "# ";
  std::string text = block.str();
  write_lines(text);
}

// ---------------------------------------------------------------------------------------------
// Reading

const std::string* StanCsv::config_value(std::string_view key) const {
  for (const auto& [k, v] : config) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::vector<double> StanCsv::column(std::string_view name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) {
    std::string known;
    constexpr std::size_t kShown = 12;
    for (std::size_t c = 0; c < std::min(columns.size(), kShown); ++c) known += (c > 0 ? ", " : "") + columns[c];
    if (columns.size() > kShown) known += ", ... (" + std::to_string(columns.size()) + " in all)";
    detail::fail("StanCsv::column", ": no column '", name, "' in file '", path, "' (its columns: ", known, ")");
  }
  const auto c = static_cast<std::size_t>(it - columns.begin());
  std::vector<double> values;
  values.reserve(draws.size());
  for (const auto& row : draws) values.push_back(row[c]);
  return values;
}

StanCsv read_stan_csv(const std::string& path, const std::function<bool(std::string_view)>& keep) {
  constexpr const char* op = "read_stan_csv";
  detail::TextLines lines(path, op);
  bool blank = true;  // so far only white space

  StanCsv csv;
  csv.path = path;
  std::vector<std::vector<double>> rows;
  std::vector<std::string_view> fields;
  std::vector<std::size_t> kept;  // the header positions of the columns read
  bool have_header = false;
  std::int64_t header_line = 0;

  // The adaptation block is a few comment lines in a fixed order; `state` says which comes next.
  enum class State { none, step_size, metric_kind, diagonal, dense_rows } state = State::none;
  std::int64_t adaptation_line = 0;
  std::size_t rows_before_adaptation = 0;
  std::vector<std::pair<std::int64_t, std::vector<double>>> dense_rows;  // (line, row)
  const auto finish_dense = [&] {
    const std::size_t d = dense_rows.size();
    std::vector<double>& metric = csv.adaptation.inverse_metric;
    for (const auto& [line, row] : dense_rows) {
      VARIATE_CHECK(row.size() == d, op, path, ":", line, ": the dense inverse mass matrix has ", d,
                    " rows but a row of ", row.size(), " elements; expected a square matrix");
      metric.insert(metric.end(), row.begin(), row.end());
    }
    dense_rows.clear();
    state = State::none;
  };

  std::string_view text;
  for (std::int64_t line_number = 1; lines.next(text); ++line_number) {
    const std::string_view line = trim(text);
    if (line.empty()) continue;
    blank = false;

    if (line.front() == '#') {
      const std::string_view comment = trim(line.substr(1));
      if (!have_header) {
        const auto equals = comment.find('=');
        if (equals == std::string_view::npos) continue;  // an argument group's name, or a blank comment
        std::string_view value = trim(comment.substr(equals + 1));
        constexpr std::string_view kDefault = "(Default)";
        if (value.ends_with(kDefault)) value = trim(value.substr(0, value.size() - kDefault.size()));
        csv.config.emplace_back(std::string(trim(comment.substr(0, equals))), std::string(value));
        continue;
      }
      switch (state) {
        case State::none: break;
        case State::step_size: {
          // A sampler without a step size (fixed_param) writes nothing after "Adaptation terminated".
          constexpr std::string_view kStep = "Step size =";
          state = State::none;
          if (!comment.starts_with(kStep)) break;
          const auto step = parse_double(trim(comment.substr(kStep.size())));
          VARIATE_CHECK(step.has_value(), op, path, ":", line_number, ": the step size ",
                        quote_input(trim(comment.substr(kStep.size()))), " is not a number");
          csv.adaptation.step_size = *step;
          state = State::metric_kind;
          continue;
        }
        case State::metric_kind:
          // A unit metric writes no matrix (Stan writes a note instead), so anything else ends the block.
          state = State::none;
          if (comment == "Diagonal elements of inverse mass matrix:") {
            state = State::diagonal;
            continue;
          }
          if (comment == "Elements of inverse mass matrix:") {
            csv.adaptation.dense = true;
            state = State::dense_rows;
            continue;
          }
          break;
        case State::diagonal: {
          auto metric = parse_list(comment);
          VARIATE_CHECK(metric.has_value(), op, path, ":", line_number,
                        ": expected the diagonal of the inverse mass matrix (numbers separated by commas), found ",
                        quote_input(line));
          csv.adaptation.inverse_metric = std::move(*metric);
          state = State::none;
          continue;
        }
        case State::dense_rows: {
          // Rows of numbers continue the matrix; the first other comment ends it.
          auto row = comment.empty() ? std::nullopt : parse_list(comment);
          if (row) {
            dense_rows.emplace_back(line_number, std::move(*row));
            continue;
          }
          finish_dense();
          break;
        }
      }
      if (comment == "Adaptation terminated") {
        VARIATE_CHECK(!csv.has_adaptation, op, path, ":", line_number, ": a second '# Adaptation terminated' ",
                      "(the first is on line ", adaptation_line, "); expected one adaptation block");
        csv.has_adaptation = true;
        adaptation_line = line_number;
        rows_before_adaptation = rows.size();
        state = State::step_size;
      }
      continue;  // other comments, such as the timing block, carry nothing we keep
    }

    if (!have_header) {
      split_fields(line, fields);
      const bool numbers =
          std::all_of(fields.begin(), fields.end(), [](auto f) { return parse_double(f).has_value(); });
      VARIATE_CHECK(!numbers, op, path, ":", line_number,
                    ": expected the line of column names (such as lp__,accept_stat__,...), found a row of numbers");
      std::unordered_map<std::string_view, std::size_t> seen;  // name -> its column, from 1
      for (std::size_t c = 0; c < fields.size(); ++c) {
        VARIATE_CHECK(!fields[c].empty(), op, path, ":", line_number, ": column ", c + 1,
                      " of the header has an empty name");
        const auto [earlier, added] = seen.emplace(fields[c], c + 1);
        VARIATE_CHECK(added, op, path, ":", line_number, ": column name ", quote_input(fields[c]),
                      " appears twice (columns ", earlier->second, " and ", c + 1, ")");
        csv.header.emplace_back(fields[c]);
        if (!keep || keep(fields[c])) {
          kept.push_back(c);
          csv.columns.emplace_back(fields[c]);
        }
      }
      have_header = true;
      header_line = line_number;
      continue;
    }

    if (state == State::dense_rows) finish_dense();
    VARIATE_CHECK(state != State::diagonal, op, path, ":", line_number, ": the adaptation block that starts on line ",
                  adaptation_line, " is incomplete (expected the diagonal of the inverse mass matrix), found a row of ",
                  "draws");
    state = State::none;
    split_fields(line, fields);
    // A run stopped by a crash or a full disk may leave its last row without its line end, cut
    // short anywhere, even inside a number. (A short row that has its line end was written so.)
    if (!lines.ended() && fields.size() <= csv.header.size()) {
      std::ostringstream warning;
      warning << path << ":" << line_number << ": the last row is cut short (no line end, " << fields.size() << " of "
              << csv.header.size() << " fields; the run writing it was interrupted or its disk was full); skipped it";
      csv.warning = warning.str();
      break;
    }
    VARIATE_CHECK(fields.size() == csv.header.size(), op, path, ":", line_number, ": found ", fields.size(),
                  " fields, expected ", csv.header.size(), " (one per column of the header on line ", header_line, ")");
    std::vector<double>& row = rows.emplace_back();
    row.reserve(kept.size());
    for (const std::size_t c : kept) {
      const auto value = parse_double(fields[c]);
      VARIATE_CHECK(value.has_value(), op, path, ":", line_number, ": column ", quote_input(csv.header[c]), " (", c + 1,
                    "): ", quote_input(fields[c]), " is not a number");
      row.push_back(*value);
    }
  }
  VARIATE_CHECK(!blank, op, path, ": the file is empty; expected Stan CSV output (comment lines, ",
                "a line of column names and rows of draws)");
  VARIATE_CHECK(have_header, op, path,
                ": no line of column names (such as lp__,accept_stat__,...); the file holds only comments");
  if (state == State::dense_rows) finish_dense();

  // CmdStan writes saved warm-up draws before the adaptation block, which it writes for every
  // sampler (stan::services::util::run_sampler and run_adaptive_sampler). Without the block, the
  // run stopped during warm-up or the writer wrote none: count the warm-up rows from the config, as
  // generate_transitions saves every thin-th warm-up iteration.
  std::size_t warmup_rows = rows_before_adaptation;
  const std::string* save_warmup = csv.config_value("save_warmup");
  if (!csv.has_adaptation && save_warmup != nullptr && (*save_warmup == "1" || *save_warmup == "true")) {
    const auto count = [&](const char* key, std::int64_t fallback, std::int64_t least) {
      const std::string* value = csv.config_value(key);
      if (value == nullptr) return fallback;
      const auto n = parse_count(*value);
      VARIATE_CHECK(n.has_value() && *n >= least, op, path, ": config ", key, " = ", quote_input(*value),
                    " is not an integer >= ", least);
      return *n;
    };
    const std::int64_t num_warmup = count("num_warmup", 1000, 0);
    const std::int64_t thin = count("thin", 1, 1);
    const std::int64_t saved = num_warmup / thin + (num_warmup % thin != 0);  // ceil without overflow
    warmup_rows = std::min(static_cast<std::size_t>(saved), rows.size());
  }
  csv.warmup_draws.assign(std::make_move_iterator(rows.begin()),
                          std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(warmup_rows)));
  csv.draws.assign(std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(warmup_rows)),
                   std::make_move_iterator(rows.end()));
  return csv;
}

// ---------------------------------------------------------------------------------------------
// Column names

std::string stan_column_name(const std::string& site, std::span<const std::int64_t> index) {
  constexpr const char* op = "stan_column_name";
  VARIATE_CHECK(!site.empty(), op, "expected a site name, found an empty one");
  std::string name = site;
  for (std::size_t k = 0; k < index.size(); ++k) {
    VARIATE_CHECK(index[k] >= 0, op, "index ", k, " of site '", site, "' is ", index[k],
                  ", expected a 0-based index >= 0");
    name += '.';
    name += std::to_string(index[k] + 1);
  }
  return name;
}

std::vector<std::string> stan_column_names(const std::string& site, std::span<const std::int64_t> shape) {
  std::vector<std::string> names;
  for_each_column_major(shape, "stan_column_names",
                        [&](std::span<const std::int64_t> index) { names.push_back(stan_column_name(site, index)); });
  return names;
}

std::vector<std::int64_t> column_major_order(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * std::max<std::int64_t>(shape[k], 1);
  std::vector<std::int64_t> order;
  for_each_column_major(shape, "column_major_order", [&](std::span<const std::int64_t> index) {
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < index.size(); ++k) offset += index[k] * strides[k];
    order.push_back(offset);
  });
  return order;
}

}  // namespace variate::data
