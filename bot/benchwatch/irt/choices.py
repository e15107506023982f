"""The named choices of the fit (method, NUTS sampler, z scale): plain constants, light to import for the
command line's options."""

METHODS = ("map", "nuts")
SAMPLERS = ("auto", "nutpie", "pymc", "numpyro", "blackjax")
SCALES = ("ability-quantile", "expected-failure")
DEFAULT_SCALE = "ability-quantile"
