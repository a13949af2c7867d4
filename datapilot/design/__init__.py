"""The interface design stage: profile sources, self-request, define, merge, implement."""
