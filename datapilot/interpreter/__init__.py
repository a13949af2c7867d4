"""The code interpreter: a sandboxed Python kernel per session, speaking LMC."""
