"""The `variate` Python module, run by CTest with Debian's python3 (tests/CMakeLists.txt):
PYTHONPATH holds the built module and VARIATE_TEST_PLUGINS the folder of the test plugins."""
import ctypes
import json
import math
import os
import subprocess
import sys
import threading
import unittest

import numpy as np

import variate

PLUGINS = os.environ["VARIATE_TEST_PLUGINS"]
EIGHT_SCHOOLS = {"J": 8, "y": np.array([28, 8, -3, 7, -1, 1, 18, 12]),
                 "sigma": np.array([15.0, 10, 16, 11, 9, 11, 10, 18])}


def plugin(name):
    return os.path.join(PLUGINS, name + ".so")


def finite_difference(f, x, h=1e-6):
    grad = np.empty_like(x)
    for k in range(len(x)):
        step = np.zeros_like(x)
        step[k] = h
        grad[k] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


class LogDensity(unittest.TestCase):
    def test_beta_bernoulli_matches_its_closed_form_with_and_without_the_jacobian(self):
        model = variate.Model("beta-bernoulli")  # embedded: 2 heads in 10 flips, theta ~ Beta(1, 1)
        self.assertEqual(model.dimension, 1)
        for x in (-1.3, 0.0, 0.7):
            theta = 1 / (1 + math.exp(-x))
            density = 2 * math.log(theta) + 8 * math.log(1 - theta)
            self.assertAlmostEqual(model.log_density(np.array([x]), jacobian=False), density, places=12)
            log_jacobian = math.log(theta) + math.log(1 - theta)
            self.assertAlmostEqual(model.log_density(np.array([x])), density + log_jacobian, places=12)

    def test_gradient_matches_finite_differences_and_the_log_density(self):
        model = variate.Model("eight-schools", data=EIGHT_SCHOOLS)
        x = np.linspace(-0.8, 0.9, model.dimension)
        for jacobian in (True, False):
            lp, grad = model.log_density_gradient(x, jacobian=jacobian)
            self.assertEqual(lp, model.log_density(x, jacobian=jacobian))
            expected = finite_difference(lambda y: model.log_density(y, jacobian=jacobian), x)
            np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-7)

    def test_data_given_as_numpy_arrays_equal_the_embedded_data(self):
        given = variate.Model("eight-schools", data=EIGHT_SCHOOLS)
        embedded = variate.Model("eight-schools")
        x = np.full(embedded.dimension, 0.3)
        self.assertEqual(given.log_density(x), embedded.log_density(x))
        self.assertEqual(given.parameters, {"mu": (), "tau": (), "theta_tilde": (8,), "theta": (8,)})

    def test_f32_computes_the_f64_density_to_single_precision(self):
        x = np.linspace(-0.7, 0.6, 10)
        single = variate.Model("eight-schools", precision="f32").log_density_gradient(x)
        double = variate.Model("eight-schools").log_density_gradient(x)
        self.assertNotEqual(single[0], double[0])
        self.assertAlmostEqual(single[0], double[0], delta=1e-5 * abs(double[0]))
        np.testing.assert_allclose(single[1], double[1], rtol=1e-4, atol=1e-5)

    def test_logistic_regression_by_name_and_through_the_c_interface_match_the_closed_form(self):
        # Ten identical rows: whichever eight the fixed split trains on, the likelihood is 8 of one term.
        row = [0.5, -1.0]
        data = {"X": np.tile(row, (10, 1)), "y": np.ones(10, dtype=np.int64)}

        def expected(theta):
            def normal(v, scale):
                return -0.5 * (v / scale) ** 2 - math.log(scale) - 0.5 * math.log(2 * math.pi)
            z = theta[0] + np.dot(theta[1:], row)
            return normal(theta[0], 2.5) + sum(normal(b, 1) for b in theta[1:]) + 8 * (z - math.log1p(math.exp(z)))

        model = variate.Model("logistic", data=data)
        self.assertEqual(model.parameters, {"alpha": (), "beta": (2,)})
        c = ctypes.CDLL(plugin("logistic_regression"))
        c.bs_model_construct.restype = ctypes.c_void_p
        c.bs_model_construct.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p)]
        c.bs_log_density.argtypes = [ctypes.c_void_p, ctypes.c_bool, ctypes.c_bool, ctypes.POINTER(ctypes.c_double),
                                     ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_char_p)]
        c.bs_model_destruct.argtypes = [ctypes.c_void_p]
        text = json.dumps({"X": [row] * 10, "y": [1] * 10}).encode()
        handle = c.bs_model_construct(text, 0, None)
        self.assertTrue(handle)
        try:
            for theta in ([0.3, -0.2, 0.7], [-1.1, 0.4, 0.0]):
                x = np.array(theta)
                self.assertAlmostEqual(model.log_density(x), expected(x), places=10)
                lp = ctypes.c_double()
                self.assertEqual(c.bs_log_density(handle, False, True, (ctypes.c_double * 3)(*theta),
                                                  ctypes.byref(lp), None), 0)
                self.assertAlmostEqual(lp.value, expected(x), places=10)
        finally:
            c.bs_model_destruct(handle)

    def test_a_plugin_computes_what_the_built_in_model_does(self):
        loaded = variate.Model(file=plugin("eight_schools"), data=EIGHT_SCHOOLS)
        builtin = variate.Model("eight-schools")
        x = np.linspace(-0.5, 0.5, builtin.dimension)
        self.assertEqual(loaded.dimension, builtin.dimension)
        self.assertAlmostEqual(loaded.log_density(x), builtin.log_density(x), places=12)
        np.testing.assert_allclose(loaded.log_density_gradient(x)[1], builtin.log_density_gradient(x)[1],
                                   rtol=1e-12)


