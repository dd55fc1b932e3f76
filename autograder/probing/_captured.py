"""Builtins captured when the grader's modules load, before any student code runs: probing code
uses these, not the module attributes a submission may have replaced."""

from __future__ import annotations

import builtins
import inspect
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np

if TYPE_CHECKING:
    from types import UnionType

    from typing_extensions import TypeIs

_T = TypeVar("_T")
_U = TypeVar("_U")
_V = TypeVar("_V")

_getsource = inspect.getsource
_unwrap = inspect.unwrap
_np_array = np.array
_np_save = np.save
_type = builtins.type

if TYPE_CHECKING:
    # ``builtins.isinstance`` itself at run time (below); typed here so that mypy narrows on it
    # as it does on ``isinstance`` (it narrows only calls of the builtin by its own name).

    @overload
    def _isinstance(obj: object, cls: type[_T], /) -> TypeIs[_T]: ...
    @overload
    def _isinstance(obj: object, cls: tuple[type[_T], type[_U]], /) -> TypeIs[_T | _U]: ...
    @overload
    def _isinstance(obj: object, cls: tuple[type[_T], type[_U], type[_V]], /) -> TypeIs[_T | _U | _V]: ...
    @overload
    def _isinstance(obj: object, cls: type[Any] | UnionType | tuple[Any, ...], /) -> bool: ...
    def _isinstance(obj: object, cls: Any, /) -> bool: ...

else:
    _isinstance = builtins.isinstance
