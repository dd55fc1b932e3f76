"""Build, grade, validate and export the JAX course: ``python -m autograder --help``."""