class Sampling(unittest.TestCase):
    def test_draws_and_statistics_have_chain_and_draw_axes(self):
        fit = variate.Model("eight-schools").sample(chains=3, warmup=150, draws=120, seed=4)
        self.assertFalse(fit.interrupted)
        self.assertEqual((fit.chains, fit.draws_per_chain), (3, 120))
        shapes = {name: a.shape for name, a in fit.draws.items()}
        self.assertEqual(shapes, {"mu": (3, 120), "tau": (3, 120), "theta_tilde": (3, 120, 8),
                                  "theta": (3, 120, 8)})
        self.assertEqual(list(fit.stats), ["lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                                           "divergent__", "energy__"])
        self.assertTrue(all(a.shape == (3, 120) for a in fit.stats.values()))
        d = fit.draws
        # The generated quantity, element by element: the reshaping keeps each element in its place.
        np.testing.assert_allclose(d["theta"], d["mu"][..., None] + d["tau"][..., None] * d["theta_tilde"],
                                   rtol=1e-12, atol=1e-12)
        self.assertTrue(np.all(d["tau"] > 0))

    def test_the_same_seed_gives_the_same_draws_and_hmc_its_own_statistics(self):
        model = variate.Model("eight-schools")
        a = model.sample(chains=2, warmup=50, draws=40, seed=9, sampler="hmc", threads=1)
        b = model.sample(chains=2, warmup=50, draws=40, seed=9, sampler="hmc", threads=2)
        np.testing.assert_array_equal(a.draws["theta_tilde"], b.draws["theta_tilde"])
        self.assertEqual(list(a.stats), ["lp__", "accept_stat__", "stepsize__", "int_time__", "energy__"])
        # A jittered trajectory length: the integration time varies between draws at the fixed step size.
        c = model.sample(chains=1, warmup=50, draws=40, seed=9, sampler="hmc", trajectory_length=1.5,
                         trajectory_jitter=0.5)
        self.assertGreater(len(np.unique(c.stats["int_time__"])), 1)
        self.assertLessEqual(np.max(c.stats["int_time__"]), 1.5 * 1.5 + 1e-12)

    def test_summary_of_the_beta_bernoulli_posterior(self):
        fit = variate.Model("beta-bernoulli").sample(chains=4, warmup=300, draws=500, seed=2)
        summary = fit.summary()
        self.assertEqual(summary.names, ["lp__", "theta"])
        self.assertEqual(summary.values.shape, (2, len(summary.statistics)))
        theta = summary["theta"]
        self.assertAlmostEqual(theta["mean"], float(np.mean(fit.draws["theta"])), places=12)
        # The posterior is Beta(3, 9): mean 1/4, within four Monte Carlo standard errors.
        self.assertLess(abs(theta["mean"] - 0.25), 4 * theta["mcse"])
        self.assertLess(theta["rhat"], 1.05)
        self.assertEqual(len(summary.sampler["step_sizes"]), 4)
        self.assertIn("R_hat", str(summary))
        with self.assertRaisesRegex(KeyError, "no row 'beta'"):
            summary["beta"]

    def test_the_gil_is_released_while_the_chains_run(self):
        model = variate.Model("eight-schools")
        runner = threading.Thread(target=model.sample, kwargs={"chains": 2, "warmup": 100, "draws": 6000, "seed": 1})
        counted = 0
        runner.start()
        while runner.is_alive():
            counted += 1
        runner.join()
        # Held for the whole run, the GIL would leave this thread a few switch intervals at most.
        self.assertGreater(counted, 10_000)

    def test_ctrl_c_stops_the_chains_and_keeps_the_draws(self):
        child = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "interrupt_child.py"), "1.0"],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(child.returncode, 0, child.stderr)
        result = json.loads(child.stdout)
        self.assertTrue(result["interrupted"])
        n = result["draws_per_chain"]
        self.assertGreater(n, 0)
        self.assertLess(n, 1_000_000)
        self.assertEqual(result["mu_shape"], [2, n])
        self.assertEqual(result["theta_shape"], [2, n, 8])
        self.assertEqual(result["lp_shape"], [2, n])
        self.assertEqual(len(result["warnings"]), 1)
        self.assertIn("sampling was interrupted", result["warnings"][0])
        self.assertTrue(math.isfinite(result["mu_mean"]))


