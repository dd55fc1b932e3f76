"""What people read after grading: the pages (one feedback page per student and the class
report, :mod:`.pages`) and what ``grade`` prints while it runs (:mod:`.console`). Pages render
the records they are given; nothing here grades."""
