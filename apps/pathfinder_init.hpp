#pragma once
// `variate sample --init pathfinder`: multi-path Pathfinder (inference::pathfinder) before warm-up,
// so that each chain starts from its own resampled Pathfinder draw, near the typical set. With
// Stan's windowed adaptation the metric starts from the approximation's variances instead of the
// unit metric; Fisher-divergence adaptation starts from the gradient at the chain's start, as
// always. Warm-up still runs (it can be shorter): the step size is searched as usual and the metric
// adapts further.
#include <cstdint>
#include <ostream>

#include "models.hpp"
#include "variate/inference/sampler.hpp"

namespace variate::cli {

/// Runs Pathfinder on `model` from `seed` and sets `sampler`'s initial positions (and, for Stan's
/// windows, its initial metric); prints
/// one line with the gradients it used and its k-hat (and a note when there were fewer distinct
/// draws than chains, so that some chains share a start). Throws as inference::pathfinder does.
void init_from_pathfinder(const Model& model, std::uint64_t seed, inference::SamplerOptions& sampler,
                          std::ostream& out);

}  // namespace variate::cli
