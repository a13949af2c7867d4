"""Datapilot published as a plugin: one registry of operations (`operations`) and the faces
generated from it — the ai-plugin.json manifest and OpenAPI spec (`faces`), and an MCP server
(`mcp_server`) over stdio or Streamable HTTP."""
