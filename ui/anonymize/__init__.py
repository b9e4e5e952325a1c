"""The Anonymize workspace: review detected faces/plates, fix geometry, release clean photos."""
