"""A local catalog folder (``--source DIR``, the format of ../shared/corpus) as a source of papers."""
