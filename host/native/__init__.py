"""The browser-started native host (relay) and the installer of its manifests."""
