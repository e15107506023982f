"""The package's version, in a module of its own below every stage: ``benchwatch.__version__`` names it, and a
stage that writes it into a file (the Every Eval Ever records) reads it here, not from the package's face."""

__version__ = "0.1.0"
