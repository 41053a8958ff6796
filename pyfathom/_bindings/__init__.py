"""The cffi bindings: the compiled core's calls wrapped for Python (handles, status codes, the clock rule)."""
