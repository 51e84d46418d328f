"""assessment."""
