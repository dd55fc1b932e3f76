"""The grades going back to an LMS, and who each row is from: the instructor's roster
(:mod:`.roster`), a Gradescope export's submitters (:mod:`.gradescope`) and the import file each
LMS reads (:mod:`.export`). What a download's names say is :mod:`..downloads`'s, below
collection, so that this package stands on the records it exports."""
