"""Citation indexes (Semantic Scholar, OpenAlex) as candidate generators for keys and citers.

The providers are listed by name in ``registry.py``; a new one is its module and one line there."""
