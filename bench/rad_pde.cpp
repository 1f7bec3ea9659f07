// Randomized autodiff on the paper's reaction-diffusion control problem (Oktay et al., "Randomized
// Automatic Differentiation", ICLR 2021, section 6.3; autodiff/pde_ops.hpp): the 7 coefficients of
// the source C(x, t; theta) fitted by Adam (lr 0.01) with the exact gradient and with RAD keeping
// 10%, 1% and 0.1% of each of the solve's states. Writes the loss curves and a summary with each
// run's measured tape bytes, time per gradient and final loss against exact, and plots the curves.
//
// Usage: rad_pde [--out DIR] [--steps N] [--time-steps N] [--keeps F,F,...] [--mode with|without]
//                [--print-every N]
// Defaults: rad_pde_out, 800 Adam steps, 40960 time steps of dt = 1/4096 (t in [0, 10]), sampling
// with replacement, keep fractions 1,0.1,0.01,0.001 (the ratios to exact need 1 among them),
// progress every 50 steps.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "line_plot.hpp"
#include "variate/autodiff/ops.hpp"
#include "variate/autodiff/pde_ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape_bytes.hpp"
#include "variate/nn/nn.hpp"
#include "variate/random/samplers.hpp"

using namespace variate;

namespace {

struct Options {
  std::string out = "rad_pde_out";
  std::int64_t steps = 800, time_steps = 40960, print_every = 50;
  std::vector<double> keeps = {1.0, 0.1, 0.01, 0.001};
  autodiff::RadMode mode = autodiff::RadMode::with_replacement;
};

std::vector<double> parse_list(const std::string& list) {
  std::vector<double> out;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    out.push_back(std::stod(list.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("rad_pde: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--out") {
      o.out = value();
    } else if (a == "--steps") {
      o.steps = std::stoll(value());
    } else if (a == "--time-steps") {
      o.time_steps = std::stoll(value());
    } else if (a == "--keeps") {
      o.keeps = parse_list(value());
    } else if (a == "--print-every") {
      o.print_every = std::stoll(value());
    } else if (a == "--mode") {
      const std::string m = value();
      if (m != "with" && m != "without") throw std::runtime_error("rad_pde: --mode must be with or without, got " + m);
      o.mode = m == "with" ? autodiff::RadMode::with_replacement : autodiff::RadMode::without_replacement;
    } else {
      throw std::runtime_error("rad_pde: unknown option " + a);
    }
  }
  return o;
}

// theta as a module, so that nn::Adam updates it.
struct SourceCoefficients : nn::Module {
  Tensor theta;
  void visit_parameters(const nn::ParameterVisitor& visit) override { visit("theta", theta); }
  std::string describe() const override { return "SourceCoefficients(7)"; }
};

// th0 = 4.932 (about 2 pi^2 D, which balances the decay of the initial mode), the others
// U(-0.1, 0.1) from a fixed key, the same for every run.
Tensor initial_theta() {
  std::vector<double> theta = random::uniform(random::Key(3), Shape{7}).to_vector<double>();
  for (double& t : theta) t = 0.2 * t - 0.1;
  theta[0] = 4.932;
  return Tensor::from(theta);
}

struct Summary {
  std::size_t tape_bytes = 0;
  double seconds_per_gradient = 0, final_loss = 0;
};

Summary train(double keep, const Options& o, const ReactionDiffusionProblem& problem, std::ofstream& curves) {
  SourceCoefficients source;
  source.theta = initial_theta();
  nn::Parameters params(source);
  nn::Adam adam(params, 0.01);
  std::vector<Tensor> grads(1);
  Summary s;
  double seconds = 0;
  for (std::int64_t step = 0; step < o.steps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    Tensor loss;
    {
      const autodiff::RadScope rad(
          {.keep_fraction = keep, .mode = o.mode, .key = random::fold_in(random::Key(4), std::uint64_t(step)).words});
      loss = nn::value_and_grad(
          params, [&] { return reaction_diffusion_loss(source.theta, problem); }, grads);
    }
    adam.step(grads);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    s.tape_bytes = std::max(s.tape_bytes, autodiff::last_sweep_saved_bytes());
    curves << keep << ',' << step << ',' << loss.item() << std::endl;
    if (step % o.print_every == 0)
      std::printf("keep %-6g step %5lld  loss %.6e  (%.3f s per gradient)\n", keep, static_cast<long long>(step),
                  loss.item(), seconds / double(step + 1));
    std::fflush(stdout);
  }
  s.final_loss = reaction_diffusion_loss(source.theta, problem).item();
  curves << keep << ',' << o.steps << ',' << s.final_loss << std::endl;
  s.seconds_per_gradient = seconds / double(o.steps);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const ReactionDiffusionProblem problem{.grid = 33, .diffusion = 0.25, .dt = 1.0 / 4096.0, .steps = o.time_steps};
  std::filesystem::create_directories(o.out);
  std::ofstream curves(std::filesystem::path(o.out) / "curves.csv");
  curves << "keep,step,loss\n";
  std::ofstream summary(std::filesystem::path(o.out) / "summary.csv");
  summary << "keep,kept_per_state,tape_bytes,tape_vs_exact,seconds_per_gradient,final_loss,final_loss_vs_exact\n";
  Summary exact;
  for (const double keep : o.keeps) {
    const Summary s = train(keep, o, problem, curves);
    if (keep == 1.0) exact = s;
    // Ratios to exact are left empty (nan) when exact did not run first.
    const bool have_exact = exact.tape_bytes > 0;
    const double tape_ratio = have_exact ? double(s.tape_bytes) / double(exact.tape_bytes) : std::nan("");
    const double loss_ratio = have_exact ? s.final_loss / exact.final_loss : std::nan("");
    summary << keep << ',' << autodiff::rad_kept(keep, (problem.grid - 2) * (problem.grid - 2)) << ',' << s.tape_bytes
            << ',' << tape_ratio << ',' << s.seconds_per_gradient << ',' << s.final_loss << ',' << loss_ratio
            << std::endl;
    std::printf("keep %-6g tape %zu bytes (%.4f of exact), %.3f s per gradient, final loss %.6e (%.5f of exact)\n",
                keep, s.tape_bytes, tape_ratio, s.seconds_per_gradient, s.final_loss, loss_ratio);
  }
  curves.close();
  bench::plot_csv(std::filesystem::path(o.out) / "curves.csv", std::filesystem::path(o.out) / "loss.svg",
                  {.group = "keep", .x = "step", .y = "loss", .title = "Reaction-diffusion control", .log_y = true});
  std::printf("curves, summary and plot written to %s\n", o.out.c_str());
  return 0;
}
