"""OpenBB Workspace custom agent: descriptor, request reading, widget context, SSE stream."""
