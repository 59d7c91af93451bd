"""Paper C theory: the compiled Result-4.2 system and its solver."""
