#include "networks.hpp"

#include "variate/core/error.hpp"
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

}  // namespace

Decoder::Decoder(const Architecture& a, random::Key key) : net_(tanh_trunk(a.latent, a, key)), latent_(a.latent) {
  net_.push(nn::Linear(a.hidden, a.pixels, random::split_at(key, 2), a.dtype));
}

GaussianPosterior::GaussianPosterior(const Architecture& a, random::Key key)
    : trunk_(tanh_trunk(a.pixels, a, key)),
      loc_(a.hidden, a.latent, random::fold_in(key, "loc"), a.dtype),
      log_scale_(a.hidden, a.latent, random::fold_in(key, "log_scale"), a.dtype) {}

tracing::Program GaussianPosterior::guide(const Tensor& x) const {
  const Tensor h = trunk_(x);
  return [loc = loc_(h), scale = exp(log_scale_(h))] { Normal(loc, scale, "z"); };
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

PosteriorKind posterior_kind(const std::string& name) {
  VARIATE_CHECK(name == "gaussian", "variate train", "unknown --posterior '", name, "'; expected: gaussian");
  return PosteriorKind::gaussian;
}

Vae::Vae(const Architecture& a, PosteriorKind posterior, random::Key key)
    : architecture(a), decoder(a, random::fold_in(key, "decoder")) {
  switch (posterior) {
    case PosteriorKind::gaussian: encoder = std::make_unique<GaussianPosterior>(a, random::fold_in(key, "encoder"));
  }
}

void Vae::visit_parameters(const nn::ParameterVisitor& visit) {
  nn::visit_child("encoder", *encoder, visit);
  nn::visit_child("decoder", decoder, visit);
}

std::string Vae::describe() const { return "Vae(" + encoder->describe() + ", " + decoder.describe() + ")"; }

}  // namespace variate::cli::vae
