#pragma once
// BridgeStan's C interface for variate models (models/bridgestan.h has the functions and what
// they do for a variate model). A plugin built by `variate build` exports the C functions through
// VARIATE_MODEL; each forwards to the function of the same name here, which the library holds.
#include "variate/models/bridgestan.h"
#include "variate/models/model.hpp"

namespace variate::models::bridgestan {

/// The BridgeStan release whose interface this is (its clients compare it with their own).
inline constexpr int kMajorVersion = 2, kMinorVersion = 7, kPatchVersion = 0;

bs_model* model_construct(const PluginEntry& entry, const char* data, unsigned int seed, char** error_msg);
void model_destruct(bs_model* m);
void free_error_msg(char* error_msg);
const char* name(const bs_model* m);
const char* model_info(const bs_model* m);
const char* param_names(const bs_model* m, bool include_tp, bool include_gq);
const char* param_unc_names(const bs_model* m);
int param_num(const bs_model* m, bool include_tp, bool include_gq);
int param_unc_num(const bs_model* m);
int param_constrain(const bs_model* m, bool include_tp, bool include_gq, const double* theta_unc, double* theta,
                    bs_rng* rng, char** error_msg);
int param_unconstrain(const bs_model* m, const double* theta, double* theta_unc, char** error_msg);
int param_unconstrain_json(const bs_model* m, const char* json, double* theta_unc, char** error_msg);
int log_density(const bs_model* m, bool propto, bool jacobian, const double* theta_unc, double* lp, char** error_msg);
int log_density_gradient(const bs_model* m, bool propto, bool jacobian, const double* theta_unc, double* val,
                         double* grad, char** error_msg);
int log_density_hessian(const bs_model* m, bool propto, bool jacobian, const double* theta_unc, double* val,
                        double* grad, double* hessian, char** error_msg);
int log_density_hessian_vector_product(const bs_model* m, bool propto, bool jacobian, const double* theta_unc,
                                       const double* vector, double* val, double* hvp, char** error_msg);
bs_rng* rng_construct(unsigned int seed, char** error_msg);
void rng_destruct(bs_rng* rng);
int set_print_callback(STREAM_CALLBACK callback, char** error_msg);

}  // namespace variate::models::bridgestan

// The C functions of models/bridgestan.h (declared there with default visibility), defined in a
// plugin (VARIATE_MODEL expands this): so the plugin itself exports them, as a BridgeStan model
// library does. `entry` names the plugin's
// function returning its PluginEntry.
// clang-format off
#define VARIATE_BRIDGESTAN_EXPORTS(entry)                                                                              \
  extern "C" {                                                                                                         \
  const int bs_major_version = variate::models::bridgestan::kMajorVersion;      \
  const int bs_minor_version = variate::models::bridgestan::kMinorVersion;      \
  const int bs_patch_version = variate::models::bridgestan::kPatchVersion;      \
  bs_model* bs_model_construct(const char* data, unsigned int seed,             \
                                                                      char** error_msg) {                              \
    return variate::models::bridgestan::model_construct(*entry(), data, seed, error_msg);                              \
  }                                                                                                                    \
  void bs_model_destruct(bs_model* m) {                                         \
    variate::models::bridgestan::model_destruct(m);                                                                    \
  }                                                                                                                    \
  void bs_free_error_msg(char* error_msg) {                                     \
    variate::models::bridgestan::free_error_msg(error_msg);                                                            \
  }                                                                                                                    \
  const char* bs_name(const bs_model* m) {                                      \
    return variate::models::bridgestan::name(m);                                                                       \
  }                                                                                                                    \
  const char* bs_model_info(const bs_model* m) {                                \
    return variate::models::bridgestan::model_info(m);                                                                 \
  }                                                                                                                    \
  const char* bs_param_names(const bs_model* m, bool tp, bool gq) {             \
    return variate::models::bridgestan::param_names(m, tp, gq);                                                        \
  }                                                                                                                    \
  const char* bs_param_unc_names(const bs_model* m) {                           \
    return variate::models::bridgestan::param_unc_names(m);                                                            \
  }                                                                                                                    \
  int bs_param_num(const bs_model* m, bool tp, bool gq) {                       \
    return variate::models::bridgestan::param_num(m, tp, gq);                                                         \
  }                                                                                                                    \
  int bs_param_unc_num(const bs_model* m) {                                     \
    return variate::models::bridgestan::param_unc_num(m);                                                              \
  }                                                                                                                    \
  int bs_param_constrain(const bs_model* m, bool tp, bool gq, const double* u,  \
                                                                double* theta, bs_rng* rng, char** error_msg) {        \
    return variate::models::bridgestan::param_constrain(m, tp, gq, u, theta, rng, error_msg);                          \
  }                                                                                                                    \
  int bs_param_unconstrain(const bs_model* m, const double* theta, double* u,   \
                                                                  char** error_msg) {                                  \
    return variate::models::bridgestan::param_unconstrain(m, theta, u, error_msg);                                     \
  }                                                                                                                    \
  int bs_param_unconstrain_json(const bs_model* m, const char* json, double* u, \
                                                                       char** error_msg) {                             \
    return variate::models::bridgestan::param_unconstrain_json(m, json, u, error_msg);                                 \
  }                                                                                                                    \
  int bs_log_density(const bs_model* m, bool propto, bool jacobian,             \
                                                            const double* u, double* lp, char** error_msg) {           \
    return variate::models::bridgestan::log_density(m, propto, jacobian, u, lp, error_msg);                            \
  }                                                                                                                    \
  int bs_log_density_gradient(const bs_model* m, bool propto, bool jacobian,    \
                                                                     const double* u, double* val, double* grad,       \
                                                                     char** error_msg) {                               \
    return variate::models::bridgestan::log_density_gradient(m, propto, jacobian, u, val, grad, error_msg);            \
  }                                                                                                                    \
  int bs_log_density_hessian(const bs_model* m, bool propto, bool jacobian,     \
                                                                    const double* u, double* val, double* grad,        \
                                                                    double* hessian, char** error_msg) {               \
    return variate::models::bridgestan::log_density_hessian(m, propto, jacobian, u, val, grad, hessian, error_msg);    \
  }                                                                                                                    \
  int bs_log_density_hessian_vector_product(                                    \
      const bs_model* m, bool propto, bool jacobian, const double* u, const double* v, double* val, double* hvp,       \
      char** error_msg) {                                                                                              \
    return variate::models::bridgestan::log_density_hessian_vector_product(m, propto, jacobian, u, v, val, hvp,        \
                                                                           error_msg);                                 \
  }                                                                                                                    \
  bs_rng* bs_rng_construct(unsigned int seed, char** error_msg) {               \
    return variate::models::bridgestan::rng_construct(seed, error_msg);                                                \
  }                                                                                                                    \
  void bs_rng_destruct(bs_rng* rng) {                                           \
    variate::models::bridgestan::rng_destruct(rng);                                                                    \
  }                                                                                                                    \
  int bs_set_print_callback(STREAM_CALLBACK callback, char** error_msg) {       \
    return variate::models::bridgestan::set_print_callback(callback, error_msg);                                       \
  }                                                                                                                    \
  }
// clang-format on
