"""Worker process entry points, one per task queue."""
