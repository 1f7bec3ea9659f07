/* A BridgeStan client in C, as BridgeStan's own clients use a model library: dlopen the plugin, look
 * the functions up by name, call them. Checks eight schools (non-centered) through the whole
 * interface: names and sizes, constraining transforms, the Jacobian term, gradients and Hessians
 * against finite differences, calls from several threads on one model, and the error messages.
 *   bridgestan_client PLUGIN.so        exits 0 when every check passes, else prints what failed */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variate/models/bridgestan.h"

#define D 10 /* mu, tau, theta_tilde[8] */

static const char* kData =
    "{\"J\": 8, \"y\": [28, 8, -3, 7, -1, 1, 18, 12], \"sigma\": [15, 10, 16, 11, 9, 11, 10, 18]}";

static int failures = 0;
#define CHECK(condition, ...)                                       \
  do {                                                              \
    if (!(condition)) {                                             \
      fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                 \
      fprintf(stderr, "\n");                                        \
      ++failures;                                                   \
    }                                                               \
  } while (0)

/* The interface, looked up by name. */
static struct {
  const int* major;
  bs_model* (*construct)(const char*, unsigned int, char**);
  void (*destruct)(bs_model*);
  void (*free_error)(char*);
  const char* (*name)(const bs_model*);
  const char* (*param_names)(const bs_model*, bool, bool);
  const char* (*param_unc_names)(const bs_model*);
  int (*param_num)(const bs_model*, bool, bool);
  int (*param_unc_num)(const bs_model*);
  int (*constrain)(const bs_model*, bool, bool, const double*, double*, bs_rng*, char**);
  int (*unconstrain)(const bs_model*, const double*, double*, char**);
  int (*unconstrain_json)(const bs_model*, const char*, double*, char**);
  int (*log_density)(const bs_model*, bool, bool, const double*, double*, char**);
  int (*gradient)(const bs_model*, bool, bool, const double*, double*, double*, char**);
  int (*hessian)(const bs_model*, bool, bool, const double*, double*, double*, double*, char**);
  int (*hvp)(const bs_model*, bool, bool, const double*, const double*, double*, double*, char**);
} bs;

static void* find(void* library, const char* symbol) {
  void* f = dlsym(library, symbol);
  if (f == NULL) {
    fprintf(stderr, "the plugin does not export %s\n", symbol);
    exit(1);
  }
  return f;
}

static void load(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    exit(1);
  }
  bs.major = (const int*)find(library, "bs_major_version");
  *(void**)&bs.construct = find(library, "bs_model_construct");
  *(void**)&bs.destruct = find(library, "bs_model_destruct");
  *(void**)&bs.free_error = find(library, "bs_free_error_msg");
  *(void**)&bs.name = find(library, "bs_name");
  *(void**)&bs.param_names = find(library, "bs_param_names");
  *(void**)&bs.param_unc_names = find(library, "bs_param_unc_names");
  *(void**)&bs.param_num = find(library, "bs_param_num");
  *(void**)&bs.param_unc_num = find(library, "bs_param_unc_num");
  *(void**)&bs.constrain = find(library, "bs_param_constrain");
  *(void**)&bs.unconstrain = find(library, "bs_param_unconstrain");
  *(void**)&bs.unconstrain_json = find(library, "bs_param_unconstrain_json");
  *(void**)&bs.log_density = find(library, "bs_log_density");
  *(void**)&bs.gradient = find(library, "bs_log_density_gradient");
  *(void**)&bs.hessian = find(library, "bs_log_density_hessian");
  *(void**)&bs.hvp = find(library, "bs_log_density_hessian_vector_product");
  const char* others[] = {"bs_minor_version", "bs_patch_version", "bs_model_info",
                          "bs_rng_construct", "bs_rng_destruct",  "bs_set_print_callback"};
  for (size_t k = 0; k < sizeof others / sizeof *others; ++k) find(library, others[k]);
}

static double lp_at(const bs_model* m, int jacobian, const double* u) {
  double lp = NAN;
  char* error = NULL;
  if (bs.log_density(m, true, jacobian, u, &lp, &error) != 0) {
    fprintf(stderr, "bs_log_density failed: %s\n", error);
    exit(1);
  }
  return lp;
}

