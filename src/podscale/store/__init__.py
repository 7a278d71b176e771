"""Versioned object storage (``interface``): in-memory and SQLite backends, with watch."""
