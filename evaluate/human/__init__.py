"""The human baseline: a local web page on which a person answers built tasks, as a model would.

Ref-Long's findings are read against people: two annotators answered 50 tasks each (124 s a task,
92% ExAcc, 84% agreement). ``reflong-build human`` lets a user measure the same on any build:

- ``tasks``: which tasks of a build one annotator sees (the first N of one setting, so every
  annotator given the same N sees the same tasks and their answers can be compared);
- ``store``: every answer appended to a JSONL log and fsynced before the page hears "saved",
  so a closed browser or a killed server loses nothing and a restart resumes; predictions in
  ``eval run``'s format are derived from the log;
- ``server``: the page and its small JSON API on 127.0.0.1 (standard library ``http.server``);
- ``static/``: the page itself (plain HTML, CSS and JavaScript: nothing to build or download).
"""
