#include "variate/data/data_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "data/read_text.hpp"
#include "variate/core/error.hpp"
#include "variate/core/quote_input.hpp"

namespace variate::data {

namespace {

using Json = nlohmann::json;

// Strips spaces, tabs and the '\r' of Windows line ends.
std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// ---------------------------------------------------------------------------------------------
// JSON

// Walks one variable's value, checking that it is a rectangular array of numbers.
class JsonArrayReader {
 public:
  JsonArrayReader(const std::string& path, const std::string& name) : path_(path), quoted_name_(quote_input(name)) {
    // Positions show the name ("y[1]") unless quoting had to escape or cut it; then the index alone.
    if (quoted_name_ == "'" + name + "'") shown_name_ = name;
  }

  DataArray read(const Json& value) {
    // The first element at each depth fixes the shape; check() then holds every element to it.
    for (const Json* j = &value; j->is_array(); j = &(*j)[0]) {
      array_.shape.push_back(static_cast<std::int64_t>(j->size()));
      if (j->empty()) break;
    }
    array_.integer = true;
    check(value, 0);
    return std::move(array_);
  }

 private:
  static constexpr const char* op = "read_cmdstan_json";

  // "y[1][0]", or "y" itself at the top.
  std::string position() const {
    std::string text = shown_name_;
    for (std::int64_t i : index_) {
      text += '[';
      text += std::to_string(i);
      text += ']';
    }
    return text;
  }

  // The element at this depth whose size fixed the shape: y[0][0] for depth 2.
  std::string first_position(std::size_t depth) const {
    std::string text = shown_name_;
    for (std::size_t k = 0; k < depth; ++k) text += "[0]";
    return text;
  }

  static const char* kind(const Json& j) {
    switch (j.type()) {
      case Json::value_t::null: return "null";
      case Json::value_t::boolean: return "a boolean";
      case Json::value_t::string: return "a string";
      case Json::value_t::object: return "an object";
      case Json::value_t::array: return "an array";
      case Json::value_t::binary: return "binary data";
      default: return "a number";
    }
  }

  void check(const Json& j, std::size_t depth) {
    const std::size_t rank = array_.shape.size();
    if (depth < rank) {
      const auto expected = static_cast<std::size_t>(array_.shape[depth]);
      if (!j.is_array() || j.size() != expected) {
        detail::fail(op, ": ", path_, ": variable ", quoted_name_, " is not a rectangular array: ", position(), " is ",
                     j.is_array() ? "an array of " + std::to_string(j.size()) + " elements" : std::string(kind(j)),
                     ", expected an array of ", expected, " elements like ", first_position(depth));
      }
      index_.push_back(0);
      for (const Json& element : j) {
        check(element, depth + 1);
        ++index_.back();
      }
      index_.pop_back();
      return;
    }
    if (j.is_number()) {
      const double x = j.get<double>();
      VARIATE_CHECK(std::isfinite(x), op, path_, ": variable ", quoted_name_, ": ", position(), " is ", x,
                    ", expected a finite number");
      array_.integer = array_.integer && j.is_number_integer();
      array_.values.push_back(x);
      return;
    }
    if (j.is_string()) {
      const std::string& s = j.get_ref<const std::string&>();
      // CmdStan reads these strings as special values; model data must be finite.
      constexpr std::string_view kSpecial[] = {"NaN", "Inf", "-Inf", "+Inf", "Infinity", "-Infinity", "+Infinity"};
      const bool special = std::find(std::begin(kSpecial), std::end(kSpecial), s) != std::end(kSpecial);
      VARIATE_CHECK(!special, op, path_, ": variable ", quoted_name_, ": ", position(), " is \"", s,
                    "\" (not finite), expected a finite number: data for a model must be finite");
    }
    std::string found = kind(j);
    if (j.is_string()) found += " (" + quote_input(j.get_ref<const std::string&>()) + ")";
    if (depth == 0) {
      detail::fail(op, ": ", path_, ": variable ", quoted_name_, " is ", found,
                   ", expected a number or an array of numbers");
    }
    detail::fail(op, ": ", path_, ": variable ", quoted_name_, ": ", position(), " is ", found,
                 j.is_array() ? ", expected a number like " + first_position(depth) + " (the array is not rectangular)"
                              : std::string(", expected a number"));
  }

