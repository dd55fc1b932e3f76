"""Who a submission is from, and the grades going back: the download layouts of each LMS
(:mod:`.layouts`, :mod:`.gradescope`), the instructor's roster (:mod:`.roster`) and the import
file each LMS reads (:mod:`.export`)."""
