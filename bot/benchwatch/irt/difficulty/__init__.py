"""Where the items lie: their nonparametric distribution of difficulty (the mixing solver the bounds search with), each
item's posterior on the difficulty scale, and the scale's map to the z axis.

Imported by module; the stage's names are exported by ``benchwatch.irt``."""
