"""The store's stages: reference lists extracted into the store (cite) and their entries resolved
into edges with evidence (resolve)."""