static void check_names_and_transforms(const bs_model* m) {
  CHECK(*bs.major == 2, "bs_major_version is %d, expected 2", *bs.major);
  CHECK(strcmp(bs.name(m), "eight_schools") == 0, "bs_name is '%s'", bs.name(m));
  CHECK(bs.param_unc_num(m) == D, "%d unconstrained parameters, expected %d", bs.param_unc_num(m), D);
  CHECK(bs.param_num(m, false, false) == D, "%d parameters", bs.param_num(m, false, false));
  CHECK(bs.param_num(m, true, true) == D + 8, "%d parameters with theta", bs.param_num(m, true, true));
  CHECK(strncmp(bs.param_names(m, false, false), "mu,tau,theta_tilde.1,", 21) == 0, "names '%s'",
        bs.param_names(m, false, false));
  CHECK(strstr(bs.param_names(m, true, false), ",theta.8") != NULL, "names with tp '%s'",
        bs.param_names(m, true, false));
  CHECK(strncmp(bs.param_unc_names(m), "mu,tau,theta_tilde.1,", 21) == 0, "unc names '%s'", bs.param_unc_names(m));

  const double u[D] = {1.5, -0.3, 0.2, -1.1, 0.7, 0.05, -0.4, 1.2, -0.9, 0.3};
  double theta[D + 8], back[D];
  char* error = NULL;
  CHECK(bs.constrain(m, true, true, u, theta, NULL, &error) == 0, "constrain: %s", error);
  CHECK(fabs(theta[1] - exp(u[1])) < 1e-12, "tau = %g, expected exp(%g)", theta[1], u[1]);
  CHECK(fabs(theta[D] - (u[0] + exp(u[1]) * u[2])) < 1e-12, "theta.1 = %g", theta[D]);
  CHECK(bs.unconstrain(m, theta, back, &error) == 0, "unconstrain: %s", error);
  for (int k = 0; k < D; ++k) CHECK(fabs(back[k] - u[k]) < 1e-12, "unconstrain(constrain(u))[%d] = %g", k, back[k]);
  /* tau's transform is exp: the Jacobian term of the unconstrained density is u_tau. */
  CHECK(fabs(lp_at(m, true, u) - lp_at(m, false, u) - u[1]) < 1e-10, "the Jacobian term is not log tau");

  const char* json = "{\"mu\": 1.5, \"tau\": 2.0, \"theta_tilde\": [0.2, -1.1, 0.7, 0.05, -0.4, 1.2, -0.9, 0.3]}";
  CHECK(bs.unconstrain_json(m, json, back, &error) == 0, "unconstrain_json: %s", error);
  CHECK(fabs(back[1] - log(2.0)) < 1e-12 && back[0] == 1.5, "unconstrain_json gave %g, %g", back[0], back[1]);
}

/* Central differences of f along each coordinate; the error is O(h^2) times the third derivative. */
static void check_derivatives(const bs_model* m, int jacobian) {
  const double u[D] = {0.5, 0.8, -0.2, 0.4, 1.0, -0.6, 0.1, 0.3, -1.2, 0.9};
  const double h = 1e-5;
  double val = NAN, grad[D], grad2[D], hessian[D * D], hvp[D], v[D];
  char* error = NULL;
  CHECK(bs.hessian(m, true, jacobian, u, &val, grad, hessian, &error) == 0, "hessian: %s", error);
  CHECK(fabs(val - lp_at(m, jacobian, u)) < 1e-12, "the Hessian's value differs from the log density");
  for (int i = 0; i < D; ++i) {
    double up[D], down[D];
    memcpy(up, u, sizeof up);
    memcpy(down, u, sizeof down);
    up[i] += h;
    down[i] -= h;
    const double fd = (lp_at(m, jacobian, up) - lp_at(m, jacobian, down)) / (2 * h);
    CHECK(fabs(grad[i] - fd) < 1e-6 * (1 + fabs(fd)), "jacobian %d: gradient[%d] = %.10g, differences %.10g", jacobian,
          i, grad[i], fd);
    double g_up[D], g_down[D], unused;
    bs.gradient(m, true, jacobian, up, &unused, g_up, &error);
    bs.gradient(m, true, jacobian, down, &unused, g_down, &error);
    for (int j = 0; j < D; ++j) {
      const double fd2 = (g_up[j] - g_down[j]) / (2 * h);
      CHECK(fabs(hessian[i * D + j] - fd2) < 1e-5 * (1 + fabs(fd2)),
            "jacobian %d: hessian[%d][%d] = %.10g, differences %.10g", jacobian, i, j, hessian[i * D + j], fd2);
    }
    v[i] = 0.1 * (i + 1);
  }
  CHECK(bs.gradient(m, true, jacobian, u, &val, grad2, &error) == 0, "gradient: %s", error);
  for (int i = 0; i < D; ++i) CHECK(grad2[i] == grad[i], "gradient and the Hessian's gradient differ at %d", i);
  CHECK(bs.hvp(m, true, jacobian, u, v, &val, hvp, &error) == 0, "hvp: %s", error);
  for (int i = 0; i < D; ++i) {
    double expected = 0;
    for (int j = 0; j < D; ++j) expected += hessian[i * D + j] * v[j];
    CHECK(fabs(hvp[i] - expected) < 1e-6 * (1 + fabs(expected)), "hvp[%d] = %g, H v = %g", i, hvp[i], expected);
  }
}