  const std::string& path_;
  std::string quoted_name_, shown_name_;
  DataArray array_;
  std::vector<std::int64_t> index_;
};

// nlohmann::json's message from "parse error at line L, column C: ..." on, without the exception's
// id and the token it last read, which may be megabytes long (the line and column locate it).
std::string parse_error_text(std::string_view what) {
  if (const auto at = what.find("parse error"); at != std::string_view::npos) what.remove_prefix(at);
  return std::string(what.substr(0, what.find("; last read: ")));
}

// ---------------------------------------------------------------------------------------------
// CSV

void split_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  for (std::size_t start = 0;;) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

// Written as an integer: an optional minus sign and digits only.
bool integer_text(std::string_view field) {
  if (field.starts_with('-')) field.remove_prefix(1);
  return !field.empty() && std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

DataFile read_cmdstan_json(const std::string& path) {
  const std::string text = detail::read_text_file(path, "read_cmdstan_json");
  VARIATE_CHECK(text.find_first_not_of(" \t\r\n") != std::string::npos, "read_cmdstan_json", path,
                ": the file is empty; expected a JSON object {\"name\": value, ...}");
  return parse_cmdstan_json(text, path);
}

DataFile parse_cmdstan_json(std::string_view text, const std::string& source) {
  constexpr const char* op = "read_cmdstan_json";
  VARIATE_CHECK(text.find_first_not_of(" \t\r\n") != std::string_view::npos, op, source,
                ": the text is empty; expected a JSON object {\"name\": value, ...}");

  // nlohmann::json keeps the last of repeated keys; a repeated variable is more likely a mistake.
  std::unordered_set<std::string> names;
  // Arrays nested deeper than any variable has dimensions are refused while parsing: the checks
  // below (and the parsed value's destructor) recurse once per level.
  constexpr int kMaxDimensions = 32;
  const Json::parser_callback_t on_event = [&](int depth, Json::parse_event_t event, Json& parsed) {
    const bool opens = event == Json::parse_event_t::array_start || event == Json::parse_event_t::object_start;
    VARIATE_CHECK(!opens || depth <= kMaxDimensions, op, source, ": arrays nested more than ", kMaxDimensions,
                  " deep; expected a variable of at most ", kMaxDimensions, " dimensions");
    if (depth == 1 && event == Json::parse_event_t::key) {
      const std::string& name = parsed.get_ref<const std::string&>();
      VARIATE_CHECK(!name.empty(), op, source, ": a variable has an empty name; expected a variable name");
      VARIATE_CHECK(names.insert(name).second, op, source, ": variable ", quote_input(name), " is given twice");
    }
    return true;
  };
  Json root;
  try {
    root = Json::parse(text, on_event);
  } catch (const Json::parse_error& e) {
    detail::fail(op, ": ", source, ": invalid JSON at byte ", e.byte, ": ", parse_error_text(e.what()));
  } catch (const Json::exception& e) {
    detail::fail(op, ": ", source, ": cannot read the JSON: ", parse_error_text(e.what()));
  }
  VARIATE_CHECK(root.is_object(), op, source, ": the top level is ", root.type_name(),
                ", expected an object {\"name\": value, ...}");

  DataFile data;
  for (const auto& [name, value] : root.items()) {
    data.emplace(name, JsonArrayReader(source, name).read(value));
  }
  return data;
}

DataFile read_csv_table(const std::string& path) {
  constexpr const char* op = "read_csv_table";
  const std::string contents = detail::read_text_file(path, op);

  std::vector<std::string> names;
  std::vector<DataArray> columns;
  std::vector<std::string_view> fields;
  std::int64_t header_line = 0;
  std::string_view text = contents;
  for (std::int64_t line_number = 1; !text.empty(); ++line_number) {
    const auto newline = text.find('\n');
    const std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty()) continue;
    split_fields(line, fields);

    if (header_line == 0) {
      header_line = line_number;
      std::unordered_map<std::string_view, std::size_t> seen;  // name -> its column, from 1
      for (std::size_t c = 0; c < fields.size(); ++c) {
        std::string_view name = fields[c];
        if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = trim(name.substr(1, name.size() - 2));
        VARIATE_CHECK(!name.empty(), op, path, ":", line_number, ": column ", c + 1,
                      " of the header has an empty name; expected a variable name");
        const auto [earlier, added] = seen.emplace(name, c + 1);
        VARIATE_CHECK(added, op, path, ":", line_number, ": column name ", quote_input(name),
                      " appears twice (columns ", earlier->second, " and ", c + 1, ")");
        names.emplace_back(name);
      }
      columns.resize(names.size(), DataArray{{0}, {}, true});
      continue;
    }

    VARIATE_CHECK(fields.size() == names.size(), op, path, ":", line_number, ": found ", fields.size(),
                  " fields, expected ", names.size(), " (one per column of the header on line ", header_line, ")");
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const std::string_view field = fields[c];
      VARIATE_CHECK(!field.empty(), op, path, ":", line_number, ": column ", quote_input(names[c]), " (", c + 1,
                    ") is empty, expected a number");
      double value = 0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
      VARIATE_CHECK(ec == std::errc{} && end == field.data() + field.size(), op, path, ":", line_number, ": column ",
                    quote_input(names[c]), " (", c + 1, "): ", quote_input(field), " is not a number");
      VARIATE_CHECK(std::isfinite(value), op, path, ":", line_number, ": column ", quote_input(names[c]), " (", c + 1,
                    "): ", quote_input(field),
                    " is not finite, expected a finite number: data for a model must be finite");
      DataArray& column = columns[c];
      column.values.push_back(value);
      column.integer = column.integer && integer_text(field);
      ++column.shape[0];
    }
  }
  VARIATE_CHECK(header_line != 0, op, path, ": the file is empty; expected a header row of column names");

  DataFile data;
  for (std::size_t c = 0; c < names.size(); ++c) data.emplace(std::move(names[c]), std::move(columns[c]));
  return data;
}

DataFile read_data_file(const std::string& path) {
  const std::filesystem::path file(path);
  std::string extension = file.extension().string();
  const std::string last = file.extension().string();
  if (last == ".gz" || last == ".GZ" || last == ".zip" || last == ".ZIP")
    extension = file.stem().extension().string() + extension;
  std::string lower = extension;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == ".json" || lower == ".json.gz" || lower == ".json.zip") return read_cmdstan_json(path);
  if (lower == ".csv" || lower == ".csv.gz") return read_csv_table(path);
  detail::fail(
      "read_data_file", ": ", path, ": ",
      extension.empty() ? std::string("the file name has no extension") : "unknown extension '" + extension + "'",
      "; expected .json, .json.gz or .json.zip (CmdStan JSON, as posteriordb ships it) or .csv / .csv.gz (a CSV "
      "table with a header row)");
}

std::string describe_shape(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "a scalar";
  std::string text = "shape (";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + ')';
}

}  // namespace variate::data
