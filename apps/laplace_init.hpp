#pragma once
// `variate sample --init laplace`: L-BFGS to the mode of the unconstrained density, the Laplace
// approximation there (inference::LaplaceApproximation), and the chains run on the coordinates it
// whitens, each starting at its own draw from the approximation. Warm-up then adapts the step size
// and a metric on those coordinates, which the approximation has already made close to the unit
// one; every draw is mapped back before it is written.
#include <ostream>

#include "models.hpp"
#include "sample_job.hpp"
#include "variate/inference/laplace.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::cli {

/// Finds the mode of `options`' model in f64 (`model` itself when its precision is f64, else the
/// model made again in f64: the differences need it), builds the approximation and sets `sampler`'s
/// initial positions (whitened, drawn from --seed); prints a line for each step with its cost.
/// Throws as inference::optimize and inference::LaplaceApproximation::at do.
inference::LaplaceApproximation init_from_laplace(const SampleJobOptions& options, const Model& model,
                                                  inference::SamplerOptions& sampler, std::ostream& out);

}  // namespace variate::cli
