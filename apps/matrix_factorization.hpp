#pragma once
// Bayesian matrix factorization of a watch matrix (the MovieLens case of TFP's distributed
// inference notebook): users, their embeddings and biases sharded over the mesh, movies replicated.
#include "models.hpp"
#include "variate/data/movielens.hpp"

namespace variate::cli {

/// watched[u, m] ~ Bernoulli(logits = U Vᵀ + b_user + b_movie) with U [users x 20], V [movies x 20],
/// b_user, b_movie ~ Normal(0, 1). Its report: for the most and the least active user, how often
/// each unwatched movie was the top pick across the posterior draws.
Model matrix_factorization(const std::string& name, const data::WatchData& watches, DType dtype, std::string source);

}  // namespace variate::cli
