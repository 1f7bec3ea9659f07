#include "references.hpp"

#include <fstream>
#include <sstream>

#include "variate/core/error.hpp"

namespace posteriordb {
namespace {

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) out.push_back(field);
  return out;
}

double number(const std::string& text, const std::string& where) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  VARIATE_CHECK(used == text.size() && !text.empty(), "read_references", where, ": '", text, "' is not a number");
  return value;
}

}  // namespace

std::string default_reference_file() { return std::string(POSTERIORDB_SOURCE_DIR) + "/posteriordb/references.csv"; }

ReferenceTable read_references(const std::string& file) {
  std::ifstream in(file);
  VARIATE_CHECK(in.good(), "read_references", "cannot open ", file);
  ReferenceTable table;
  const std::string header = "posterior,parameter,mean,sd,mcse_mean,draws";
  bool seen_header = false;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::string where = file + ":" + std::to_string(line_number);
    if (!seen_header) {
      VARIATE_CHECK(line == header, "read_references", where, ": expected the header '", header, "', got '", line, "'");
      seen_header = true;
      continue;
    }
    const std::vector<std::string> f = fields(line);
    VARIATE_CHECK(f.size() == 6, "read_references", where, ": expected 6 fields (", header, "), got ", f.size());
    table[f[0]].push_back({.parameter = f[1],
                           .mean = number(f[2], where),
                           .sd = number(f[3], where),
                           .mcse_mean = number(f[4], where),
                           .draws = std::int64_t(number(f[5], where))});
  }
  VARIATE_CHECK(seen_header, "read_references", file, " has no header line '", header, "'");
  return table;
}

}  // namespace posteriordb
