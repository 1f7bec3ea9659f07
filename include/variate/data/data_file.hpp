#pragma once
// Reading the data a model conditions on: CmdStan's JSON data files and CSV tables.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace variate::data {

/// A named numeric array read from a data file: its shape (empty for a scalar) and its values in
/// row-major order. `integer` is true when every value was written as an integer (no decimal point
/// or exponent), so a model can tell count data from real data as Stan's `int` does; an empty array
/// counts as integer. Values are held as doubles, so integers beyond 2^53 are rounded.
struct DataArray {
  std::vector<std::int64_t> shape;
  std::vector<double> values;
  bool integer = false;
  /// Names of the entries along the last axis (a watch matrix's movie titles), when the data have
  /// them; the JSON and CSV readers give none.
  std::vector<std::string> entry_names = {};
};

/// How error messages about data describe a shape: "a scalar" for {}, else "shape (2, 3)".
std::string describe_shape(const std::vector<std::int64_t>& shape);

/// A data file's arrays by name; std::less<> lets a std::string_view look names up.
using DataFile = std::map<std::string, DataArray, std::less<>>;

/// Reads CmdStan's JSON data format: one object whose members map a variable name to a number or a
/// rectangular array of numbers nested to any depth ({"N": 3, "y": [[1, 2], [3, 4]]} gives N with
/// shape {} and y with shape {2, 2}). Empty arrays are allowed ([] has shape {0}, [[], []] shape
/// {2, 0}). Throws variate::Error naming the file for a missing or unreadable file, an empty file,
/// JSON that does not parse (with the byte offset nlohmann::json reports), a top level that is not
/// an object, and a variable given twice; and naming the variable and the 0-based position ("y[1]")
/// for ragged arrays, booleans, strings, objects and nulls, and NaN or infinite values (CmdStan
/// accepts the strings "NaN", "Inf", "Infinity" and "-Infinity", but data for our models must be
/// finite) or numbers too large for a double.
DataFile read_cmdstan_json(const std::string& path);
/// The same format given as text (data passed in memory, as BridgeStan's clients do); `source`
/// names it in error messages.
DataFile parse_cmdstan_json(std::string_view text, const std::string& source);

/// Reads a CSV table, plain or gzip-compressed (detected from the content): a header row of column
/// names, then rows of numbers; each column becomes a 1-D array with one value per row. Blank lines
/// and Windows line ends are accepted, and a header name may be wrapped in double quotes (as R's
/// write.csv writes them), but quoted fields are not otherwise supported. Throws variate::Error
/// naming the file, and the line where there is one, for a missing or unreadable file, an empty
/// file, empty or duplicate column names, a row with a different number of fields than the header,
/// and (naming the column too) empty fields, fields that are not numbers, and NaN or infinite
/// values.
DataFile read_csv_table(const std::string& path);

/// Reads a data file by its extension (case-insensitive): .json, .json.gz and .json.zip (a zip
/// archive of one file, as posteriordb ships its data) with read_cmdstan_json, .csv and .csv.gz
/// with read_csv_table. Either reader also takes gzip or zip content whatever the name. Throws variate::Error naming
/// the extension and the accepted ones for any other.
DataFile read_data_file(const std::string& path);

}  // namespace variate::data
