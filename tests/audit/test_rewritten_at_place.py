"""A code patch whose changed lines upstream rewrote where they were: *look*, not *port*."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

RESOURCE_OLD = '''class Page(Resource):
    def __init__(self, status, brief, detail):
        Resource.__init__(self)
        self.code = status


class _NoResource(Page):
    """
    A page for a missing resource.
    """

    def __init__(self, message="Sorry. No luck finding that resource."):
        Page.__init__(self, NOT_FOUND, "No Such Resource", message)


class _ForbiddenResource(Page):
    """
    A page for a forbidden resource.
    """

    def __init__(self, message="Sorry, resource is forbidden."):
        Page.__init__(self, FORBIDDEN, "Forbidden Resource", message)
'''

# call the base class by its private name, not by the public alias upstream deprecates
PRIVATE_ALIAS = '''Subject: Call the superclass constructor via private alias
---
--- a/pkg/resource.py
+++ b/pkg/resource.py
@@ -11,7 +11,7 @@ class _NoResource(Page):
     """

     def __init__(self, message="Sorry. No luck finding that resource."):
-        Page.__init__(self, NOT_FOUND, "No Such Resource", message)
+        _Page.__init__(self, NOT_FOUND, "No Such Resource", message)


 class _ForbiddenResource(Page):
@@ -20,4 +20,4 @@ class _ForbiddenResource(Page):
     """

     def __init__(self, message="Sorry, resource is forbidden."):
-        Page.__init__(self, FORBIDDEN, "Forbidden Resource", message)
+        _Page.__init__(self, FORBIDDEN, "Forbidden Resource", message)
'''

# upstream split the class and calls the new base where the patch called the private name
RESOURCE_NEW = '''class _PageBase(Resource):
    def __init__(self, status, brief, detail):
        Resource.__init__(self)
        self.code = status


class _Page(_PageBase):
    pass


class _NoResource(_PageBase):
    """
    A page for a missing resource, also known as NoResource.
    """

    def __init__(self, message="Sorry. No luck finding that resource."):
        _PageBase.__init__(self, NOT_FOUND, "No Such Resource", message)


class _ForbiddenResource(_PageBase):
    """
    A page for a forbidden resource, also known as ForbiddenResource.
    """

    def __init__(self, message="Sorry, resource is forbidden."):
        _PageBase.__init__(self, FORBIDDEN, "Forbidden Resource", message)


Page = _Page
'''


def test_lines_upstream_rewrote_where_the_patch_changes_them_are_a_look(
    tmp_path: Path,
) -> None:
    new = {"pkg/resource.py": RESOURCE_NEW}
    old = {"pkg/resource.py": RESOURCE_OLD}
    [verdict] = judge(tmp_path, new, [("alias.patch", PRIVATE_ALIAS)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "look")
    assert verdict.rule == "rewritten-at-place"
    assert verdict.rewritten == (
        "upstream rewrote at their place the lines pkg/resource.py #1, pkg/resource.py #2 change, "
        "without what the patch takes out (Page): "
        '`Page.__init__(self, NOT_FOUND, "No Such Resource", message)` is now '
        '`_PageBase.__init__(self, NOT_FOUND, "No Such Resource", message)`'
    )
    assert verdict.summary.endswith(
        f"; {verdict.rewritten}; to do: look (upstream changed the same lines; decide "
        "whether its change has the fix)"
    )


def test_a_line_the_new_release_still_has_is_a_port(tmp_path: Path) -> None:
    # the first call is still there as the patch found it: upstream did not rewrite it
    new = {
        "pkg/resource.py": RESOURCE_NEW.replace(
            '_PageBase.__init__(self, NOT_FOUND, "No Such Resource", message)',
            'Page.__init__(self, NOT_FOUND, "No Such Resource", message)',
        )
    }
    old = {"pkg/resource.py": RESOURCE_OLD}
    [verdict] = judge(tmp_path, new, [("alias.patch", PRIVATE_ALIAS)], old)
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


RETRY_OLD = """class Retry:
    #: Headers removed when a redirect leaves the host.
    REMOVE_ON_REDIRECT = frozenset(["Authorization"])

    #: The longest wait between two attempts, in seconds.
    BACKOFF_MAX = 120
