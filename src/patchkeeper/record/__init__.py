"""The audit record (``AUDIT.md``): the evidence store, the decisions file, the measured
environment, and the record built and checked from them.

See docs/architecture.md (the layers), docs/glossary.md (the three records) and
docs/audit-record.md (the workflow).
"""