class BadInput(unittest.TestCase):
    def assert_refused(self, pattern, *args, **kwargs):
        with self.assertRaisesRegex(ValueError, pattern):
            variate.Model(*args, **kwargs)

    def test_unknown_model(self):
        self.assert_refused("no built-in model 'eight-schoolz'; the built-in models are eight-schools", "eight-schoolz")

    def test_a_name_and_a_file_or_neither(self):
        self.assert_refused("not both", "eight-schools", file=plugin("eight_schools"))
        self.assert_refused("got neither")

    def test_a_missing_variable(self):
        self.assert_refused("variable 'y' is missing", "eight-schools", data={"sigma": [1.0, 2.0]})

    def test_a_variable_of_the_wrong_shape(self):
        self.assert_refused(r"variable 'sigma' has shape \(2\); expected shape \(3\)", "eight-schools",
                            data={"y": [1.0, 2.0, 3.0], "sigma": np.array([1.0, 2.0])})

    def test_values_that_are_not_finite_numbers(self):
        self.assert_refused(r"'sigma' has the non-finite value nan at sigma\[1\]", "eight-schools",
                            data={"y": [1.0, 2.0], "sigma": [1.0, np.nan]})
        self.assert_refused("'y' has numpy dtype <U1; expected integers or reals", "eight-schools",
                            data={"y": ["a"], "sigma": [1.0]})
        self.assert_refused("'y' is not a rectangular array of numbers", "eight-schools",
                            data={"y": [[1.0, 2.0], [3.0]], "sigma": [1.0]})

    def test_a_plugin_without_a_model_of_another_interface_or_missing(self):
        self.assert_refused("exports no variate model", file=plugin("no_model"))
        self.assert_refused("built for plugin interface version 999", file=plugin("other_abi"))
        self.assert_refused("absent.so' does not exist", file=plugin("absent"))

    def test_a_point_of_the_wrong_length_and_bad_sampler_options(self):
        model = variate.Model("eight-schools")
        with self.assertRaisesRegex(ValueError, r"expected a vector of 10 unconstrained values, got .* \(3\)"):
            model.log_density_gradient(np.zeros(3))
        with self.assertRaisesRegex(ValueError, "--chains must be at least 1"):
            model.sample(chains=0)
        with self.assertRaisesRegex(ValueError, "--sampler must be nuts, hmc or chees"):
            model.sample(sampler="mh")


if __name__ == "__main__":
    unittest.main()
