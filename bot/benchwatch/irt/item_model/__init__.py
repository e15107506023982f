"""The item model and its checks: the chance floor, the spread of discriminations, agreeing samples, their profile
intervals, the fit check and the path the bounds take.

Imported by module; the stage's names are exported by ``benchwatch.irt``."""
