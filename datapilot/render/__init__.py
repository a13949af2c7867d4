"""Renderers: pipeline events and outputs as a terminal view, LMC chunks and chart images."""
