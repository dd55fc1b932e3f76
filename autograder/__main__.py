import atexit
import os
import sys

from .cli import main

code = main()
# A finished command skips tearing the interpreter down (freeing JAX, NumPy and matplotlib
# object by object: 0.35 s, a twentieth of grading one file). Exit handlers (temporary folders,
# logging) still run and the streams are flushed first, so nothing it wrote is lost.
atexit._run_exitfuncs()
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except (OSError, ValueError):  # a closed pipe (`| head`): nothing more can reach it
        pass
os._exit(code)
