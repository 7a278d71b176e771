"""Server-side apply: field ownership (managedFields) and schema-driven merges of objects."""
