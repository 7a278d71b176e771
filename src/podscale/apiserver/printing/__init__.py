"""Server-side printing: ``meta.k8s.io/v1`` Tables, their columns and row printers per kind."""
