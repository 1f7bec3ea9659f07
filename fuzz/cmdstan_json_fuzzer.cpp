// Fuzzes read_cmdstan_json, the reader of CmdStan's JSON data files (seeds: corpus/cmdstan_json).
#include "data_file_checks.hpp"
#include "fuzz_support.hpp"
#include "variate/data/data_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const variate::fuzz::InputFolder folder;
  const std::string path = folder.write("data.json", variate::fuzz::as_text(data, size));
  variate::fuzz::run_loader([&] { variate::fuzz::check_data_file(variate::data::read_cmdstan_json(path)); });
  return 0;
}
