"""Native-messaging transport: framing, the request envelope and the one dispatch dict."""
