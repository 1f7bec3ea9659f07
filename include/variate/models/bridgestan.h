/* BridgeStan's C interface (version 2.x), as a variate model plugin exports it: a program written
 * for BridgeStan (its Python, Julia, R and Rust clients, nutpie, Pigeons) can dlopen a plugin built
 * by `variate build` and call these functions on a variate model. The semantics follow BridgeStan's
 * documentation (https://roualdes.github.io/bridgestan); variate's choices where it leaves room:
 *
 *  - data: NULL or "" for none, a path ending in ".json", or the JSON text itself (CmdStan's format).
 *  - parameters: the model's latent sites in program order; "transformed parameters" are its
 *    Deterministic sites; a variate model has no generated quantities, so include_gq adds nothing
 *    and rng may be NULL. Names and values are in Stan's order (column-major, "beta.2.1").
 *  - propto: variate's densities keep their normalizing constants. With propto = true the result is
 *    still the log density up to a constant, which is all propto promises.
 *  - Every function may be called from many threads at once on one model.
 *  - On failure a function returns -1 (or NULL) and, when error_msg is not NULL, sets *error_msg to
 *    a message to be released with bs_free_error_msg.
 */
#ifndef VARIATE_MODELS_BRIDGESTAN_H
#define VARIATE_MODELS_BRIDGESTAN_H

#ifdef __cplusplus
#include <cstddef>
struct bs_model;
struct bs_rng;
extern "C" {
#else
#include <stdbool.h>
#include <stddef.h>
typedef struct bs_model bs_model;
typedef struct bs_rng bs_rng;
#endif

typedef void (*STREAM_CALLBACK)(const char* data, size_t size);

/* Exported from the plugin even when it is compiled with hidden visibility. */
#define VARIATE_BS_PUBLIC __attribute__((visibility("default")))

VARIATE_BS_PUBLIC extern const int bs_major_version;
VARIATE_BS_PUBLIC extern const int bs_minor_version;
VARIATE_BS_PUBLIC extern const int bs_patch_version;

VARIATE_BS_PUBLIC bs_model* bs_model_construct(const char* data, unsigned int seed, char** error_msg);
VARIATE_BS_PUBLIC void bs_model_destruct(bs_model* m);
VARIATE_BS_PUBLIC void bs_free_error_msg(char* error_msg);
VARIATE_BS_PUBLIC const char* bs_name(const bs_model* m);
VARIATE_BS_PUBLIC const char* bs_model_info(const bs_model* m);
VARIATE_BS_PUBLIC const char* bs_param_names(const bs_model* m, bool include_tp, bool include_gq);
VARIATE_BS_PUBLIC const char* bs_param_unc_names(const bs_model* m);
VARIATE_BS_PUBLIC int bs_param_num(const bs_model* m, bool include_tp, bool include_gq);
VARIATE_BS_PUBLIC int bs_param_unc_num(const bs_model* m);
VARIATE_BS_PUBLIC int bs_param_constrain(const bs_model* m, bool include_tp, bool include_gq, const double* theta_unc,
                                         double* theta, bs_rng* rng, char** error_msg);
VARIATE_BS_PUBLIC int bs_param_unconstrain(const bs_model* m, const double* theta, double* theta_unc, char** error_msg);
VARIATE_BS_PUBLIC int bs_param_unconstrain_json(const bs_model* m, const char* json, double* theta_unc,
                                                char** error_msg);
VARIATE_BS_PUBLIC int bs_log_density(const bs_model* m, bool propto, bool jacobian, const double* theta_unc, double* lp,
                                     char** error_msg);
VARIATE_BS_PUBLIC int bs_log_density_gradient(const bs_model* m, bool propto, bool jacobian, const double* theta_unc,
                                              double* val, double* grad, char** error_msg);
VARIATE_BS_PUBLIC int bs_log_density_hessian(const bs_model* m, bool propto, bool jacobian, const double* theta_unc,
                                             double* val, double* grad, double* hessian, char** error_msg);
VARIATE_BS_PUBLIC int bs_log_density_hessian_vector_product(const bs_model* m, bool propto, bool jacobian,
                                                            const double* theta_unc, const double* vector, double* val,
                                                            double* hvp, char** error_msg);
VARIATE_BS_PUBLIC bs_rng* bs_rng_construct(unsigned int seed, char** error_msg);
VARIATE_BS_PUBLIC void bs_rng_destruct(bs_rng* rng);
VARIATE_BS_PUBLIC int bs_set_print_callback(STREAM_CALLBACK callback, char** error_msg);

#ifdef __cplusplus
}
#endif
#endif
