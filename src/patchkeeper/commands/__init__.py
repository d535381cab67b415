"""One module per command; each ``run(...)`` returns a result object and never prints."""
