"""Build, grade, validate and export the JAX course: ``python -m autograder --help``."""

import sys

# nbformat imports jsonschema, whose format checkers import ``rfc3987_syntax`` when it is
# installed (jupyter-events requires it). That module compiles 39 lark grammars at import,
# about 2 s of every command's start-up, for IRI format checks that notebook validation never
# makes (nbformat's schemas name no such format). Marking it absent makes jsonschema skip
# those two checks, as it does wherever the package is not installed.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
