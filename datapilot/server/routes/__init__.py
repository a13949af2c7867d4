"""The HTTP routes, one module per resource; each has a `router` that `server.plugin` includes."""
