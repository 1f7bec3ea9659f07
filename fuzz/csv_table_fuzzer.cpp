// Fuzzes read_csv_table, the reader of CSV data files (seeds: corpus/csv_table).
#include "data_file_checks.hpp"
#include "fuzz_support.hpp"
#include "variate/data/data_file.hpp"

namespace {

// Beyond check_data_file: every column has a name and is 1-D, with one value per row.
void check_table(const variate::data::DataFile& table) {
  variate::fuzz::check_data_file(table);
  const std::int64_t rows = table.empty() ? 0 : table.begin()->second.shape.at(0);
  for (const auto& [name, column] : table) {
    variate::fuzz::expect(!name.empty(), "a column without a name");
    variate::fuzz::expect(column.shape.size() == 1 && column.shape[0] == rows, "columns of different lengths");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const variate::fuzz::InputFolder folder;
  const std::string path = folder.write("data.csv", variate::fuzz::as_text(data, size));
  variate::fuzz::run_loader([&] { check_table(variate::data::read_csv_table(path)); });
  return 0;
}
