"""The grading pipeline, in the order a submission meets it.

collect (read SUBMISSIONS into one :class:`~.collect.Submission` each) -> gates (the static
rules, read on the cells in this process) -> sandboxes (run the cells, then the hidden probes, in
a walled child) -> reference (the reference solution's outputs, stored per host) -> judge (compare
values, a pure function) -> records (one row each, written atomically) -> report and console
(the class report and the progress line). :mod:`.batch` is the ``grade`` command that drives
them; :mod:`.backends` runs the same step on this machine or on a Dask cluster.

Grading never imports :mod:`autograder.release`.
"""
