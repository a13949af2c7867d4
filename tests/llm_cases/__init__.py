"""Scripted model outputs and helpers for the LLM brain tests."""
