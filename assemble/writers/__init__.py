"""Output formats of a build, one module each, behind one interface (``base.FormatWriter``).

``reflong_json`` (Ref-Long prompts and answers), ``parquet`` (the `datasets` dataset), ``stats``
(the card's figures, no file); ``formats.FORMATS`` lists the formats every build writes and
``config_writer.ConfigWriter`` feeds one configuration's tasks to all of them.

A new format: one module here with a class that has ``for_spec(spec)`` (its writer, or None when
the build does not want it), ``open(out_dir, config)``, ``add(task)``, ``close() -> files`` and
``abort()`` (``base.StagedFiles`` does the ``.part`` bookkeeping), and its name in ``FORMATS``.
"""
