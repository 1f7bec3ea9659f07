// The Beta-Bernoulli program of the Edward2 paper: p ~ Beta(1, 1), x ~ Bernoulli(p) with 50 draws.
// Data are simulated by running the program with p intervened to 0.7; the log joint from
// make_log_joint is compared with its closed form k log p + (n - k) log(1 - p) (Beta(1, 1) has
// density 1), and gradient ascent on logit(p) recovers the posterior mode k / n.
#include <cstdio>

#include "check.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/tracing/program.hpp"
#include "variate/tracing/random_variables.hpp"

using namespace variate;

void beta_bernoulli() {
  auto p = Beta(1.0, 1.0, "p");
  Bernoulli(Probs{p}, "x", {50});
}

int main() {
  Tensor x;
  {
    tracing::Trace trace;
    tracing::Seed seed{random::Key(2018)};
    tracing::Intervene truth({{"p", 0.7}});
    beta_bernoulli();
    x = trace.site("x").value;
  }
  const double n = 50, k = sum(x).item();
  std::printf("Beta-Bernoulli: %g successes in %g draws simulated with p = 0.7\n", k, n);

  auto log_joint = tracing::make_log_joint(beta_bernoulli);
  bool ok = true;
  for (double p : {0.1, 0.5, 0.7, 0.95}) {
    char label[64];
    std::snprintf(label, sizeof label, "log joint at p = %.2f", p);
    ok &= examples::check(label, log_joint({{"p", p}, {"x", x}}).item(), k * std::log(p) + (n - k) * std::log(1 - p));
  }
  // Posterior mode by gradient ascent in logit space: u = logit(p), p = sigmoid(u).
  Tensor u = Tensor::scalar(0.0);
  for (int step = 0; step < 200; ++step) {
    const Tensor g = grad([&](const Tensor& u) { return log_joint({{"p", sigmoid(u)}, {"x", x}}); }, u);
    u = u + 0.05 * g;
  }
  ok &= examples::check("posterior mode of p (gradient ascent)", sigmoid(u).item(), k / n, 1e-6);
  return ok ? 0 : 1;
}
