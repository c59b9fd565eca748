"""The web console: HTML pages served by the same app, signed in with a cookie (see docs/console.md)."""
