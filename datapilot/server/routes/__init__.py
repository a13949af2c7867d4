"""The HTTP routes, one module per resource; each has a `router` that `server.plugin` includes.

The native API: `ask` (`/api/v1/ask`), `interpreter` (`/api/v1/interpreter`, HTTP and
WebSocket). The platform, under `/api/v1`: `assistants`, `tools`, `chats`, `messages`, `files`,
`scene_prompts`, `usage`, `keys`, `tool_sources`, `memories`, `libraries`, and `guests` (a
public assistant's chats without a key). Other faces: `openai` (`/v1/models`,
`/v1/chat/completions`), `publish` (the plugin manifest and spec, `/run`, `/mcp`), `health`. The
OpenBB Workspace agent and the web page keep their routes in their own packages
(`server.openbb`, `server.web`).

What routes share lives beside this package: `deps` (what a route asks for), `store_calls`,
`errors` (the error hierarchy and the native handler), `auth`, `limits`, `chat_turns`, `runner`.
"""
