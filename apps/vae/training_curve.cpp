#include "training_curve.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include "../write_file.hpp"

namespace variate::cli::vae {

namespace {
constexpr const char* kJob = "variate train";
constexpr const char* kHeader = "epoch,train_bound,test_bound,seconds";
}  // namespace

TrainingCurve::TrainingCurve(std::filesystem::path path, std::int64_t kept_epochs) : path_(std::move(path)) {
  std::vector<std::string> kept;
  std::ifstream in(path_);
  std::string line;
  while (kept_epochs > 0 && std::getline(in, line)) {
    std::istringstream fields(line);
    std::int64_t epoch = 0;
    char comma = 0;
    double train = 0, test = 0, seconds = 0;
    if (!(fields >> epoch >> comma >> train >> comma >> test >> comma >> seconds) || epoch > kept_epochs) continue;
    kept.push_back(line);
    seconds_ = seconds;
  }
  write_file(kJob, path_.string(), [&](std::ostream& out) {
    out << kHeader << '\n';
    for (const std::string& row : kept) out << row << '\n';
  });
}

void TrainingCurve::append(const CurveRow& row) {
  std::ofstream out(path_, std::ios::app);
  out.precision(10);
  out << row.epoch << ',' << row.train_bound << ',' << row.test_bound << ',' << row.seconds << '\n';
  out.flush();
  VARIATE_CHECK(out.good(), kJob, "cannot write the file '", path_.string(), "'");
  seconds_ = row.seconds;
}

}  // namespace variate::cli::vae
