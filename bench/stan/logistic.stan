// bench/nuts_sampling.cpp's logistic regression (bench/models/logistic_glm.cpp), for
// bench/stan/nuts_side_by_side.sh. Data: `build/bench/nuts_sampling --write-data=DIR`.
data {
  int<lower=0> N;
  int<lower=1> D;
  matrix[N, D] X;
  array[N] int<lower=0, upper=1> y;
}
parameters {
  real alpha;
  vector[D] beta;
}
model {
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
  y ~ bernoulli_logit_glm(X, alpha, beta);
}
