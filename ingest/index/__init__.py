"""Citation indexes (Semantic Scholar, OpenAlex) as candidate generators for keys and citers."""
