"""The long-running archive daemon: app state, background jobs, HTTP/websocket server, security."""
