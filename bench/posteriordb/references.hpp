#pragma once
// posteriordb's reference posteriors, as moments: references.csv (written from posteriordb by
// scripts/posteriordb-references; BSD 3-Clause, see its header) holds per posterior and parameter
// the mean and sd of the 10000 reference draws and the MCSE of that mean, with parameters named as
// variate's draw columns (`theta.1`).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace posteriordb {

struct Reference {
  std::string parameter;
  double mean = 0, sd = 0, mcse_mean = 0;
  std::int64_t draws = 0;
};

/// posterior -> its parameters' references, in the file's order.
using ReferenceTable = std::map<std::string, std::vector<Reference>>;

/// The suite's table, bench/posteriordb/references.csv.
std::string default_reference_file();
/// Reads a table; throws naming the file and line of a malformed row.
ReferenceTable read_references(const std::string& file);

}  // namespace posteriordb
