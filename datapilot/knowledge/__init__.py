"""Knowledge libraries: a user's documents, chunked by structure, retrieved and cited."""
