"""Builtins captured when the grader's modules load, before any student code runs: probing code
uses these, not the module attributes a submission may have replaced."""

from __future__ import annotations

import builtins
import inspect

import numpy as np

_getsource = inspect.getsource
_unwrap = inspect.unwrap
_np_array = np.array
_np_save = np.save
_isinstance = builtins.isinstance
_type = builtins.type
