"""HTTP helpers (was minihttp.headers before 1.1)."""


def normalize(name):
    """Title-case a header name: ``content-type`` -> ``Content-Type``."""
    return "-".join(part.capitalize() for part in name.split("-"))


def merge(first, second):
    """Merge two header dicts; ``second`` wins."""
    out = {normalize(k): v for k, v in first.items()}
    out.update({normalize(k): v for k, v in second.items()})
    return out
