"""The release side: what instructors publish and CI checks.

:mod:`.build` makes the student release and the Gradescope zip (:mod:`.handout` the student
notebook's setup, :mod:`.gradescope` the runtime inside Gradescope's container with its shell
scripts under ``templates/``), :mod:`.nbgrader` the nbgrader course source, and
:mod:`.validate` the course gate CI runs. Release code may import :mod:`autograder.grading`;
grading never imports release.
"""
