// A shared library that is not a model plugin (no VARIATE_MODEL): loading it must be refused.
extern "C" int answer() { return 42; }