"""

PROXY_AUTH = """Subject: drop Proxy-Authorization on a redirect that leaves the host
---
--- a/pkg/retry.py
+++ b/pkg/retry.py
@@ -1,6 +1,6 @@
 class Retry:
     #: Headers removed when a redirect leaves the host.
-    REMOVE_ON_REDIRECT = frozenset(["Authorization"])
+    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization"])

     #: The longest wait between two attempts, in seconds.
     BACKOFF_MAX = 120
"""


def test_a_line_both_only_added_to_is_a_port(tmp_path: Path) -> None:
    # upstream added another header to the same list: the patch's header is still missing
    new = {"pkg/retry.py": RETRY_OLD.replace('["Authorization"]', '["Authorization", "Cookie"]')}
    [verdict] = judge(tmp_path, new, [("proxy.patch", PROXY_AUTH)], {"pkg/retry.py": RETRY_OLD})
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


CONF_OLD = """project = "pkg"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", None),
}
html_theme = "alabaster"
"""

LOCAL_INVENTORY = """Subject: Use the local Python inventory
---
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,5 +1,5 @@
 project = "pkg"
 intersphinx_mapping = {
-    "python": ("https://docs.python.org/3/", None),
+    "python": ("/usr/share/doc/python3/html/", None),
 }
 html_theme = "alabaster"
"""


def test_a_documentation_line_rewritten_in_place_is_still_a_port(tmp_path: Path) -> None:
    new = {
        "docs/conf.py": CONF_OLD.replace("docs.python.org/3/", "docs.python.org/3.13/").replace(
            "alabaster", "furo"
        )
    }
    [verdict] = judge(
        tmp_path, new, [("inventory.patch", LOCAL_INVENTORY)], {"docs/conf.py": CONF_OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.rewritten) == ("conflict", "port", "")


RENAME_CALL = '''Subject: Call the page through its new name
---
--- a/pkg/resource.py
+++ b/pkg/resource.py
@@ -10,7 +10,7 @@ class _NoResource(Page):
     """

     def __init__(self, message="Sorry. No luck finding that resource."):
-        Page.__init__(self, NOT_FOUND, "No Such Resource", message)
+        NamedPage.__init__(self, NOT_FOUND, "No Such Resource", message)


 class _ForbiddenResource(Page):
'''

PRIVATE_NAMED = '''Subject: Call the named page through its private alias
---
--- a/pkg/resource.py
+++ b/pkg/resource.py
@@ -9,9 +9,9 @@ class _NoResource(Page):
     A page for a missing resource.
     """

     def __init__(self, message="Sorry. No luck finding that resource."):
-        NamedPage.__init__(self, NOT_FOUND, "No Such Resource", message)
+        _NamedPage.__init__(self, NOT_FOUND, "No Such Resource", message)


 class _ForbiddenResource(Page):
     """
'''


def test_the_file_is_read_as_the_earlier_patches_left_it(tmp_path: Path) -> None:
    # the line the second patch changes is the first patch's, still in the file: its hunk
    # fails only on the docstring upstream reworded, not on a line upstream rewrote
    new = {
        "pkg/resource.py": RESOURCE_OLD.replace(
            "A page for a missing resource.", "A page for a missing resource, or NoResource."
        )
    }
    old = {"pkg/resource.py": RESOURCE_OLD}
    patches = [("rename.patch", RENAME_CALL), ("private.patch", PRIVATE_NAMED)]
    first, second = judge(tmp_path, new, patches, old)
    assert (first.verdict, first.action) == ("clean", "carry")
    assert (second.verdict, second.action, second.rewritten) == ("conflict", "carry", "")
