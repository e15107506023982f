"""The 1PL fits: the joint MAP (Newton on the exact curvature), NUTS in PyMC, the marginal abilities by EM, the cells'
likelihood and its compiled kernels, and the calibration of new items and models on a fitted scale.

Imported by module; the stage's names are exported by ``benchwatch.irt``."""
