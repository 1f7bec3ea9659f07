#include "networks.hpp"

#include "variate/core/error.hpp"
#include "variate/distributions/chain.hpp"
#include "variate/distributions/draw_caching_transformed_distribution.hpp"
#include "variate/distributions/independent.hpp"
#include "variate/distributions/normal.hpp"
#include "variate/tracing/random_variables.hpp"

namespace variate::cli::vae {

namespace {

// in -> hidden -> hidden, tanh after each.
nn::Sequential tanh_trunk(std::int64_t in, const Architecture& a, random::Key key) {
  nn::Sequential net;
  net.push(nn::Linear(in, a.hidden, random::split_at(key, 0), a.dtype));
  net.push(nn::Activation(nn::ActivationKind::tanh));
  net.push(nn::Linear(a.hidden, a.hidden, random::split_at(key, 1), a.dtype));
  net.push(nn::Activation(nn::ActivationKind::tanh));
  return net;
}

dist::ConditionalIafOptions iaf_options(const Architecture& a, nn::Degrees order) {
  return {.hidden = {2 * a.latent, 2 * a.latent},
          .order = std::move(order),
          .activation = nn::ActivationKind::tanh,
          .dtype = a.dtype};
}

}  // namespace

Decoder::Decoder(const Architecture& a, random::Key key) : net_(tanh_trunk(a.latent, a, key)), latent_(a.latent) {
  net_.push(nn::Linear(a.hidden, a.pixels, random::split_at(key, 2), a.dtype));
}

GaussianPosterior::GaussianPosterior(const Architecture& a, random::Key key)
    : trunk_(tanh_trunk(a.pixels, a, key)),
      loc_(a.hidden, a.latent, random::fold_in(key, "loc"), a.dtype),
      log_scale_(a.hidden, a.latent, random::fold_in(key, "log_scale"), a.dtype) {}

GaussianPosterior::Encoding GaussianPosterior::encode(const Tensor& x) const {
  const Tensor h = trunk_(x);
  return {loc_(h), exp(log_scale_(h)), h};
}

tracing::Program GaussianPosterior::guide(const Tensor& x) const {
  const Encoding q = encode(x);
  return [loc = q.loc, scale = q.scale] { Normal(loc, scale, "z"); };
}

void GaussianPosterior::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("trunk", trunk_, visit);
  nn::visit_child("loc", loc_, visit);
  nn::visit_child("log_scale", log_scale_, visit);
}

std::string GaussianPosterior::describe() const {
  return "GaussianPosterior(" + trunk_.describe() + ", loc " + loc_.describe() + ", log_scale " +
         log_scale_.describe() + ")";
}

IafPosterior::IafPosterior(const Architecture& a, random::Key key, const FlowLayout& layout) : gaussian_(a, key) {
  VARIATE_CHECK(layout.layers >= 1, "variate train", "the IAF posterior needs at least 1 flow layer, got ",
                layout.layers);
  for (int k = 0; k < layout.layers; ++k)
    layers_.push_back(std::make_shared<dist::ConditionalInverseAutoregressiveFlow>(
        a.latent, a.hidden, random::fold_in(key, "iaf " + std::to_string(k + 1)),
        iaf_options(a, k % 2 == 0 ? nn::Degrees{} : nn::made_reversed_degrees(a.latent))));
  if (!layout.devices.empty())
    pipelined_ = std::make_shared<distribute::PipelinedFlow>(
        std::vector<ConditionalBijectorPtr>(layers_.begin(), layers_.end()), layout.devices, kModelAxis);
}

BijectorPtr IafPosterior::flows_at(const Tensor& features) const {
  if (pipelined_) return pipelined_->given(features);
  std::vector<BijectorPtr> last_first;
  for (auto it = layers_.rbegin(); it != layers_.rend(); ++it) last_first.push_back((*it)->given(features));
  return std::make_shared<dist::Chain>(std::move(last_first));
}

tracing::Program IafPosterior::guide(const Tensor& x) const {
  const GaussianPosterior::Encoding e = gaussian_.encode(x);
  const auto base = std::make_shared<dist::Independent>(std::make_shared<dist::Normal>(e.loc, e.scale), 1);
  const auto q = std::make_shared<dist::DrawCachingTransformedDistribution>(base, flows_at(e.features));
  return [q] { RandomVariable(q, "z"); };
}

Tensor IafPosterior::typical_latent(const Tensor& x) const {
  const GaussianPosterior::Encoding e = gaussian_.encode(x);
  return flows_at(e.features)->forward(e.loc);
}

void IafPosterior::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("gaussian", gaussian_, visit);
  for (std::size_t k = 0; k < layers_.size(); ++k) nn::visit_child("iaf" + std::to_string(k + 1), *layers_[k], visit);
}

std::string IafPosterior::describe() const {
  std::string s = "IafPosterior(" + gaussian_.describe();
  for (const auto& layer : layers_) s += ", " + layer->describe();
  return s + ")";
}

PosteriorKind posterior_kind(const std::string& name) {
  if (name == "iaf") return PosteriorKind::iaf;
  VARIATE_CHECK(name == "gaussian", "variate train", "unknown --posterior '", name, "'; expected: gaussian or iaf");
  return PosteriorKind::gaussian;
}

Vae::Vae(const Architecture& a, PosteriorKind posterior, random::Key key, const FlowLayout& layout)
    : architecture(a), decoder(a, random::fold_in(key, "decoder")) {
  switch (posterior) {
    case PosteriorKind::gaussian:
      encoder = std::make_unique<GaussianPosterior>(a, random::fold_in(key, "encoder"));
      break;
    case PosteriorKind::iaf: encoder = std::make_unique<IafPosterior>(a, random::fold_in(key, "encoder"), layout);
  }
}

void Vae::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("encoder", *encoder, visit);
  nn::visit_child("decoder", decoder, visit);
}

std::string Vae::describe() const { return "Vae(" + encoder->describe() + ", " + decoder.describe() + ")"; }

}  // namespace variate::cli::vae
