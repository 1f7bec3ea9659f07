#pragma once
// The VAE's networks, as in Burda, Grosse & Salakhutdinov 2016 ("Importance weighted
// autoencoders", section 5, one stochastic layer): the decoder maps z (batch, latent) through two
// tanh layers to the Bernoulli logits of the pixels; the posterior q(z | x) maps the pixels through
// two tanh layers to a distribution over z. The posterior is a class of its own so that other
// families (an inverse autoregressive flow on top of the Gaussian, Kingma et al. 2016) slot in as
// further PosteriorKinds.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "variate/distribute/pipelined_flow.hpp"
#include "variate/distributions/conditional_inverse_autoregressive_flow.hpp"
#include "variate/nn/nn.hpp"
#include "variate/tracing/program.hpp"

namespace variate::cli::vae {

struct Architecture {
  std::int64_t pixels = 784;
  std::int64_t hidden = 200;
  std::int64_t latent = 50;
  DType dtype = DType::f64;
};

/// p(x | z)'s network: z (batch, latent) -> logits (batch, pixels), latent-hidden-hidden-pixels
/// with tanh between.
class Decoder : public nn::Module {
 public:
  Decoder(const Architecture& architecture, random::Key key);
  Tensor logits(const Tensor& z) const { return net_(z); }
  std::int64_t latent() const { return latent_; }
  void visit_parameters(const nn::ParameterVisitor& visit) override { net_.visit_parameters(visit); }
  std::string describe() const override { return "Decoder(" + net_.describe() + ")"; }

 private:
  nn::Sequential net_;
  std::int64_t latent_;
};

/// q(z | x): an encoder network and the guide program it parameterizes.
class Posterior : public nn::Module {
 public:
  /// The guide for the minibatch x (batch, pixels): a program that draws the site "z" (batch,
  /// latent). The network runs here, once, so that the particles of a bound share its output.
  virtual tracing::Program guide(const Tensor& x) const = 0;
  /// A typical z for each image of x, for reconstructions (the mean of a Gaussian posterior).
  virtual Tensor typical_latent(const Tensor& x) const = 0;
};

/// q(z | x) = N(loc(x), diag(scale(x)^2)): pixels-hidden-hidden tanh, then two linear heads for
/// loc and log scale (scale = exp(log scale), the papers' parameterization).
class GaussianPosterior final : public Posterior {
 public:
  GaussianPosterior(const Architecture& architecture, random::Key key);
  tracing::Program guide(const Tensor& x) const override;
  /// q's base, loc(x) and scale(x), each (batch, latent), and the trunk's output (batch, hidden)
  /// they come from.
  struct Encoding {
    Tensor loc, scale, features;
  };
  Encoding encode(const Tensor& x) const;
  Tensor typical_latent(const Tensor& x) const override { return loc_(trunk_(x)); }
  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;

 private:
  nn::Sequential trunk_;
  nn::Linear loc_, log_scale_;
};

/// The IAF posterior's flow layers and, for a model-parallel run, the device of each.
struct FlowLayout {
  int layers = 2;
  /// Empty: every layer on the calling thread (a Chain). Otherwise one device per layer along the
  /// mesh axis kModelAxis (distribute::PipelinedFlow); the encoder and decoder stay on device 0.
  std::vector<int> devices;
};

/// The mesh axis of a model-parallel VAE.
inline constexpr const char* kModelAxis = "model";

/// Kingma et al. 2016's inverse autoregressive flow posterior (section 4, with a context):
/// z0 ~ N(loc(x), diag(scale(x)^2)) from GaussianPosterior's networks, then z = IAF_L(...IAF_1(z0)),
/// each IAF a dist::ConditionalInverseAutoregressiveFlow at the context h(x), the encoder trunk's
/// output: a MADE (two tanh layers of 2 * latent units) over z whose layers all also see all of
/// h, every other one in the reverse order (two layers by default). log q(z) of the guide's own
/// draw comes from the forward pass (dist::DrawCachingTransformedDistribution), so that the ELBO
/// needs no D-pass inverse.
class IafPosterior final : public Posterior {
 public:
  IafPosterior(const Architecture& architecture, random::Key key, const FlowLayout& layout = {});
  tracing::Program guide(const Tensor& x) const override;
  /// The flows applied to the Gaussian's mean.
  Tensor typical_latent(const Tensor& x) const override;
  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;
  /// The flow split over devices, or null when every layer runs on one.
  const distribute::PipelinedFlow* pipelined_flow() const { return pipelined_.get(); }

 private:
  // The flows at the context of `features` (the encoder trunk's output).
  BijectorPtr flows_at(const Tensor& features) const;

  GaussianPosterior gaussian_;
  std::vector<std::shared_ptr<dist::ConditionalInverseAutoregressiveFlow>> layers_;  // in the order they apply
  std::shared_ptr<distribute::PipelinedFlow> pipelined_;  // null when every layer runs on one device
};

enum class PosteriorKind { gaussian, iaf };

/// The kind named on the command line ("gaussian", "iaf"); an error listing the kinds otherwise.
PosteriorKind posterior_kind(const std::string& name);

/// The whole VAE as one module, parameters "encoder.*" and "decoder.*". It must not move once an
/// nn::Parameters refers to it (hold it by pointer).
class Vae : public nn::Module {
 public:
  /// `layout` shapes the IAF posterior's flow (unused by the Gaussian posterior).
  Vae(const Architecture& architecture, PosteriorKind posterior, random::Key key, const FlowLayout& layout = {});
  Vae(const Vae&) = delete;
  Vae& operator=(const Vae&) = delete;
  void visit_parameters(const nn::ParameterVisitor& visit) override;
  std::string describe() const override;

  const Architecture architecture;
  Decoder decoder;
  std::unique_ptr<Posterior> encoder;
};

}  // namespace variate::cli::vae