/* Many threads on one model: each computes gradients at its own points, which must equal the same
 * points' gradients computed on one thread. */
enum { kThreads = 4, kCalls = 200 };
struct ThreadWork {
  const bs_model* m;
  int thread;
  double lp[kCalls];
  double grad[kCalls][D];
  int failed;
};

static void point(int thread, int call, double* u) {
  for (int k = 0; k < D; ++k) u[k] = sin(0.37 * (thread * kCalls + call) + 1.3 * k);
}

static void* gradients(void* arg) {
  struct ThreadWork* w = arg;
  for (int c = 0; c < kCalls; ++c) {
    double u[D];
    point(w->thread, c, u);
    char* error = NULL;
    if (bs.gradient(w->m, true, true, u, &w->lp[c], w->grad[c], &error) != 0) w->failed = 1;
  }
  return NULL;
}

static void check_threads(const bs_model* m) {
  static struct ThreadWork work[kThreads];
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    work[t].m = m;
    work[t].thread = t;
    work[t].failed = 0;
    pthread_create(&threads[t], NULL, gradients, &work[t]);
  }
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < kThreads; ++t) {
    CHECK(!work[t].failed, "a gradient failed on thread %d", t);
    for (int c = 0; c < kCalls; c += 17) {
      double u[D], lp, grad[D];
      point(t, c, u);
      char* error = NULL;
      bs.gradient(m, true, true, u, &lp, grad, &error);
      CHECK(lp == work[t].lp[c], "thread %d call %d: log density %.17g, alone %.17g", t, c, work[t].lp[c], lp);
      for (int k = 0; k < D; ++k) CHECK(grad[k] == work[t].grad[c][k], "thread %d call %d: gradient differs", t, c);
    }
  }
}

static void expect_error(const char* what, char* error, const char* fragment) {
  CHECK(error != NULL && strstr(error, fragment) != NULL, "%s: error '%s', expected it to mention '%s'", what,
        error ? error : "(none)", fragment);
  if (error != NULL) bs.free_error(error);
}

static void check_errors(const bs_model* m) {
  char* error = NULL;
  CHECK(bs.construct("{\"y\": [1, 2]}", 1, &error) == NULL, "data without sigma was accepted");
  expect_error("missing sigma", error, "sigma");
  error = NULL;
  CHECK(bs.construct("{\"y\": [1, 2], ", 1, &error) == NULL, "malformed JSON was accepted");
  expect_error("malformed JSON", error, "invalid JSON");
  error = NULL;
  CHECK(bs.construct("/nonexistent/data.json", 1, &error) == NULL, "a missing data file was accepted");
  expect_error("missing file", error, "/nonexistent/data.json");
  double u[D];
  error = NULL;
  CHECK(bs.unconstrain_json(m, "{\"mu\": 1, \"tau\": 1, \"theta_tilde\": [1, 2]}", u, &error) == -1,
        "a misshapen theta_tilde was accepted");
  expect_error("misshapen theta_tilde", error, "theta_tilde");
  error = NULL;
  CHECK(bs.unconstrain_json(m, "{\"mu\": 1, \"tua\": 1, \"theta_tilde\": [1, 2, 3, 4, 5, 6, 7, 8]}", u, &error) == -1,
        "a misspelt name was accepted");
  expect_error("misspelt tau", error, "tua");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
    return 2;
  }
  load(argv[1]);
  char* error = NULL;
  bs_model* m = bs.construct(kData, 1, &error);
  if (m == NULL) {
    fprintf(stderr, "bs_model_construct failed: %s\n", error);
    return 1;
  }
  check_names_and_transforms(m);
  check_derivatives(m, true);
  check_derivatives(m, false);
  check_threads(m);
  check_errors(m);
  bs.destruct(m);
  if (failures == 0) printf("bridgestan_client: every check passed\n");
  return failures == 0 ? 0 : 1;
}
